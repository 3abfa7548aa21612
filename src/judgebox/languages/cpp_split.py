"""C and C++ assert cases (the HumanEval-X form) with the program and the tests in two processes.

In one binary a program can copy the pass token from fd 4 into fd 3 itself, redefine what ``assert``
expands to, define ``__assert_fail``, or overload ``operator==`` for the tests' types. Here the tests never
share a translation unit, a binary or a process with the program:

1. **Signatures.** The program is compiled alone (``-O2 -g -c``, in the sandbox) and the DWARF of that
   object, dumped by ``readelf`` in the same sandboxed run, gives each of its global functions' name,
   symbol, return and parameter types. Only data types cross: integers, floating point, bool, char,
   ``std::string``, ``std::vector``, ``std::pair``, ``std::tuple``, ``std::map``/``set`` and their
   unordered kinds, by value or by reference. A function of any other type gets no stub (the tests that
   call it do not compile: CE). The dump is the program's (a program can shape its own debug info), so it
   is parsed as an attacker's text: a lie about a signature only changes what the program's own process
   does, since the tests' side spells every type itself from that closed set.
2. **The program's side** (S): the program's object (its ``main``, if any, renamed away, its debug info
   stripped) linked with a generated dispatcher that reads calls from the channel (fd 7), decodes the
   arguments by type, calls the function through its symbol and sends back the result as data (an
   exception: its ``what()``, which fails the call in the tests).
3. **The tests' side** (T): the tests, in a translation unit of their own after ``bits/stdc++.h``,
   ``using namespace std;`` and a generated stub per function the tests name (same signature, forwarding
   over the channel; in a namespace of its own, brought in by a using-declaration, so a stub can overload
   the standard library's names as the program's function would, but never define one of them: a
   program's ``double fabs(double)`` is a compile error there, not libc's fabs), so no macro,
   ``operator==`` or ``__assert_fail`` of the program reaches the tests; the tests' ``main`` is renamed
   in their object and ``harnesses/cpp/tests_main.c`` calls it and writes the pass (``asserts`` and the
   token) only after it returned; it also makes T non-dumpable. A failed ``assert`` writes
   ``assertion-failed`` (WA). T reads every reply with bounds checks; a malformed reply, a program that
   ended, crashed or threw is a failure (exit 1: RE), never a pass.

Both sides are static and -O2, with the precompiled ``bits/stdc++.h``. Everything is cached by content:
the program's object and functions and S by the program; the dispatcher's object by the functions'
signatures and T by the stubs and the tests, so the programs of a GRPO group (same signatures) share
those, and each further program costs its own compile and a link.

C programs (``c``) take the same path: S is the same C++ dispatcher around the C object; T is the C tests
with static C stubs (``harnesses/cpp/judgebox_split.h``). C's values are its scalars and ``char*`` /
``const char*`` strings (a ``char*`` argument gets the program's changes back, at most its own length).
A C function named like one of libc's gets no stub: in the tests' static binary the stub would define
libc's function for the tests' own calls too.

Known differences from one binary: arguments cross by value (a non-const reference argument gets the
program's new value back; pointers and arrays are not supported), default arguments, overloads,
templates, ``static``/``inline`` functions and program-defined types or globals used by the tests are not
available to the tests (CE), and the program's exceptions cannot be caught by the tests.
"""

from __future__ import annotations

import base64
import contextvars
import functools
import json
import os
import re
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..sandbox.config import RUN_ENV
from ..sandbox.outcome import RunOutcome
from ..sandbox.slot import Command, SplitCommand
from . import pch
from .artifacts import Artifact, Build
from .build import COMPILE_LIMITS, failed_build
from .split import SplitBuild, Toolbox

HARNESS = Path(__file__).with_name("harnesses") / "cpp"
HEADER = "judgebox_split.hpp"
C_HEADER = "judgebox_split.h"
TESTS_MAIN = "tests_main.c"
PROGRAM_PATH = "/proc/self/fd/5"
TESTS_PATH = "/proc/self/fd/6"
WORKDIR = "/tmp"
MAX_DUMP_BYTES = 16 << 20  # of the filtered DWARF dump brought back from the sandbox (a program's ~1 MiB)
MAX_FUNCTIONS = 500
MAX_TYPE_NAME = 4000
MAX_NESTING = 24
MAX_CHAIN = 8  # DW_AT_specification / DW_AT_abstract_origin links followed


