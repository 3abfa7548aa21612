"""A Rust program's top-level functions, read by a strict grammar (no Rust parser runs here).

The program is read as an attacker's text: a lexer that knows Rust's comments (nested), strings (raw,
byte, C), char literals and lifetimes finds the items at the top level; a function there is callable by
the tests only when its signature is in the grammar below, every type of the closed set of data types:

    type   := int | f32 | f64 | bool | char | String | () | (type, ...) | [type; N]
            | Vec<type> | VecDeque<type> | Option<type> | HashMap<type, type> | HashSet<type>
            | BTreeMap<type, type> | BTreeSet<type>        (a std:: path before a name is allowed)
    param  := ident ':' (type | '&' ['mut'] (type | str | [type]))
    result := type

Anything else (generics, lifetimes, ``impl``/``dyn``, references in results, ``async``/``unsafe``/
``extern`` functions, methods, patterns as parameters) is a refusal with its reason. What the grammar
says is only what the tests' side spells; if the program's names mean something else (its own ``type
String = i32``), the program's side does not compile (CE), since it spells every type by its std path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_SOURCE = 4 << 20
MAX_NESTING = 24
INTS = ("i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize")
SCALARS = frozenset((*INTS, "f32", "f64", "bool", "char"))
GENERICS = {"Vec": ("::std::vec::Vec", 1), "VecDeque": ("::std::collections::VecDeque", 1),
            "Option": ("::std::option::Option", 1), "HashMap": ("::std::collections::HashMap", 2),
            "HashSet": ("::std::collections::HashSet", 1), "BTreeMap": ("::std::collections::BTreeMap", 2),
            "BTreeSet": ("::std::collections::BTreeSet", 1)}
STD_PATHS = {"Vec": ("vec",), "VecDeque": ("collections", "collections::vec_deque"), "Option": ("option",),
             "HashMap": ("collections", "collections::hash_map"), "HashSet": ("collections", "collections::hash_set"),
             "BTreeMap": ("collections", "collections::btree_map"),
             "BTreeSet": ("collections", "collections::btree_set"), "String": ("string",)}
STD_CRATES = frozenset(("std", "core", "alloc", "crate", "self", "super"))
DECLARING = frozenset(("mod", "enum", "struct", "trait", "type", "union", "fn", "const", "static", "macro_rules"))


class Unsupported(Exception):
    """A signature outside the grammar (the reason is the message)."""


@dataclass(frozen=True)
class Token:
    kind: str  # ident, lifetime, literal, punct
    text: str
    start: int
    end: int


_PUNCT = ("::", "->", "=>", "..=", "...", "..")
_IDENT = re.compile(r"(?:r#)?[A-Za-z_][A-Za-z0-9_]*")
_NUMBER = re.compile(r"[0-9][0-9A-Za-z_]*(?:\.[0-9][0-9A-Za-z_]*)?")
_RAW = re.compile(r"(?:br|cr|r)(#*)\"")


def tokens(source: str) -> list[Token]:
    """Rust's tokens, comments dropped; an unterminated comment, string or char is Unsupported."""
    if len(source) > MAX_SOURCE:
        raise Unsupported("the program is too long")
    out: list[Token] = []
    i, n = 0, len(source)
    while i < n:
        c = source[i]
        if c.isspace():
            i += 1
        elif source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
        elif source.startswith("/*", i):
            i = _block_comment(source, i)
        elif raw := _RAW.match(source, i):
            close = '"' + raw[1]
            end = source.find(close, raw.end())
            if end < 0:
                raise Unsupported("an unterminated raw string")
            out.append(Token("literal", "", i, end + len(close)))
            i = end + len(close)
        elif c == '"' or (c in "bc" and source.startswith('"', i + 1)):
            end = _quoted(source, i + (0 if c == '"' else 1), '"')
            out.append(Token("literal", "", i, end))
            i = end
        elif c == "'" or (c == "b" and source.startswith("'", i + 1)):
            start = i + (0 if c == "'" else 1)
            char = re.compile(r"'(?:[^\\'\n]|\\(?:x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f_]{1,8}\}|.))'").match(source, start)
            if char:
                out.append(Token("literal", "", i, char.end()))
                i = char.end()
            else:
                life = _IDENT.match(source, start + 1)
                if c == "b" or life is None:
                    raise Unsupported("a malformed char literal")
                out.append(Token("lifetime", "'" + life[0], i, life.end()))
                i = life.end()
        elif ident := _IDENT.match(source, i):
            out.append(Token("ident", ident[0].removeprefix("r#"), i, ident.end()))
            i = ident.end()
        elif number := _NUMBER.match(source, i):
            out.append(Token("literal", number[0], i, number.end()))
            i = number.end()
        else:
            punct = next((p for p in _PUNCT if source.startswith(p, i)), c)
            out.append(Token("punct", punct, i, i + len(punct)))
            i += len(punct)
    return out


