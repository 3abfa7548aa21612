"""The closed set of data types that cross between the two sides, and the functions' signatures made of
them: a type as GCC's DWARF names it, parsed, or refused as ``Unsupported``.

Only these types have a stub, so whatever the program's debug info claims, the tests' side spells every
type itself from this set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_TYPE_NAME = 4000
MAX_NESTING = 24


SCALARS = {  # DWARF base type name -> C++ spelling
    "int": "int", "unsigned int": "unsigned int", "long int": "long", "long unsigned int": "unsigned long",
    "long long int": "long long", "long long unsigned int": "unsigned long long", "short int": "short",
    "short unsigned int": "unsigned short", "char": "char", "signed char": "signed char",
    "unsigned char": "unsigned char", "bool": "bool", "_Bool": "bool", "float": "float", "double": "double",
    "long double": "long double",
}


class Unsupported(Exception):
    """A type (or function) the harness cannot carry across the channel."""


@dataclass(frozen=True)
class Type:
    kind: str  # scalar, string, vector, pair, tuple, map, set, unordered_map, unordered_set; helpers below
    args: tuple[Type, ...] = ()
    name: str = ""  # a scalar's spelling

    def spell(self) -> str:
        if self.kind in ("scalar", "cstring"):
            return self.name
        if self.kind == "string":
            return "std::string"
        if self.kind in CONTAINERS:
            return f"std::{self.kind}<{', '.join(a.spell() for a in self.args)} >"
        raise Unsupported(f"a {self.kind} is not a value")


CONTAINERS = {"vector": 1, "pair": 2, "tuple": -1, "map": 2, "set": 1, "unordered_map": 2, "unordered_set": 1}
# template heads (after std:: and an inline namespace) -> what they are
HEADS = {"vector": "vector", "basic_string": "basic_string", "pair": "pair", "tuple": "tuple", "map": "map",
         "set": "set", "unordered_map": "unordered_map", "unordered_set": "unordered_set",
         "allocator": "allocator", "less": "less", "char_traits": "char_traits", "hash": "hash",
         "equal_to": "equal_to"}
HELPERS = {"allocator", "less", "char_traits", "hash", "equal_to", "basic_string"}


def _split_args(text: str) -> list[str]:
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
            if depth < 0:
                raise Unsupported("unbalanced template arguments")
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise Unsupported("unbalanced template arguments")
    parts.append(text[start:])
    return [p.strip() for p in parts]


def parse_type_name(text: str) -> Type:
    """A type as GCC's DWARF names it (``std::vector<int, std::allocator<int> >``, ``long long int``,
    ``char const``), in the closed set of data types; anything else raises Unsupported."""
    parsed = _parse(text, 0)
    if parsed.kind in HELPERS:
        raise Unsupported(f"the type {text!r}")
    return parsed


def _parse(text: str, depth: int) -> Type:
    if depth > MAX_NESTING or len(text) > MAX_TYPE_NAME:
        raise Unsupported("a type nested too deeply")
    text = " ".join(text.split())
    if text.endswith(" const"):
        text = text[:-6]
    if text.startswith("const "):
        text = text[6:]
    if re.search(r"[^\w:<>, ]", text):
        raise Unsupported(f"the type {text!r}")
    if "<" not in text:
        if text not in SCALARS:
            raise Unsupported(f"the type {text!r}")
        return Type("scalar", name=SCALARS[text])
    if not text.endswith(">"):
        raise Unsupported(f"the type {text!r}")
    head, inner = text[:text.index("<")].strip(), text[text.index("<") + 1:-1]
    match = re.fullmatch(r"std::(?:__cxx11::)?(\w+)", head)
    if match is None or match[1] not in HEADS:
        raise Unsupported(f"the type {head!r}")
    kind = HEADS[match[1]]
    args = tuple(_parse(a, depth + 1) for a in _split_args(inner))
    return _template(kind, args)


def _template(kind: str, args: tuple[Type, ...]) -> Type:
    def helper(t: Type, name: str, *inner: Type) -> bool:
        return t.kind == name and (not inner or t.args == inner)

    if kind in ("allocator", "less", "char_traits", "hash", "equal_to"):
        if len(args) != 1:
            raise Unsupported(f"std::{kind} of {len(args)} types")
        return Type(kind, args)
    if kind == "basic_string":
        char = Type("scalar", name="char")
        if args != (char, Type("char_traits", (char,)), Type("allocator", (char,))):
            raise Unsupported("a basic_string that is not std::string")
        return Type("string")
    values = tuple(a for a in args if a.kind not in HELPERS)
    extras = args[len(values):]
    if any(a.kind in HELPERS for a in values) or len(values) + len(extras) != len(args):
        raise Unsupported(f"std::{kind} with unexpected arguments")
    if kind == "vector":
        ok = len(values) == 1 and len(extras) == 1 and helper(extras[0], "allocator", values[0])
    elif kind == "pair":
        ok = len(values) == 2 and not extras
    elif kind == "tuple":
        ok = len(values) >= 1 and not extras
    elif kind == "map":
        ok = len(values) == 2 and len(extras) == 2 and helper(extras[0], "less", values[0]) \
            and helper(extras[1], "allocator")
    elif kind == "set":
        ok = len(values) == 1 and len(extras) == 2 and helper(extras[0], "less", values[0]) \
            and helper(extras[1], "allocator", values[0])
    elif kind == "unordered_map":
        ok = len(values) == 2 and len(extras) == 3 and helper(extras[0], "hash", values[0]) \
            and helper(extras[1], "equal_to", values[0]) and helper(extras[2], "allocator")
    elif kind == "unordered_set":
        ok = len(values) == 1 and len(extras) == 3 and helper(extras[0], "hash", values[0]) \
            and helper(extras[1], "equal_to", values[0]) and helper(extras[2], "allocator", values[0])
    else:
        ok = False
    if not ok:
        raise Unsupported(f"std::{kind} with unexpected arguments")
    return Type(kind, values)


@dataclass(frozen=True)
class Param:
    type: Type
    mode: str  # value, cref (const T&), ref (T&: the new value comes back), rref (T&&)

    def declare(self, name: str) -> str:
        spelled = self.type.spell()
        return {"value": f"{spelled} {name}", "cref": f"const {spelled}& {name}", "ref": f"{spelled}& {name}",
                "rref": f"{spelled}&& {name}"}[self.mode]


@dataclass(frozen=True)
class Function:
    name: str  # what the tests call
    symbol: str  # what the program's object defines
    returns: Param | None  # None: void; a reference return is sent as its value
    params: tuple[Param, ...]

    def to_json(self) -> list:
        def param(p: Param | None) -> list | None:
            return None if p is None else [_type_json(p.type), p.mode]
        return [self.name, self.symbol, param(self.returns), [param(p) for p in self.params]]

    @staticmethod
    def from_json(data: list) -> Function:
        def param(p: list | None) -> Param | None:
            return None if p is None else Param(_type_from_json(p[0]), p[1])
        return Function(data[0], data[1], param(data[2]), tuple(param(p) for p in data[3]))  # type: ignore[misc]


def _type_json(t: Type) -> list:
    return [t.kind, t.name, [_type_json(a) for a in t.args]]


def _type_from_json(data: list) -> Type:
    return Type(data[0], tuple(_type_from_json(a) for a in data[2]), data[1])