@functools.cache
def _read(name: str) -> str:
    return (HARNESS / name).read_text(encoding="utf-8")


# -- types ------------------------------------------------------------------------------------------------

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


# -- the DWARF dump ---------------------------------------------------------------------------------------

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
                origin = next((d for d in chain if "DW_AT_type" in d.attrs), None)
                if origin is not None:
                    returns = types.param(origin.ref("DW_AT_type"))
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


# -- generated code ---------------------------------------------------------------------------------------

def program_side_source(funcs: list[Function]) -> str:
    """S: the dispatcher linked with the program's object."""
    out = ["#include <bits/stdc++.h>", f'#include "{HEADER}"', ""]
    for i, f in enumerate(funcs):
        ret = "void" if f.returns is None else _returned(f.returns)
        params = ", ".join(p.declare("") .rstrip() for p in f.params)
        out.append(f'extern {ret} judgebox_function_{i}({params}) __asm__("{f.symbol}");')
        out.append(f"static void judgebox_call_{i}(judgebox::Reader& r, judgebox::Writer& w) {{")
        args = []
        for k, p in enumerate(f.params):
            if p.type.kind == "cstring":
                out.append(f"    std::string a{k}; bool a{k}_present = judgebox::getCString(r, a{k});")
                args.append(f"(a{k}_present ? &a{k}[0] : nullptr)")
            else:
                out.append(f"    {p.type.spell()} a{k};")
                out.append(f"    judgebox::get(r, a{k});")
                args.append(f"std::move(a{k})" if p.mode == "rref" else f"a{k}")
        out.append("    r.finish();")
        call = f"judgebox_function_{i}({', '.join(args)})"
        if f.returns is None:
            out.append(f"    {call};")
        elif f.returns.type.kind == "cstring":
            out.append(f"    judgebox::putCString(w, {call});")
        else:
            out.append(f"    auto&& v = {call};")
            out.append(f"    judgebox::put<{f.returns.type.spell()}>(w, v);")
        for k, p in enumerate(f.params):
            if p.mode == "ref":
                out.append(f"    judgebox::put<{p.type.spell()}>(w, a{k});")
            elif p.type.name == "char*":  # a C program may change the string it was given
                out.append(f"    judgebox::putCString(w, a{k}_present ? a{k}.c_str() : nullptr);")
        out.append("}")
    handlers = ", ".join(f"judgebox_call_{i}" for i in range(len(funcs))) or "0"
    out.append(f"static const judgebox::Handler judgebox_handlers[] = {{{handlers}}};")
    out.append(f"int main() {{ judgebox::serve(judgebox_handlers, {len(funcs)}); }}")
    return "\n".join(out) + "\n"


def _returned(p: Param) -> str:
    spelled = p.type.spell()
    return {"value": spelled, "cref": f"const {spelled}&", "ref": f"{spelled}&", "rref": f"{spelled}&&"}[p.mode]


