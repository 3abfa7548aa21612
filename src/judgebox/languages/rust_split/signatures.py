"""A Rust program's top-level functions, read by a strict grammar (no Rust parser runs here).

The program is read as an attacker's text: a lexer that knows Rust's comments (nested), strings (raw,
byte, C), char literals and lifetimes finds the items at the top level; a function there is callable by
the tests only when its signature is in the grammar below, every type of the closed set of data types:

    type   := int | f32 | f64 | bool | char | String | () | (type, ...) | [type; N]
            | Vec<type> | VecDeque<type> | Option<type> | Result<type, type> | HashMap<type, type>
            | HashSet<type> | BTreeMap<type, type> | BTreeSet<type> | Box<dyn Any>
            | '&' [lifetime] str                        (a std:: path before a name is allowed)
            | Name | Name<type, ...>                      (a plain enum or struct of the program)
    param  := ident ':' (type | '&' [lifetime] ['mut'] (type | str | [type] | dyn Any))
    result := type

A ``&str`` inside a type (``Vec<&str>``, ``-> &str``) is spelled ``&'static str``: the tests' side makes
one by leaking the string it decodes (a test process); ``Box<dyn Any>`` and ``&dyn Any`` hold a value of
the closed set that crosses with a tag naming its concrete type (``wire.rs``), rebuilt as that type on the
other side. A function may declare lifetimes (not types); the tests' side spells its references
without them. A ``Name`` or ``Name<type, ...>`` of none of std's names is one of the program's types; it
crosses only when the program defines it at the top level as plain data (``DataType``: an enum or a struct
whose type parameters have no bounds, whose fields are of these types or its parameters): the tests' side
gets a copy of its definition, re-emitted from what was read here with its std derives.

Anything else (type parameters, ``impl``, ``dyn`` but ``dyn Any``, references in results but ``&str``,
other program types, ``async``/``unsafe``/``extern`` functions, methods, patterns as parameters) is a
refusal with its reason. What the grammar says is only what the tests' side spells; if the program's
names mean something else (its own ``type String = i32``), the program's side does not compile (CE),
since it spells every type by its std path.

The reader runs in the judge's process, so it is one pass over the tokens, which are never all held:
of each top-level item only its head (the tokens before its body) is kept, and of an enum or a struct
its whole definition. Bounds, each a refusal with its reason (CE): MAX_SOURCE characters, MAX_TOKENS
tokens (at most a couple of seconds of reading), MAX_HEAD tokens of a function's head or of a type's
definition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from judgebox.languages.rust_split.lexer import Token, Unsupported, tokens
from judgebox.languages.rust_split.types import ANY, STR, after_lifetime, at, dyn_any, read_type

# the reader's own names, and what its callers read with them from the lexer and the type grammar
__all__ = ["ANY", "MAX_HEAD", "MAX_TOKENS", "STR", "DataType", "Function", "Item", "Param", "Reading", "Unsupported",
           "Variant", "program_types", "read", "tokens", "top_level"]

MAX_TOKENS = 1 << 20  # a program's tokens: linear reading, at most a second or two of the judge's CPU
MAX_HEAD = 4096  # tokens of an item kept before its body: a longer signature is refused
STD_CRATES = frozenset(("std", "core", "alloc", "crate", "self", "super"))
DECLARING = frozenset(("mod", "enum", "struct", "trait", "type", "union", "fn", "const", "static", "macro_rules"))


@dataclass(frozen=True)
class Param:
    spelled: str  # the owned type, by its std path
    borrow: str  # "", "&" or "&mut "
    slice_of: bool = False  # &[T] / &str / &dyn Any: the owned value is Vec<T> / String / Box<dyn Any>, passed
    # as what it derefs to


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


@dataclass(frozen=True)
class Variant:
    name: str  # "" for a struct's one
    shape: str  # "unit" (``A``), "tuple" (``A(T, ..)``), "named" (``A { x: T, .. }``)
    fields: tuple[tuple[str, str], ...]  # (name, "" in a tuple; its type, spelled as a function's)


@dataclass(frozen=True)
class DataType:
    """A program's top-level enum or struct that is plain data: type parameters without bounds, fields of
    the closed set, of its parameters or of other plain data types; ``derives`` are its std derives."""

    name: str
    kind: str  # enum, struct
    generics: tuple[str, ...]
    derives: tuple[str, ...]
    variants: tuple[Variant, ...]

    def uses(self) -> set[str]:
        return {name for _, spelled in (f for v in self.variants for f in v.fields) for name in program_types(spelled)}


class Reading(NamedTuple):
    functions: list[Function]
    refused: dict[str, str]
    items: list[Item]
    types: dict[str, DataType]  # the program's plain data types by name


def program_types(spelled: str) -> list[str]:
    """The program-defined types a spelled type names (``crate::Name``)."""
    return re.findall(r"\bcrate::([A-Za-z_][A-Za-z0-9_]*)", spelled)


def top_level(source: str) -> tuple[list[Function], dict[str, str], list[Item]]:
    """``read``'s functions, refused functions and items."""
    functions, refused, items, _ = read(source)
    return functions, refused, items