def _block_comment(source: str, i: int) -> int:
    depth = 0
    while i < len(source):
        if source.startswith("/*", i):
            depth, i = depth + 1, i + 2
        elif source.startswith("*/", i):
            depth, i = depth - 1, i + 2
            if depth == 0:
                return i
        else:
            i += 1
    raise Unsupported("an unterminated comment")


def _quoted(source: str, i: int, quote: str) -> int:
    i += 1
    while i < len(source):
        if source[i] == "\\":
            i += 2
        elif source[i] == quote:
            return i + 1
        else:
            i += 1
    raise Unsupported("an unterminated string")


@dataclass(frozen=True)
class Param:
    spelled: str  # the owned type, by its std path
    borrow: str  # "", "&" or "&mut "
    slice_of: bool = False  # &[T] / &str: the owned value is Vec<T> / String, passed as a slice


@dataclass(frozen=True)
class Function:
    name: str
    params: tuple[Param, ...]
    result: str  # "()" for none


@dataclass(frozen=True)
class Item:
    """A top-level item the program's side rewrites: its ``fn main`` (renamed), a ``use`` or ``extern
    crate`` of a crate that is not here (dropped: a prompt's ``use rand::Rng;`` the program never needs)."""

    kind: str  # main, foreign-use
    start: int
    end: int


def top_level(source: str) -> tuple[list[Function], dict[str, str], list[Item]]:
    """The top-level functions of the grammar, the refused ones with why, and the items to rewrite."""
    toks = tokens(source)
    functions: list[Function] = []
    refused: dict[str, str] = {}
    items: list[Item] = []
    uses: list[tuple[str, int, int]] = []  # (first path segment, start, end) of uses of other crates
    declared: set[str] = set()  # the program's own top-level names (a use of its own module stays)
    depth, i = 0, 0
    item_start = 0  # the index of the first token of the current top-level item
    while i < len(toks):
        t = toks[i]
        if t.kind == "punct" and t.text in "([{":
            depth += 1
        elif t.kind == "punct" and t.text in ")]}":
            depth -= 1
            if depth < 0:
                raise Unsupported("unbalanced brackets")
            if depth == 0 and t.text == "}" and _ends_item(toks, item_start):
                item_start = i + 1
        elif depth == 0 and t.kind == "punct" and t.text == ";":
            _foreign_use(toks, item_start, i, uses)
            item_start = i + 1
        elif depth == 0 and t.kind == "ident" and t.text == "fn" and i + 1 < len(toks) \
                and toks[i + 1].kind == "ident":
            name = toks[i + 1].text
            if name == "main":
                items.append(Item("main", toks[i + 1].start, toks[i + 1].end))
            else:
                try:
                    functions.append(_function(toks, item_start, i))
                except Unsupported as exc:
                    refused[name] = str(exc)
        if depth == 0 and t.kind == "ident" and t.text in DECLARING and i + 1 < len(toks) \
                and toks[i + 1].kind == "ident":
            declared.add(toks[i + 1].text)
        i += 1
    if depth:
        raise Unsupported("unbalanced brackets")
    items += [Item("foreign-use", start, end) for crate, start, end in uses if crate not in declared]
    return functions, refused, items


def _ends_item(toks: list[Token], start: int) -> bool:
    """Whether a top-level ``}`` ends the item begun at ``start`` (a fn, mod, impl, struct... body; not
    the braces of a ``use a::{b, c};`` or of a static's initializer)."""
    head = {t.text for t in toks[start:start + 12] if t.kind == "ident"}
    return not head & {"use", "static", "const", "let"} or "fn" in head


def _foreign_use(toks: list[Token], start: int, end: int, uses: list[tuple[str, int, int]]) -> None:
    words = [t for t in toks[start:end] if not (t.kind == "ident" and t.text == "pub")]
    while words and words[0].text == "#":  # attributes before the item
        words = words[_after_attribute(words):]
    if len(words) >= 2 and words[0].text == "use":
        crate = words[2].text if words[1].text == "::" and len(words) > 2 else words[1].text
    elif len(words) >= 3 and words[0].text == "extern" and words[1].text == "crate":
        crate = words[2].text
    else:
        return
    if crate not in STD_CRATES and crate != "{":
        uses.append((crate, toks[start].start, toks[end].end))


def _after_attribute(words: list[Token]) -> int:
    depth = 0
    for k, w in enumerate(words[1:], 1):
        if w.text == "[":
            depth += 1
        elif w.text == "]":
            depth -= 1
            if depth == 0:
                return k + 1
    return len(words)