def stubs(funcs: list[tuple[int, Function]]) -> str:
    """T: one stub per function, with its signature, forwarding the call to S."""
    out = ["#include <bits/stdc++.h>", f'#include "{HEADER}"', "using namespace std;", "namespace judgebox_program {"]
    for i, f in funcs:
        ret = "void" if f.returns is None else f.returns.type.spell()
        params = ", ".join(p.declare(f"a{k}") for k, p in enumerate(f.params))
        out.append(f"{ret} {f.name}({params}) {{")
        out.append("    try {")
        out.append(f"        ::judgebox::Writer w; w.u32({i});")
        for k, p in enumerate(f.params):
            out.append(f"        ::judgebox::put<{p.type.spell()}>(w, a{k});")
        out.append("        ::std::string reply;")
        out.append("        ::judgebox::Reader r = ::judgebox::call(w, reply);")
        if f.returns is not None:
            out.append(f"        {ret} v;")
            out.append("        ::judgebox::get(r, v);")
        for k, p in enumerate(f.params):
            if p.mode == "ref":
                out.append(f"        ::judgebox::get(r, a{k});")
        out.append("        r.finish();")
        if f.returns is not None:
            out.append("        return v;")
        out.append("    } catch (const ::judgebox::Malformed& e) {")
        out.append("        ::judgebox::testsFail(e.what);")
        out.append("    } catch (...) {")
        out.append('        ::judgebox::testsFail("the program\'s reply could not be read");')
        out.append("    }")
        out.append("}")
    out.append("}  // namespace judgebox_program")
    # Brought in by using-declarations, the stubs overload what the tests see of the standard library as the
    # program's functions would in one file, but never become the definition of one of its functions (a
    # program's ``double fabs(double)`` would otherwise define libc's fabs in the tests' binary): a stub
    # with the signature of a function already declared is an error, so is a name the tests define again.
    out.extend(f"using judgebox_program::{f.name};" for _, f in funcs)
    return "\n".join(out) + "\n"


C_PRELUDE = ("assert.h", "ctype.h", "errno.h", "float.h", "inttypes.h", "limits.h", "math.h", "stdarg.h",
             "stdbool.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h", "string.h", "time.h")


def c_stubs(funcs: list[tuple[int, Function]]) -> str:
    """T for C tests: the standard headers the tests may rely on, then one static stub per function. A
    static definition after a header's declaration of the same name is an error, so a program function
    named like one of libc's (``fabs``) never stands in for it in the tests (see also ``_libc``)."""
    out = [f"#include <{h}>" for h in C_PRELUDE] + ['#include "judgebox_split.h"']
    for i, f in funcs:
        ret = "void" if f.returns is None else f.returns.type.spell()
        params = ", ".join(p.declare(f"a{k}") for k, p in enumerate(f.params)) or "void"
        out.append(f"static {ret} {f.name}({params}) {{")
        out.append("    judgebox_writer w = {0, 0, 0};")
        out.append("    judgebox_reader r;")
        if f.returns is not None:
            out.append(f"    {ret} v;")
        out.append(f"    judgebox_u32(&w, {i});")
        for k, p in enumerate(f.params):
            out.append(f"    {_c_put(p.type, f'a{k}')};")
        out.append("    r = judgebox_call(&w);")
        if f.returns is not None:
            out.append(f"    {_c_get(f.returns.type, 'v')};")
        for k, p in enumerate(f.params):
            if p.type.name == "char*":
                out.append(f"    judgebox_get_back(&r, a{k});")
        out.append("    judgebox_finish(&r);")
        if f.returns is not None:
            out.append("    return v;")
        out.append("}")
    return "\n".join(out) + "\n"


def _c_put(t: Type, name: str) -> str:
    if t.kind == "cstring":
        return f"judgebox_put_cstring(&w, {name})"
    if t.name == "bool":
        return f"judgebox_put_bool(&w, {name})"
    return f"judgebox_raw(&w, &{name}, sizeof {name})"


def _c_get(t: Type, name: str) -> str:
    if t.kind == "cstring":
        return f"{name} = judgebox_get_cstring(&r)"
    if t.name == "bool":
        return f"{name} = judgebox_get_bool(&r)"
    return f"judgebox_get_raw(&r, &{name}, sizeof {name})"


def tests_source(funcs: list[tuple[int, Function]], tests: str, c: bool = False) -> str:
    return f'{c_stubs(funcs) if c else stubs(funcs)}#line 1 "tests"\n{tests}\n'


_libc_lock = threading.Lock()
_libc_names: frozenset[str] | None = None