def read(source: str) -> Reading:
    """The top-level functions of the grammar, the refused ones with why, the items to rewrite and the
    program's plain data types (a function whose types name another program type is refused).

    One pass over the tokens, counting brackets. A top-level item ends at a ``;`` at the top level, or
    at the ``}`` that closes its body; of an item that ends only at ``;`` (a ``use`` tree, a const's or
    static's initializer) a ``}`` back at the top level is not the end. Of each item only its head is
    kept (its tokens before its body, at most MAX_HEAD): all a signature, a ``use`` or a name needs."""
    functions: list[Function] = []
    refused: dict[str, str] = {}
    items: list[Item] = []
    uses: list[tuple[str, int, int]] = []  # (first path segment, start, end) of uses of other crates
    declared: set[str] = set()  # the program's own top-level names (a use of its own module stays)
    depth = 0
    head: list[Token] = []  # the current top-level item's first tokens, up to its body
    in_head = True  # the current item's body has not begun
    whole = False  # the current item is an enum or a struct: its body is kept too (up to MAX_HEAD tokens)
    types: dict[str, DataType] = {}
    not_plain: dict[str, str] = {}  # the program's other enums and structs, with why
    fn: tuple[int, Token] | None = None  # where its `fn` is in its head, and its name
    previous = ""  # the token before, if it was an identifier at the top level

    def signature(fn: tuple[int, Token]) -> None:
        index, name = fn
        if name.text == "main":
            items.append(Item("main", name.start, name.end))
        elif len(head) >= MAX_HEAD:
            refused[name.text] = f"its signature is longer than {MAX_HEAD} tokens"
        else:
            try:
                functions.append(_function(head, index))
            except Unsupported as exc:
                refused[name.text] = str(exc)

    for count, (kind, text, start, end) in enumerate(tokens(source)):
        if count >= MAX_TOKENS:
            raise Unsupported(f"the program has more than {MAX_TOKENS} tokens")
        if (in_head or whole) and len(head) < MAX_HEAD:
            head.append(Token(kind, text, start, end, depth))
        if kind == "ident":
            if depth == 0 and previous:
                if previous in DECLARING:
                    declared.add(text)
                if previous == "fn" and in_head and fn is None:
                    fn = (len(head) - 2, Token(kind, text, start, end))
            previous = text if depth == 0 else ""
            continue
        previous = ""
        if kind != "punct":
            continue
        if text in "([{":
            if depth == 0 and text == "{" and in_head:
                in_head = False
                whole = fn is None and _data_keyword(head) is not None
                if fn is not None:
                    signature(fn)
            depth += 1
        elif text in ")]}":
            depth -= 1
            if depth < 0:
                raise Unsupported("unbalanced brackets")
            if depth == 0 and text == "}" and _ends_at_brace(head):
                if whole:
                    _data_type(head, types, not_plain)
                head, in_head, fn, whole = [], True, None, False
        elif depth == 0 and text == ";":
            if in_head and fn is not None:
                signature(fn)
            if in_head and fn is None and _data_keyword(head) is not None:  # struct A(T); struct A;
                _data_type(head, types, not_plain)
            _foreign_use(head, end, uses)
            head, in_head, fn, whole = [], True, None, False
    if depth:
        raise Unsupported("unbalanced brackets")
    if in_head and fn is not None:  # a signature the program ends in
        signature(fn)
    items += [Item("foreign-use", start, end) for crate, start, end in uses if crate not in declared]
    # a type is plain data when every program type its fields name is (a fixed point)
    changed = True
    while changed:
        changed = False
        for name, data in list(types.items()):
            missing = [used for used in sorted(data.uses()) if used not in types]
            if missing:
                del types[name]
                not_plain[name] = f"its field of the type {missing[0]}, which does not cross"
                changed = True
    kept = []
    for f in functions:
        named = [name for t in (*(p.spelled for p in f.params), f.result) for name in program_types(t)]
        missing = [name for name in named if name not in types]
        if missing:
            why = not_plain.get(missing[0], "it is not a plain enum or struct of the program")
            refused[f.name] = f"the type {missing[0]} ({why})"
        else:
            kept.append(f)
    return Reading(kept, refused, items, types)


