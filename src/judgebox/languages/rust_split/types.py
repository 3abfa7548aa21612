"""The closed set of a signature's types, read from a Rust program's tokens (the grammar in
``signatures``' docstring) and spelled by their std paths, as the tests' side spells them."""

from __future__ import annotations

import re

from judgebox.languages.rust_split.lexer import Token, Unsupported

MAX_NESTING = 24
INTS = ("i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize")
SCALARS = frozenset((*INTS, "f32", "f64", "bool", "char"))
GENERICS = {"Vec": ("::std::vec::Vec", 1), "VecDeque": ("::std::collections::VecDeque", 1),
            "Option": ("::std::option::Option", 1), "Result": ("::std::result::Result", 2),
            "HashMap": ("::std::collections::HashMap", 2),
            "HashSet": ("::std::collections::HashSet", 1), "BTreeMap": ("::std::collections::BTreeMap", 2),
            "BTreeSet": ("::std::collections::BTreeSet", 1)}
STD_PATHS = {"Vec": ("vec",), "VecDeque": ("collections", "collections::vec_deque"), "Option": ("option",),
             "Result": ("result",), "Box": ("boxed",), "Any": ("any",),
             "HashMap": ("collections", "collections::hash_map"), "HashSet": ("collections", "collections::hash_set"),
             "BTreeMap": ("collections", "collections::btree_map"),
             "BTreeSet": ("collections", "collections::btree_set"), "String": ("string",)}
STR = "&'static str"  # a &str inside a type: leaked on the tests' side
ANY = "::std::boxed::Box<dyn ::std::any::Any>"


def at(toks: list[Token], i: int, text: str) -> bool:
    return i < len(toks) and toks[i].kind == "punct" and toks[i].text == text


def read_type(toks: list[Token], i: int, depth: int) -> tuple[str, int]:
    """A type of the closed set at ``toks[i]``, spelled by its std path; and the index after it."""
    if depth > MAX_NESTING:
        raise Unsupported("a type nested too deeply")
    if at(toks, i, "::"):  # ::std::...
        i += 1
    if i >= len(toks):
        raise Unsupported("a type cut short")
    t = toks[i]
    if at(toks, i, "&"):  # only &str: a string the tests' side leaks
        i = after_lifetime(toks, i + 1)
        if not (i < len(toks) and toks[i].kind == "ident" and toks[i].text == "str"):
            raise Unsupported("a reference other than &str in a type (or it returns a reference)")
        return STR, i + 1
    if at(toks, i, "("):
        parts, i = [], i + 1
        while not at(toks, i, ")"):
            part, i = read_type(toks, i, depth + 1)
            parts.append(part)
            if at(toks, i, ","):
                i += 1
            elif not at(toks, i, ")"):
                raise Unsupported("a tuple type outside the grammar")
        return ("(" + "".join(f"{p}, " for p in parts) + ")" if len(parts) == 1 else f"({', '.join(parts)})"), i + 1
    if at(toks, i, "["):
        elem, i = read_type(toks, i + 1, depth + 1)
        if not (at(toks, i, ";") and i + 2 < len(toks) and re.fullmatch(r"[0-9]{1,6}(?:usize)?", toks[i + 1].text)
                and at(toks, i + 2, "]")):
            raise Unsupported("a slice or array type outside the grammar (an array's length must be a number)")
        return f"[{elem}; {toks[i + 1].text.removesuffix('usize')}]", i + 3
    if t.kind != "ident":
        raise Unsupported(f"the type starting {t.text!r}")
    name, i = std_path(toks, i)
    if name in SCALARS:
        return name, i
    if name == "String":
        return "::std::string::String", i
    if name == "Box":
        if not at(toks, i, "<"):
            raise Unsupported("Box without its type argument")
        i = dyn_any(toks, i + 1)
        if not at(toks, i, ">"):
            raise Unsupported("a Box of another type than dyn Any")
        return ANY, i + 1
    if name not in GENERICS:
        if toks[i - 1] is not t or name in ("Self", "Box", "Any", "dyn", "impl", "str"):
            raise Unsupported(f"the type {name}")
        # one of the program's types, if it is plain data (``read`` checks once it has read them all)
        if not at(toks, i, "<"):
            return f"crate::{name}", i
        path, count = f"crate::{name}", 0
    else:
        path, count = GENERICS[name]
    if not at(toks, i, "<"):
        raise Unsupported(f"{name} without its type arguments")
    args, i = [], i + 1
    while True:
        arg, i = read_type(toks, i, depth + 1)
        args.append(arg)
        if at(toks, i, ","):
            i += 1
            continue
        if at(toks, i, ">"):
            i += 1
            break
        raise Unsupported(f"{name}'s type arguments outside the grammar")
    if count and len(args) != count:
        raise Unsupported(f"{name} of {len(args)} types")
    return f"{path}<{', '.join(args)}>", i


def after_lifetime(toks: list[Token], i: int) -> int:
    """After a reference's ``&``: an optional lifetime (the program's compiler checks it is declared; the
    tests' side spells the reference without it)."""
    if i < len(toks) and toks[i].kind == "lifetime":
        return i + 1
    return i


def dyn_any(toks: list[Token], i: int) -> int:
    """``dyn Any`` (``std::any::Any``) at ``toks[i]``, no other trait nor bound; the index after it."""
    if not (i + 1 < len(toks) and toks[i].kind == "ident" and toks[i].text == "dyn" and toks[i + 1].kind == "ident"):
        raise Unsupported("a Box of another type than dyn Any")
    name, i = std_path(toks, i + 1)
    if name != "Any" or at(toks, i, "+"):
        raise Unsupported(f"dyn {name}: of the trait objects only dyn Any (with no bound) crosses")
    return i


def std_path(toks: list[Token], i: int) -> tuple[str, int]:
    """A type name, after an optional ``std::``/``::std::`` path that names where std keeps it."""
    segments = [toks[i].text]
    i += 1
    while at(toks, i, "::") and i + 1 < len(toks) and toks[i + 1].kind == "ident":
        segments.append(toks[i + 1].text)
        i += 2
    name = segments[-1]
    if len(segments) > 1:
        module = "::".join(segments[1:-1])
        if segments[0] not in ("std", "alloc", "core") or module not in STD_PATHS.get(name, ()):
            raise Unsupported(f"the type {'::'.join(segments)}")
    return name, i