def _libc() -> frozenset[str]:
    """Every function libc.a and libm.a define (read once, from the system's own files): a C program's
    function of such a name gets no stub, since in the tests' static binary the stub would be the
    definition of libc's function, for the tests' own calls of it too, whichever header declared it."""
    global _libc_names
    with _libc_lock:
        if _libc_names is None:
            names: set[str] = set()
            for library in ("libc.a", "libm.a"):
                try:
                    path = subprocess.run(["/usr/bin/gcc", f"-print-file-name={library}"], capture_output=True,
                                          text=True, timeout=30, check=True).stdout.strip()
                    with open(path, "rb") as f:
                        head = f.read(4096)
                    # libm.a may be a linker script: GROUP ( .../libm-2.36.a .../libmvec.a )
                    paths = ([path] if head.startswith(b"!<arch>")
                             else re.findall(r"(/\S+\.a)\b", head.decode("latin-1")))
                    listing = subprocess.run(["/usr/bin/nm", "-g", "--defined-only", *paths], capture_output=True,
                                             text=True, timeout=120).stdout
                except (OSError, subprocess.SubprocessError):
                    continue
                names.update(m[1] for m in re.finditer(r"^[0-9a-f]* *[TWi] (\w+)$", listing, re.M))
            _libc_names = frozenset(names)
        return _libc_names


# -- builds -----------------------------------------------------------------------------------------------

CPP = "/usr/bin/g++"
C_DISPATCHER_PCH = ("-std=c++17", "-O2", "-DONLINE_JUDGE")  # a C program's side: the dispatcher is C++


@dataclass(frozen=True)
class Toolchain:
    language: str  # the spec's name
    compiler: str  # /usr/bin/g++, /usr/bin/gcc
    standard: str  # -std=c++17
    pch_flags: tuple[str, ...]  # the flags of the precompiled header of S's and T's sources (C++)
    source: str = "main.cpp"

    @property
    def c(self) -> bool:
        return self.language == "c"

    @property
    def flags(self) -> str:  # as the language's own compile has them
        return f"{self.standard} -O2" if self.c else f"{self.standard} -O2 -DONLINE_JUDGE"

    @property
    def dispatcher_pch(self) -> tuple[str, ...]:
        return C_DISPATCHER_PCH if self.c else self.pch_flags

    @property
    def dispatcher_flags(self) -> str:
        return " ".join(self.dispatcher_pch)


_parallel = ThreadPoolExecutor(4, thread_name_prefix="judgebox-cpp-split")  # S builds beside T's


def _b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def _pch(toolbox: Toolbox, flags: tuple[str, ...]) -> str:
    folder = pch.include_dir(toolbox.toolchain_cache, flags) if flags else None
    return f"-I {folder} " if folder else ""


def _message(outcome: RunOutcome, what: str) -> str:
    return failed_build(outcome, COMPILE_LIMITS, what=what).compile_error or ""


def _run(toolbox: Toolbox, script: str, files: dict[str, str], fetch: tuple[str, ...]):
    job = Command(("/bin/sh", "-c", script), dict(RUN_ENV))
    return toolbox.submit(job, b"", COMPILE_LIMITS, files, fetch).result()


def _signatures(toolbox: Toolbox, chain: Toolchain, program: str) -> Build:
    """Job A: the program's object and its DWARF; the artifact is JSON: the object and the functions."""
    g_pch = _pch(toolbox, (*chain.pch_flags, "-g")) if "bits/stdc++.h" in program else ""
    script = (f"cd {WORKDIR} && {chain.compiler} {g_pch}{chain.flags} -g -c {chain.source} -o main.o"
              f" && {{ readelf --debug-dump=info main.o > dump.txt; }}"
              f" && {{ grep -E '{DUMP_FILTER}' dump.txt | head -c {MAX_DUMP_BYTES} > info.txt; rm -f dump.txt; }}"
              " && objcopy --strip-debug --redefine-sym main=judgebox_program_main main.o")
    outcome = _run(toolbox, script, {chain.source: _b64(program.encode("utf-8", "surrogateescape"))},
                   ("main.o", "info.txt"))
    if outcome.system_error is not None:
        return Build(system_error=f"compiling failed in the sandbox: {outcome.system_error}")
    obj, info = outcome.files.get("main.o"), outcome.files.get("info.txt")
    if not outcome.clean_exit or obj is None or info is None:
        return Build(compile_error=_message(outcome, "compilation"), compile_time=outcome.cpu_time)
    try:
        funcs, refused = functions(base64.b64decode(info).decode("utf-8", "replace"), None, chain.c)
    except (Unsupported, ValueError, RecursionError) as exc:
        return Build(compile_error=f"the assert harness could not read the program's functions: {exc}",
                     compile_time=outcome.cpu_time)
    if chain.c:
        libc = _libc()
        refused.update({f.name: "libc has a function of that name" for f in funcs if f.name in libc})
        funcs = [f for f in funcs if f.name not in libc]
    data = json.dumps({"object": obj, "functions": [f.to_json() for f in funcs], "refused": refused}).encode()
    return Build(Artifact(data, "cpp-split-object"), compile_time=outcome.cpu_time)