DERIVES = frozenset(("Debug", "Clone", "Copy", "PartialEq", "Eq", "PartialOrd", "Ord", "Hash"))


def _data_keyword(head: list[Token]) -> str | None:
    """``enum`` or ``struct`` when the item of this head is one (after its attributes and ``pub``)."""
    words = head
    while words and words[0].text == "#":
        words = words[_after_attribute(words):]
    if words and words[0].text == "pub":
        words = words[1:]
        if words and words[0].text == "(":  # pub(crate)
            words = words[next((k for k, w in enumerate(words) if w.text == ")"), len(words)) + 1:]
    if len(words) >= 2 and words[0].kind == "ident" and words[0].text in ("enum", "struct") and \
            words[1].kind == "ident":
        return words[0].text
    return None


def _data_type(toks: list[Token], types: dict[str, DataType], not_plain: dict[str, str]) -> None:
    """Reads an enum or a struct (its whole tokens) into ``types``, or why it is not plain data into
    ``not_plain``."""
    derives: list[str] = []
    conditional = False
    i = 0
    while at(toks, i, "#"):
        end = _after_attribute(toks[i:]) + i
        words = [t.text for t in toks[i:end]]
        if words[2:4] == ["derive", "("]:
            derives += [w for w in words[4:] if w in DERIVES]
        elif words[2:3] in (["cfg"], ["cfg_attr"]):
            conditional = True
        i = end
    if i < len(toks) and toks[i].text == "pub":
        i += 1
        if at(toks, i, "("):
            while i < len(toks) and not at(toks, i, ")"):
                i += 1
            i += 1
    kind, name = toks[i].text, toks[i + 1].text
    try:
        if conditional:
            raise Unsupported("a cfg attribute: the type may not be there, or have other derives")
        if len(toks) >= MAX_HEAD:
            raise Unsupported(f"its definition is longer than {MAX_HEAD} tokens")
        generics, i = _generics(toks, i + 2)
        if kind == "struct":
            variant, i = _variant_body(toks, i, "", generics)
            variants: tuple[Variant, ...] = (variant,)
            i += at(toks, i, ";")
        else:
            if not at(toks, i, "{"):
                raise Unsupported("a where clause")
            i, found = i + 1, []
            while not at(toks, i, "}"):
                while at(toks, i, "#"):
                    i += _after_attribute(toks[i:])
                if i >= len(toks) or toks[i].kind != "ident":
                    raise Unsupported("a variant outside the grammar")
                variant, i = _variant_body(toks, i + 1, toks[i].text, generics)
                found.append(variant)
                if at(toks, i, ","):
                    i += 1
                elif not at(toks, i, "}"):
                    raise Unsupported("a variant outside the grammar (a discriminant?)")
            variants, i = tuple(found), i + 1
        if i != len(toks):
            raise Unsupported("a where clause")
    except (Unsupported, IndexError) as exc:
        not_plain[name] = str(exc) if isinstance(exc, Unsupported) else "a definition cut short"
        types.pop(name, None)
        return
    if name in types or name in not_plain:
        not_plain[name] = "the program defines it twice"
        types.pop(name, None)
        return
    types[name] = DataType(name, kind, generics, tuple(dict.fromkeys(derives)), variants)


