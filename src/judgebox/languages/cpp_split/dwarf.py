"""Reading the program's functions from the DWARF of its object, as ``readelf --debug-dump=info`` prints
it: each global function's name, symbol, return and parameter types.

The dump is the program's (a program can shape its own debug info), so it is parsed as an attacker's
text: chains of references are bounded and every type is checked against the closed set in ``signatures``. A
lie about a signature only changes what the program's own process does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from judgebox.languages.cpp_split.signatures import SCALARS, Function, Param, Type, Unsupported, parse_type_name

MAX_FUNCTIONS = 500
MAX_CHAIN = 8  # DW_AT_specification / DW_AT_abstract_origin links followed

DUMP_FILTER = (r"^ *<[0-9a-f]+><[0-9a-f]+>: Abbrev Number: [0-9]+ \(|"
               r"DW_AT_(name|type|linkage_name|MIPS_linkage_name|external|declaration|specification|"
               r"abstract_origin|low_pc|ranges) *:")
_DIE = re.compile(r"^\s*<(\d+)><([0-9a-f]+)>: Abbrev Number: \d+ \((DW_TAG_\w+)\)")
_ATTR = re.compile(r"^\s*<[0-9a-f]+>\s+(DW_AT_\w+)\s*:\s?(.*)$")
_REF = re.compile(r"<0x([0-9a-f]+)>")
_STRING = re.compile(r"^\((?:indirect|indexed)[^)]*\):\s?")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SYMBOL = re.compile(r"[A-Za-z_.$][A-Za-z0-9_.$]*")


@dataclass
class _Die:
    offset: int
    depth: int
    tag: str
    parent: _Die | None
    attrs: dict[str, str]
    children: list[_Die]

    def name(self) -> str | None:
        value = self.attrs.get("DW_AT_name")
        return None if value is None else _STRING.sub("", value, count=1).strip()

    def ref(self, attr: str) -> int | None:
        value = self.attrs.get(attr)
        match = _REF.search(value) if value else None
        return int(match[1], 16) if match else None


def _dies(dump: str) -> tuple[dict[int, _Die], list[_Die]]:
    by_offset: dict[int, _Die] = {}
    stack: list[_Die] = []
    roots: list[_Die] = []
    current: _Die | None = None
    for line in dump.splitlines():
        match = _DIE.match(line)
        if match:
            depth = int(match[1])
            while stack and stack[-1].depth >= depth:
                stack.pop()
            parent = stack[-1] if stack else None
            current = _Die(int(match[2], 16), depth, match[3], parent, {}, [])
            by_offset.setdefault(current.offset, current)
            (parent.children if parent else roots).append(current)
            stack.append(current)
            continue
        match = _ATTR.match(line)
        if match and current is not None:
            current.attrs.setdefault(match[1], match[2])
    return by_offset, roots


class _Everything(set):
    def __contains__(self, item: object) -> bool:
        return True


class _Types:
    def __init__(self, dies: dict[int, _Die], c: bool) -> None:
        self.dies = dies
        self.c = c  # C: char* and const char* are strings

    def die(self, offset: int | None) -> _Die:
        if offset is None or offset not in self.dies:
            raise Unsupported("a type the dump does not describe")
        return self.dies[offset]

    def param(self, offset: int | None) -> Param:
        """A parameter's or return value's type, reference and constness included."""
        die = self.die(offset)
        for _ in range(MAX_CHAIN):  # typedefs of references
            if die.tag != "DW_TAG_typedef":
                break
            die = self.die(die.ref("DW_AT_type"))
        if die.tag in ("DW_TAG_reference_type", "DW_TAG_rvalue_reference_type"):
            const, inner = self._unqualified(die.ref("DW_AT_type"))
            mode = "rref" if die.tag == "DW_TAG_rvalue_reference_type" else "cref" if const else "ref"
            return Param(self.value(inner.offset), mode)
        if self.c and die.tag == "DW_TAG_pointer_type":
            const, inner = self._unqualified(die.ref("DW_AT_type"))
            if inner.tag == "DW_TAG_base_type" and inner.name() == "char":
                return Param(Type("cstring", name="const char*" if const else "char*"), "value")
        return Param(self.value(die.offset), "value")

    def _unqualified(self, offset: int | None) -> tuple[bool, _Die]:
        const, die = False, self.die(offset)
        for _ in range(MAX_CHAIN * 4):
            if die.tag == "DW_TAG_const_type":
                const = True
            elif die.tag != "DW_TAG_typedef":
                return const, die
            die = self.die(die.ref("DW_AT_type"))
        raise Unsupported("a chain of typedefs too long")

    def value(self, offset: int | None) -> Type:
        _, die = self._unqualified(offset)
        if die.tag == "DW_TAG_base_type":
            name = " ".join((die.name() or "").split())
            if name not in SCALARS:
                raise Unsupported(f"the type {name!r}")
            return Type("scalar", name=SCALARS[name])
        if die.tag in ("DW_TAG_class_type", "DW_TAG_structure_type"):
            return parse_type_name(self._qualified(die))
        raise Unsupported(f"a {die.tag.removeprefix('DW_TAG_').replace('_', ' ')}")

    @staticmethod
    def _qualified(die: _Die) -> str:
        parts = [die.name() or ""]
        parent = die.parent
        while parent is not None and parent.tag != "DW_TAG_compile_unit":
            if parent.tag != "DW_TAG_namespace" or not parent.name():
                raise Unsupported("a type nested in a class or an anonymous namespace")
            parts.append(parent.name() or "")
            parent = parent.parent
        return "::".join(reversed(parts))


def functions(dump: str, wanted: set[str] | None = None, c: bool = False) -> tuple[list[Function], dict[str, str]]:
    """The program's global functions (named in ``wanted``, if given) that the harness can call, and why
    the others cannot be called (name -> reason). ``c``: the program is C."""
    if wanted is None:
        wanted = _Everything()
    dies, roots = _dies(dump)
    types = _Types(dies, c)
    found: dict[str, list[Function]] = {}
    refused: dict[str, str] = {}
    units = [d for d in roots if d.tag == "DW_TAG_compile_unit"]
    for unit in units:
        for die in unit.children:
            if die.tag != "DW_TAG_subprogram":
                continue
            if not ({"DW_AT_low_pc", "DW_AT_ranges"} & die.attrs.keys()):
                if die.name() in wanted and not {"DW_AT_external", "DW_AT_declaration"} & die.attrs.keys():
                    refused.setdefault(die.name() or "", "it is static (not visible outside the program's file)")
                continue
            chain = [die]
            while len(chain) < MAX_CHAIN:
                origin = chain[-1].ref("DW_AT_specification") or chain[-1].ref("DW_AT_abstract_origin")
                if origin is None or origin not in dies:
                    break
                chain.append(dies[origin])
            name = next((d.name() for d in chain if d.name()), None)
            if name is None or name not in wanted or name == "main" or not IDENTIFIER.fullmatch(name):
                continue
            if not any("DW_AT_external" in d.attrs for d in chain):
                refused[name] = "it is static (not visible outside the program's file)"
                continue
            if any(d.parent is not unit for d in chain):
                refused.setdefault(name, "it is not at global scope")
                continue
            symbol = next((_STRING.sub("", d.attrs[a], count=1).strip() for d in chain
                           for a in ("DW_AT_linkage_name", "DW_AT_MIPS_linkage_name") if a in d.attrs), name)
            if not SYMBOL.fullmatch(symbol):
                refused[name] = "its symbol name is not a plain one"
                continue
            root = chain[-1]
            try:
                if any(c.tag == "DW_TAG_unspecified_parameters" for c in root.children):
                    raise Unsupported("a variable argument list")
                returns = None
                typed = next((d for d in chain if "DW_AT_type" in d.attrs), None)
                if typed is not None:
                    returns = types.param(typed.ref("DW_AT_type"))
                params = tuple(types.param(c.ref("DW_AT_type")) for c in root.children
                               if c.tag == "DW_TAG_formal_parameter")
            except Unsupported as exc:
                refused[name] = f"it takes or returns {exc}"
                continue
            found.setdefault(name, []).append(Function(name, symbol, returns, params))
    result = []
    for name, defined in sorted(found.items()):
        if len({f.symbol for f in defined}) > 1:
            refused[name] = "it is overloaded"
            continue
        refused.pop(name, None)
        result.append(defined[0])
    if len(result) > MAX_FUNCTIONS:
        raise Unsupported(f"more than {MAX_FUNCTIONS} functions")
    return result, refused