_listings: OrderedDict[str, tuple[list[Function], dict[str, str]]] = OrderedDict()  # program key -> its
_listings_lock = threading.Lock()  # functions, parsed (a case of a built program reads no JSON)
MAX_LISTINGS = 4096


def _listing(key: str, built: Build) -> tuple[list[Function], dict[str, str]]:
    with _listings_lock:
        if key in _listings:
            _listings.move_to_end(key)
            return _listings[key]
    assert built.artifact is not None
    produced = json.loads(_contents(built.artifact))
    listing = [Function.from_json(f) for f in produced["functions"]], produced["refused"]
    with _listings_lock:
        _listings[key] = listing
        while len(_listings) > MAX_LISTINGS:
            _listings.popitem(last=False)
    return listing


def _dispatcher(toolbox: Toolbox, chain: Toolchain, funcs: list[Function]) -> Build:
    """The dispatcher's object: it depends only on the functions' names, symbols and types, so the programs
    of one problem (a GRPO group) share it and each of them costs only a link."""
    script = (f"cd {WORKDIR} && {CPP} {_pch(toolbox, chain.dispatcher_pch)}{chain.dispatcher_flags}"
              " -c judgebox_program.cpp -o dispatcher.o")
    files = {"judgebox_program.cpp": _b64(program_side_source(funcs)), HEADER: _b64(_read(HEADER))}
    outcome = _run(toolbox, script, files, ("dispatcher.o",))
    if outcome.system_error is not None:
        return Build(system_error=f"compiling failed in the sandbox: {outcome.system_error}")
    made = outcome.files.get("dispatcher.o")
    if outcome.clean_exit and made is not None:
        return Build(Artifact(base64.b64decode(made), "cpp-split-dispatcher"), compile_time=outcome.cpu_time)
    return Build(compile_error="the assert harness could not be built for the program's functions:\n"
                 + _message(outcome, "compiling"), compile_time=outcome.cpu_time)


def _program_side(toolbox: Toolbox, chain: Toolchain, obj: str, funcs: list[Function]) -> Build:
    """Job B: S, the program's object linked with the dispatcher."""
    cache = toolbox.cache
    listing = json.dumps([f.to_json() for f in funcs])
    key = cache.key("cpp-split-dispatcher", chain.language, chain.dispatcher_flags, listing, _read(HEADER))
    dispatcher = cache.get_or_build(key, lambda: _dispatcher(toolbox, chain, funcs))
    if dispatcher.artifact is None:
        return dispatcher
    script = f"cd {WORKDIR} && {CPP} dispatcher.o main.o -static -s -o program -lm"
    files = {"dispatcher.o": _b64(_contents(dispatcher.artifact)), "main.o": obj}
    outcome = _run(toolbox, script, files, ("program",))
    if outcome.system_error is not None:
        return Build(system_error=f"linking failed in the sandbox: {outcome.system_error}")
    made = outcome.files.get("program")
    if outcome.clean_exit and made is not None:
        return Build(Artifact(base64.b64decode(made), chain.language), compile_time=outcome.cpu_time)
    return Build(compile_error="linking the program with the assert harness failed:\n"
                 + _message(outcome, "linking"), compile_time=outcome.cpu_time)