def _generics(toks: list[Token], i: int) -> tuple[tuple[str, ...], int]:
    names: list[str] = []
    if not at(toks, i, "<"):
        return (), i
    i += 1
    while not at(toks, i, ">"):
        if toks[i].kind != "ident" or toks[i].text == "const":
            raise Unsupported("a type parameter that is not a plain name (a lifetime, a const)")
        names.append(toks[i].text)
        i += 1
        if at(toks, i, ","):
            i += 1
        elif not at(toks, i, ">"):
            raise Unsupported("a type parameter with a bound or a default")
    return tuple(names), i + 1


def _variant_body(toks: list[Token], i: int, name: str, generics: tuple[str, ...]) -> tuple[Variant, int]:
    """A variant's (or a struct's) fields at ``toks[i]``: none, ``(T, ..)`` or ``{ x: T, .. }``."""
    def field_type(i: int) -> tuple[str, int]:
        spelled, i = read_type(toks, i, 1)
        # a type parameter of the definition is spelled as itself
        return re.sub(r"\bcrate::([A-Za-z_][A-Za-z0-9_]*)\b(?!<)",
                      lambda m: m[1] if m[1] in generics else m[0], spelled), i

    fields: list[tuple[str, str]] = []
    if at(toks, i, "("):
        i += 1
        while not at(toks, i, ")"):
            if toks[i].text == "pub":
                i += 1
            spelled, i = field_type(i)
            fields.append(("", spelled))
            if at(toks, i, ","):
                i += 1
            elif not at(toks, i, ")"):
                raise Unsupported("a field outside the grammar")
        return Variant(name, "tuple", tuple(fields)), i + 1
    if at(toks, i, "{"):
        i += 1
        while not at(toks, i, "}"):
            while at(toks, i, "#"):
                i += _after_attribute(toks[i:])
            if toks[i].text == "pub":
                i += 1
            if toks[i].kind != "ident" or not at(toks, i + 1, ":"):
                raise Unsupported("a field outside the grammar")
            field, (spelled, i) = toks[i].text, field_type(i + 2)
            fields.append((field, spelled))
            if at(toks, i, ","):
                i += 1
            elif not at(toks, i, "}"):
                raise Unsupported("a field outside the grammar")
        return Variant(name, "named", tuple(fields)), i + 1
    return Variant(name, "unit", ()), i


def _ends_at_brace(head: list[Token]) -> bool:
    """Whether a ``}`` back at the top level ends the item of this head: it does for an item with a body
    (fn, mod, impl, struct, enum, trait, an extern block, a macro's definition or call); not for one that
    ends at ``;`` only (use, const, static, type, extern crate), whose braces are a use tree or a value."""
    words = [t.text for t in head if t.depth == 0 and t.kind == "ident"]
    for k, word in enumerate(words):
        if word in ("pub", "unsafe", "async", "default", "extern", "safe") or \
                (word == "const" and words[k + 1:k + 2] in (["fn"], ["unsafe"], ["async"], ["extern"])):
            continue  # a qualifier; the word after decides
        return word not in ("use", "const", "static", "type", "crate")
    return True