def _function(toks: list[Token], start: int, fn: int) -> Function:
    qualifiers = [t.text for t in toks[start:fn] if t.kind == "ident"]
    for word in ("async", "unsafe", "extern"):
        if word in qualifiers:
            raise Unsupported(f"it is {word}")
    name = toks[fn + 1].text
    i = fn + 2
    if _at(toks, i, "<"):
        raise Unsupported("it is generic (or has lifetimes)")
    if not _at(toks, i, "("):
        raise Unsupported("it has no parameter list")
    i += 1
    params = []
    while not _at(toks, i, ")"):
        param, i = _param(toks, i)
        params.append(param)
        if _at(toks, i, ","):
            i += 1
        elif not _at(toks, i, ")"):
            raise Unsupported("a parameter outside the grammar")
    i += 1
    result = "()"
    if _at(toks, i, "->"):
        if _at(toks, i + 1, "&"):
            raise Unsupported("it returns a reference")
        result, i = _type(toks, i + 1, 0)
    if not _at(toks, i, "{"):
        raise Unsupported("a where clause, or no body")
    return Function(name, tuple(params), result)


def _at(toks: list[Token], i: int, text: str) -> bool:
    return i < len(toks) and toks[i].kind == "punct" and toks[i].text == text


def _param(toks: list[Token], i: int) -> tuple[Param, int]:
    if i < len(toks) and toks[i].text == "mut" and toks[i].kind == "ident":
        i += 1
    if i >= len(toks) or toks[i].kind != "ident" or toks[i].text in ("self", "mut"):
        raise Unsupported("a parameter that is not a plain name (a pattern, or self)")
    if not _at(toks, i + 1, ":"):
        raise Unsupported("a parameter without a type")
    i += 2
    if not _at(toks, i, "&"):
        spelled, i = _type(toks, i, 0)
        return Param(spelled, ""), i
    i += 1
    if i < len(toks) and toks[i].kind == "lifetime":
        raise Unsupported("a parameter with a lifetime")
    borrow = "&"
    if i < len(toks) and toks[i].kind == "ident" and toks[i].text == "mut":
        borrow, i = "&mut ", i + 1
    if i < len(toks) and toks[i].kind == "ident" and toks[i].text == "str":
        return Param("::std::string::String", borrow, slice_of=True), i + 1
    if _at(toks, i, "["):
        elem, j = _type(toks, i + 1, 1)
        if _at(toks, j, "]"):
            return Param(f"::std::vec::Vec<{elem}>", borrow, slice_of=True), j + 1
    spelled, i = _type(toks, i, 0)
    return Param(spelled, borrow), i


def _type(toks: list[Token], i: int, depth: int) -> tuple[str, int]:
    """A type of the closed set at ``toks[i]``, spelled by its std path; and the index after it."""
    if depth > MAX_NESTING:
        raise Unsupported("a type nested too deeply")
    if _at(toks, i, "::"):  # ::std::...
        i += 1
    if i >= len(toks):
        raise Unsupported("a type cut short")
    t = toks[i]
    if _at(toks, i, "("):
        parts, i = [], i + 1
        while not _at(toks, i, ")"):
            part, i = _type(toks, i, depth + 1)
            parts.append(part)
            if _at(toks, i, ","):
                i += 1
            elif not _at(toks, i, ")"):
                raise Unsupported("a tuple type outside the grammar")
        return ("(" + "".join(f"{p}, " for p in parts) + ")" if len(parts) == 1 else f"({', '.join(parts)})"), i + 1
    if _at(toks, i, "["):
        elem, i = _type(toks, i + 1, depth + 1)
        if not (_at(toks, i, ";") and i + 2 < len(toks) and re.fullmatch(r"[0-9]{1,6}(?:usize)?", toks[i + 1].text)
                and _at(toks, i + 2, "]")):
            raise Unsupported("a slice or array type outside the grammar (an array's length must be a number)")
        return f"[{elem}; {toks[i + 1].text.removesuffix('usize')}]", i + 3
    if t.kind != "ident":
        raise Unsupported(f"the type starting {t.text!r}")
    name, i = _path(toks, i)
    if name in SCALARS:
        return name, i
    if name == "String":
        return "::std::string::String", i
    if name not in GENERICS:
        raise Unsupported(f"the type {name}")
    path, count = GENERICS[name]
    if not _at(toks, i, "<"):
        raise Unsupported(f"{name} without its type arguments")
    args, i = [], i + 1
    while True:
        arg, i = _type(toks, i, depth + 1)
        args.append(arg)
        if _at(toks, i, ","):
            i += 1
            continue
        if _at(toks, i, ">"):
            i += 1
            break
        raise Unsupported(f"{name}'s type arguments outside the grammar")
    if len(args) != count:
        raise Unsupported(f"{name} of {len(args)} types")
    return f"{path}<{', '.join(args)}>", i


def _path(toks: list[Token], i: int) -> tuple[str, int]:
    """A type name, after an optional ``std::``/``::std::`` path that names where std keeps it."""
    segments = [toks[i].text]
    i += 1
    while _at(toks, i, "::") and i + 1 < len(toks) and toks[i + 1].kind == "ident":
        segments.append(toks[i + 1].text)
        i += 2
    name = segments[-1]
    if len(segments) > 1:
        module = "::".join(segments[1:-1])
        if segments[0] not in ("std", "alloc", "core") or module not in STD_PATHS.get(name, ()):
            raise Unsupported(f"the type {'::'.join(segments)}")
    return name, i