def _tests_side(toolbox: Toolbox, chain: Toolchain, source: str) -> Build:
    """Job C: T, the tests with the stubs, their main renamed, and the harness's main."""
    pch_include = "" if chain.c else _pch(toolbox, chain.pch_flags)
    tests_file = "judgebox_tests.c" if chain.c else "judgebox_tests.cpp"
    script = (f"cd {WORKDIR} && {chain.compiler} {pch_include}{chain.flags} -c {tests_file} -o tests.o"
              " && objcopy --redefine-sym main=judgebox_tests_main tests.o"
              f" && /usr/bin/gcc -O2 -c {TESTS_MAIN} -o tests_main.o"
              f" && {chain.compiler} tests.o tests_main.o -static -s -o tests -lm")
    header = C_HEADER if chain.c else HEADER
    files = {tests_file: _b64(source), header: _b64(_read(header)), TESTS_MAIN: _b64(_read(TESTS_MAIN))}
    outcome = _run(toolbox, script, files, ("tests",))
    if outcome.system_error is not None:
        return Build(system_error=f"compiling the tests failed in the sandbox: {outcome.system_error}")
    made = outcome.files.get("tests")
    if outcome.clean_exit and made is not None:
        return Build(Artifact(base64.b64decode(made), "cpp-split-tests"), compile_time=outcome.cpu_time)
    return Build(compile_error="the tests do not compile against the program's functions:\n"
                 + _message(outcome, "compiling the tests"), compile_time=outcome.cpu_time)


def _contents(artifact: Artifact) -> bytes:
    return os.pread(artifact.fd, artifact.size, 0)


def wanted_names(tests: str) -> set[str]:
    return set(IDENTIFIER.findall(tests))


def split_asserts(chain: Toolchain, toolbox: Toolbox, program: str, tests: str) -> SplitBuild:
    cache = toolbox.cache
    program_key = cache.key("cpp-split-object", chain.language, chain.compiler, chain.flags, program)
    built = cache.get_or_build(program_key, lambda: _signatures(toolbox, chain, program))
    if built.artifact is None:
        return SplitBuild(compile_error=built.compile_error, system_error=built.system_error)
    every, refusals = _listing(program_key, built)
    # S serves every function it can (one build per program, whatever the tests); T has stubs for those the
    # tests name, each calling S's function by its index in S's table
    wanted = wanted_names(tests)
    called = [(index, f) for index, f in enumerate(every) if f.name in wanted]
    refused = {name: why for name, why in refusals.items() if name in wanted}
    side_key = cache.key("cpp-split-program", chain.language, chain.compiler, chain.flags, program, _read(HEADER))

    def program_side() -> Build:
        obj = json.loads(_contents(built.artifact))["object"]
        return _program_side(toolbox, chain, obj, every)

    program_future = _parallel.submit(contextvars.copy_context().run, cache.get_or_build, side_key,  # the
                                      program_side)  # caller's group
    source = tests_source(called, tests, chain.c)
    tests_key = cache.key("cpp-split-tests", chain.language, chain.compiler, chain.flags, source,
                          _read(C_HEADER if chain.c else HEADER), _read(TESTS_MAIN))
    tests_built = cache.get_or_build(tests_key, lambda: _tests_side(toolbox, chain, source))
    side = program_future.result()
    for step in (side, tests_built):
        if step.system_error is not None:
            return SplitBuild(system_error=step.system_error)
    if side.artifact is None:
        return SplitBuild(compile_error=side.compile_error)
    if tests_built.artifact is None:
        notes = "".join(f"\n  {name}: {why}" for name, why in sorted(refused.items()))
        return SplitBuild(compile_error=(tests_built.compile_error or "")
                          + (f"\nfunctions of the program the tests cannot call:{notes}" if notes else "")
                          + "\n(the tests see only the program's global functions that are neither static, inline,"
                            " overloaded nor templates, of data types: numbers, bool, char, std::string, vector,"
                            " pair, tuple, map, set, unordered_map, unordered_set)")
    job = SplitCommand((PROGRAM_PATH,), (TESTS_PATH,), _contents(tests_built.artifact), dict(RUN_ENV))
    return SplitBuild(job, side.artifact)


def harness(language: str, compiler: str, standard: str, pch_flags: tuple[str, ...],
            source: str) -> Callable[[Toolbox, str, str], SplitBuild]:
    """The ``split_asserts`` of a C++ language entry."""
    chain = Toolchain(language, compiler, standard, pch_flags, source)
    return lambda toolbox, program, tests: split_asserts(chain, toolbox, program, tests)