def _foreign_use(head: list[Token], end: int, uses: list[tuple[str, int, int]]) -> None:
    words = [t for t in head if not (t.kind == "ident" and t.text == "pub")]
    while words and words[0].text == "#":  # attributes before the item
        words = words[_after_attribute(words):]
    if len(words) >= 2 and words[0].text == "use":
        crate = words[2].text if words[1].text == "::" and len(words) > 2 else words[1].text
    elif len(words) >= 3 and words[0].text == "extern" and words[1].text == "crate":
        crate = words[2].text
    else:
        return
    if crate not in STD_CRATES and crate != "{":
        uses.append((crate, head[0].start, end))


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


def _function(toks: list[Token], fn: int) -> Function:
    """The function whose head is ``toks``, its ``fn`` at ``fn``."""
    qualifiers = [t.text for t in toks[:fn] if t.kind == "ident" and t.depth == 0]
    for word in ("async", "unsafe", "extern"):
        if word in qualifiers:
            raise Unsupported(f"it is {word}")
    name = toks[fn + 1].text
    i = fn + 2
    if at(toks, i, "<"):  # lifetimes only: the tests' side spells its references without them
        i += 1
        while i < len(toks) and toks[i].kind == "lifetime":
            i += 1
            if at(toks, i, ","):
                i += 1
        if not at(toks, i, ">"):
            raise Unsupported("it is generic (over types, or a lifetime with a bound)")
        i += 1
    if not at(toks, i, "("):
        raise Unsupported("it has no parameter list")
    i += 1
    params = []
    while not at(toks, i, ")"):
        param, i = _param(toks, i)
        params.append(param)
        if at(toks, i, ","):
            i += 1
        elif not at(toks, i, ")"):
            raise Unsupported("a parameter outside the grammar")
    i += 1
    result = "()"
    if at(toks, i, "->"):
        after = after_lifetime(toks, i + 2) if at(toks, i + 1, "&") else i + 1
        if after != i + 1 and not (after < len(toks) and toks[after].kind == "ident" and toks[after].text == "str"):
            raise Unsupported("it returns a reference other than &str")
        result, i = read_type(toks, i + 1, 0)
    if not at(toks, i, "{"):
        raise Unsupported("a where clause, or no body")
    return Function(name, tuple(params), result)


def _param(toks: list[Token], i: int) -> tuple[Param, int]:
    if i < len(toks) and toks[i].text == "mut" and toks[i].kind == "ident":
        i += 1
    if i >= len(toks) or toks[i].kind != "ident" or toks[i].text in ("self", "mut"):
        raise Unsupported("a parameter that is not a plain name (a pattern, or self)")
    if not at(toks, i + 1, ":"):
        raise Unsupported("a parameter without a type")
    i += 2
    if not at(toks, i, "&"):
        spelled, i = read_type(toks, i, 0)
        return Param(spelled, ""), i
    i = after_lifetime(toks, i + 1)
    borrow = "&"
    if i < len(toks) and toks[i].kind == "ident" and toks[i].text == "mut":
        borrow, i = "&mut ", i + 1
    if i < len(toks) and toks[i].kind == "ident" and toks[i].text == "str":
        return Param("::std::string::String", borrow, slice_of=True), i + 1
    if i < len(toks) and toks[i].kind == "ident" and toks[i].text == "dyn":
        return Param(ANY, borrow, slice_of=True), dyn_any(toks, i)
    if at(toks, i, "["):
        elem, j = read_type(toks, i + 1, 1)
        if at(toks, j, "]"):
            return Param(f"::std::vec::Vec<{elem}>", borrow, slice_of=True), j + 1
    spelled, i = read_type(toks, i, 0)
    return Param(spelled, borrow), i
