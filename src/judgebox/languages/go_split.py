"""Go assert cases (the HumanEval-X form: ``func TestXxx(t *testing.T)`` with testify's ``assert``) with
the program and the tests in two processes.

In one ``go test`` binary a program's ``init()`` or ``TestMain`` runs before the tests, ``os.Exit(0)``
ends them with a passing status, and the program shares the tests' package: it can define the helpers
the tests call. Here the tests never share a package, a binary or a process with the program:

1. **Reading.** A describe tool (``harnesses/go/describe.go``, built and run in the sandbox) parses the
   program with go/parser and resolves its top-level functions' types with go/types (a program's own
   ``type int string`` is its named type, not Go's int). It also gives the program as its process
   compiles it: ``package main`` whatever its package clause (or none), its ``main`` renamed, the imports
   it does not use dropped (a prompt's imports are often the tests'). The tests are read the same way:
   their Test functions, the names they declare, and the usual imports they use without importing
   (``testing``, testify's ``assert``, ``fmt``...) added.
2. **The program's side** (S): the program with a generated ``main`` that serves a table of its functions
   over the channel (fd 7) by reflection (``harnesses/go/wire``): arguments are rebuilt, the function
   called, its results (or its panic: the kind of its value and its text) sent back as data. Its
   ``init()`` functions, package variables and goroutines live and die in S.
3. **The tests' side** (T): the tests, a generated stub per program function they call (same signature,
   forwarding over the channel), and ``harnesses/go/tests_main.go``, which makes T undumpable, runs the
   tests with Go's own ``testing`` package and writes the pass (``asserts`` and the token) only after
   every test ran and passed; a failed test writes ``assertion-failed`` (WA). testify and ``testing`` are
   the system's, compiled into T alone, so nothing of the program's can redefine them. A panic of the
   program's function is raised again in T, in the test's goroutine, with a value made of its text alone
   (a string for a string, an error for an error): ``assert.Panics`` and ``recover()`` behave as under
   ``go test``, and a panic the tests do not expect ends T as it ends a test binary (RE). A malformed
   reply, a program that exited or crashed ends T with status 1 (RE), never a pass. A program function
   named like one of Go's predeclared names (``len``, ``append``...) gets no stub: it would shadow the
   builtin in the tests.

Values cross as a type descriptor and data of a closed set of types, rebuilt by T from its own reflect
types: bool, every int and uint kind, float32, float64, string (byte, rune are uint8, int32), slices,
arrays and maps of those, ``interface{}`` holding any of them (a nil slice or map stays nil: testify
tells them from empty ones), and the program's **data types**: its package-level named types whose
definition is made only of the set, structs (fields exported or not, nested, unnamed structs inside) and
other data types (``type Celsius float64``, ``type Grid [][]int``, ``type Pair struct{A int; b []string}``).
The describe tool lists them spelled in the set's grammar, which is checked here and written again as
T's copies of the declarations, in the stubs' file: the type alone, never the program's methods, so
nothing of the program's runs in T (testify compares and prints plain values). A struct crosses as its
fields' data by position; a data type held by an ``interface{}`` crosses by its name, looked up in each
side's table of the data types (an unknown name is a malformed reply). A data type named like one of the
tests' names (or Go's predeclared ones) is not copied, nor are the types and functions that use it.
A function with another type anywhere in its signature (a pointer, ``error``, a func, a channel, an
unnamed struct, a named type with one of those in its definition), a variadic or generic function, or a
method, has no stub: tests that call it do not compile (CE, with the reason). Known differences from one
binary: arguments cross by value (a program that sorts its argument in place does not sort the tests'
slice); a program's data type has no methods in the tests (``fmt.Sprint`` of it in the tests does not
call its ``String``).

Builds are cached by content: the describe tool once per process; the program's reading and S once per
program; the tests' reading once per tests, T once per tests and stubs (the programs of a GRPO group
share it). testify (with the standard packages it needs, built without cgo) is compiled once per machine
into the toolchain cache from the system's sources only, and each build starts from a linked copy of it.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from judgebox.languages.artifacts import Artifact, Build
from judgebox.languages.spec import LanguageSpec, SelfTest, SplitBuild, Toolbox
from judgebox.languages.split import beside, failed_sides, sandboxed_step
from judgebox.languages.toolchain import built_once
from judgebox.sandbox.config import RUN_ENV
from judgebox.sandbox.slot import Command, SplitCommand

HARNESS = Path(__file__).with_name("harnesses") / "go"
GO = "/usr/bin/go"
SYSTEM_GOPATH = "/usr/share/gocode"  # Debian's Go libraries (testify)
BUILD_ENV = {"GOCACHE": "/tmp/.gocache", "GOPATH": f"/tmp/gopath:{SYSTEM_GOPATH}", "GO111MODULE": "off",
             "CGO_ENABLED": "0", "GOFLAGS": "-ldflags=-s"}
WARM_IMPORTS = ("testing", "github.com/stretchr/testify/assert", "github.com/stretchr/testify/require")
WIRE_FILES = ("wire.go", "sides.go", "testdeps.go")
MAX_LISTING = 4 << 20
MAX_TYPE = 2000
MAX_DATA_TYPES = 200
CALLABLE = ("the tests see the program's top-level functions whose parameters and results are bool, int and uint"
            " kinds, float32/64, string, slices, arrays, maps or interface{} of those, or the program's named"
            " types and structs made of those")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# names a stub must not take: it would shadow Go's own in the tests (or collide with the harness's)
PREDECLARED = frozenset(
    "bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8"
    " uint16 uint32 uint64 uintptr true false iota nil any comparable append cap close complex copy delete"
    " imag len make new panic print println real recover main init judgeboxTests judgeboxwire".split())
KEYWORDS = frozenset(
    "break case chan const continue default defer else fallthrough for func go goto if import interface map"
    " package range return select struct switch type var".split())
# names a data type must not take in the tests (Go's newer builtins too)
RESERVED_TYPES = PREDECLARED | KEYWORDS | {"min", "max", "clear", "judgeboxTypes"}
BASIC = frozenset("bool int int8 int16 int32 int64 uint uint8 uint16 uint32 uint64 float32 float64 string".split())


@functools.cache
def _read(name: str) -> str:
    return (HARNESS / name).read_text(encoding="utf-8")


def _wire() -> dict[str, str]:
    return {f"gopath/src/judgebox/wire/{name}": _read(f"wire/{name}") for name in WIRE_FILES}


# -- types ------------------------------------------------------------------------------------------------

class Unsupported(Exception):
    """A type the describe step gave that is not in the closed set (it never is, unless it lies)."""


def canonical_type(text: str, names: frozenset[str] = frozenset(), declaring: bool = False) -> str:
    """``text`` re-spelled from the closed set's grammar (the describe step's output is read as an
    attacker's: it ran on the program's source). ``names`` are the program's data types it may name; an
    unnamed struct only where ``declaring`` (a data type's definition)."""
    if len(text) > MAX_TYPE:
        raise Unsupported("a type too long")
    spelled, rest = _type(text, 0, names, declaring)
    if rest:
        raise Unsupported(f"the type {text!r}")
    return spelled


def _type(text: str, depth: int, names: frozenset[str], declaring: bool) -> tuple[str, str]:
    if depth > 24:
        raise Unsupported("a type nested too deeply")
    if text.startswith("[]"):
        elem, rest = _type(text[2:], depth + 1, names, declaring)
        return "[]" + elem, rest
    if text.startswith("map["):
        key, rest = _type(text[4:], depth + 1, names, declaring)
        if not rest.startswith("]"):
            raise Unsupported(f"the type {text!r}")
        value, rest = _type(rest[1:], depth + 1, names, declaring)
        return f"map[{key}]{value}", rest
    array = re.match(r"\[(0|[1-9][0-9]{0,6})\]", text)
    if array:
        elem, rest = _type(text[array.end():], depth + 1, names, declaring)
        return f"[{array[1]}]{elem}", rest
    if text.startswith("interface{}"):
        return "interface{}", text[len("interface{}"):]
    if declaring and text.startswith("struct{"):
        fields: list[str] = []
        rest = text[len("struct{"):]
        while not rest.startswith("}"):
            if fields:
                if not rest.startswith("; "):
                    raise Unsupported(f"the type {text!r}")
                rest = rest[2:]
            field = IDENTIFIER.match(rest)
            if field is None or field[0] in KEYWORDS or rest[field.end():field.end() + 1] != " ":
                raise Unsupported(f"the type {text!r}")
            spelled, rest = _type(rest[field.end() + 1:], depth + 1, names, declaring)
            fields.append(f"{field[0]} {spelled}")
        return "struct{" + "; ".join(fields) + "}", rest[1:]
    name = IDENTIFIER.match(text)
    if name is None or (name[0] not in BASIC and name[0] not in names):
        raise Unsupported(f"the type {text!r}")
    return name[0], text[name.end():]


@dataclass(frozen=True)
class DataType:
    """A program's data type: its name and its definition in the closed set's grammar."""

    name: str
    definition: str

    def names(self) -> set[str]:
        return set(IDENTIFIER.findall(self.definition))


def data_types(listing: dict) -> list[DataType]:
    """The program's data types from its listing, checked: names, definitions of the set naming only them."""
    entries = listing.get("types", [])
    if not isinstance(entries, list) or len(entries) > MAX_DATA_TYPES:
        raise Unsupported("a list of data types of an unknown form")
    spelled: list[tuple[str, str]] = []
    for entry in entries:
        if (not isinstance(entry, dict) or set(entry) != {"name", "type"} or not isinstance(entry["name"], str)
                or not isinstance(entry["type"], str)):
            raise Unsupported("a data type entry of an unknown form")
        spelled.append((entry["name"], entry["type"]))
    names = frozenset(name for name, _ in spelled)
    if len(names) != len(spelled):
        raise Unsupported("a data type listed twice")
    for name in names:
        if not IDENTIFIER.fullmatch(name) or name in RESERVED_TYPES or name.startswith("judgebox"):
            raise Unsupported(f"the data type name {name!r}")
    return [DataType(name, canonical_type(definition, names, declaring=True)) for name, definition in spelled]


def _uses(text: str, names: set[str]) -> set[str]:
    return set(IDENTIFIER.findall(text)) & names


@dataclass(frozen=True)
class Function:
    name: str
    params: tuple[str, ...]
    results: tuple[str, ...]


@dataclass(frozen=True)
class Reading:
    """What the describe step gave for a source: the source as its side compiles it, and its listing."""

    source: str
    listing: dict


def _reading(artifact: Artifact) -> Reading:
    data = os.pread(artifact.fd, artifact.size, 0)
    if len(data) > MAX_LISTING * 16:
        raise Unsupported("the reading is too large")
    produced = json.loads(data)
    if set(produced) != {"source", "listing"} or not isinstance(produced["source"], str):
        raise Unsupported("a reading of an unknown form")
    return Reading(produced["source"], produced["listing"])


def program_functions(listing: dict) -> tuple[list[Function], dict[str, str]]:
    """The program's functions from its listing, checked: identifiers, types of the closed set (and of
    the program's data types)."""
    if set(listing) - {"types"} != {"functions", "refused"}:  # a listing without data types has none
        raise Unsupported("a listing of an unknown form")
    names = frozenset(t.name for t in data_types(listing))
    functions, refused = [], {}
    for entry in listing["functions"]:
        if set(entry) != {"name", "params", "results"} or not isinstance(entry["name"], str):
            raise Unsupported("a function entry of an unknown form")
        name = entry["name"]
        if not IDENTIFIER.fullmatch(name):
            raise Unsupported(f"the function name {name!r}")
        if name in PREDECLARED:
            refused[name] = "it is named like one of Go's predeclared names, which the tests keep"
            continue
        functions.append(Function(name, tuple(canonical_type(t, names) for t in entry["params"]),
                                  tuple(canonical_type(t, names) for t in entry["results"])))
    for name, why in listing["refused"].items():
        if isinstance(name, str) and isinstance(why, str):
            refused[name[:200]] = why[:500]
    return functions, refused


def tests_view(types: list[DataType], functions: list[Function], declared: set[str]
               ) -> tuple[list[DataType], dict[str, str]]:
    """The data types copied into T (those named like none of the tests' names, nor using one that is),
    and why each program function whose signature uses another one has no stub."""
    dropped = {t.name for t in types if t.name in declared}
    for _ in range(len(types)):
        more = {t.name for t in types if t.name not in dropped and t.names() & dropped}
        if not more:
            break
        dropped |= more
    refused = {}
    for f in functions:
        clash = sorted(set().union(*(_uses(t, dropped) for t in (*f.params, *f.results))))
        if clash:
            refused[f.name] = (f"its type {clash[0]} is named like one of the tests' names (or uses one that is),"
                               " so the tests cannot have it")
    return [t for t in types if t.name not in dropped], refused


def _names(listing: dict, key: str) -> list[str]:
    names = listing.get(key)
    if not isinstance(names, list) or not all(isinstance(n, str) and IDENTIFIER.fullmatch(n) for n in names):
        raise Unsupported(f"a tests listing without {key}")
    return names


# -- generated sources --------------------------------------------------------------------------------------

def _type_table(types: Sequence[DataType]) -> str:
    return "".join(f"\t{json.dumps(t.name)}: (*{t.name})(nil),\n" for t in types)


def dispatcher_source(functions: list[Function], types: Sequence[DataType] = ()) -> str:
    """S's main: the table of the program's functions, in the listing's order, and of its data types."""
    table = "".join(f"\t{f.name},\n" for f in functions)
    return (f"package main\n\nimport judgeboxwire \"judgebox/wire\"\n\nfunc main() {{\n"
            f"\tjudgeboxwire.Serve([]interface{{}}{{\n{table}\t}}, map[string]interface{{}}{{\n"
            f"{_type_table(types)}\t}})\n}}\n")


def stubs_source(called: list[tuple[int, Function]], tests: list[str], types: Sequence[DataType] = ()) -> str:
    """T's stubs (each calls S's function by its index in S's table), the list of the tests to run, and
    the copies of the program's data types (their declarations alone) with their table."""
    out = ["package main\n\nimport (\n\t\"testing\"\n\n\tjudgeboxwire \"judgebox/wire\"\n)\n\n",
           "var judgeboxTests = []testing.InternalTest{\n"]
    out += [f"\t{{Name: {json.dumps(name)}, F: {name}}},\n" for name in tests]
    out.append("}\n\nvar judgeboxTypes = map[string]interface{}{\n" + _type_table(types) + "}\n")
    out += [f"\ntype {t.name} {t.definition}\n" for t in types]
    for index, f in called:
        params = ", ".join(f"a{i} {t}" for i, t in enumerate(f.params))
        results = "" if not f.results else f" {f.results[0]}" if len(f.results) == 1 else f" ({', '.join(f.results)})"
        out.append(f"\nfunc {f.name}({params}){results} {{\n")
        out += [f"\tvar r{i} {t}\n" for i, t in enumerate(f.results)]
        args = ", ".join(f"&a{i}" for i in range(len(f.params)))
        pointers = "".join(f", &r{i}" for i in range(len(f.results)))
        out.append(f"\tjudgeboxwire.Call({index}, []interface{{}}{{{args}}}{pointers})\n")
        if f.results:
            out.append(f"\treturn {', '.join(f'r{i}' for i in range(len(f.results)))}\n")
        out.append("}\n")
    return "".join(out)


# -- the toolchain cache: testify, built once per machine ------------------------------------------------------

_warm_lock = threading.Lock()
_warm: dict[str, str | None] = {}


def warm_cache(toolchain_cache: str) -> str | None:
    """A Go build cache holding testify and the standard packages it needs, built without cgo, compiled
    here from the system's sources only (no submission reaches this build); None if it cannot be had."""
    with _warm_lock:
        if toolchain_cache not in _warm:
            _warm[toolchain_cache] = _build_warm(toolchain_cache)
        return _warm[toolchain_cache]


def _build_warm(toolchain_cache: str) -> str | None:
    try:
        version = subprocess.run([GO, "version"], capture_output=True, text=True, timeout=60, check=True).stdout
        testify = os.stat(f"{SYSTEM_GOPATH}/src/github.com/stretchr/testify/assert")
    except (OSError, subprocess.SubprocessError):
        return None
    name = re.sub(r"[^A-Za-z0-9.]+", "-", f"{version.strip()}-{testify.st_mtime_ns}")
    folder = os.path.join(toolchain_cache, "go", name)
    target = os.path.join(folder, "gocache")

    def build(partial: str) -> None:
        warm_go = os.path.join(folder, "warm.go")
        with open(warm_go, "w") as f:
            f.write("package main\n\nimport (\n" + "".join(f"\t_ {json.dumps(p)}\n" for p in WARM_IMPORTS)
                    + ")\n\nfunc main() {}\n")
        env = {**RUN_ENV, **BUILD_ENV, "GOCACHE": partial, "GOPATH": SYSTEM_GOPATH}
        subprocess.run([GO, "build", "-o", os.devnull, warm_go], env=env, check=True, capture_output=True, timeout=600)
        for root, dirs, files in os.walk(partial):
            for entry in dirs + files:
                os.chmod(os.path.join(root, entry), 0o755 if entry in dirs else 0o644)
        os.chmod(partial, 0o755)

    return target if built_once(target, build) else None


def _go_build(toolbox: Toolbox, folder: str, files: dict[str, str], name: str, failure: str) -> Build:
    warm = warm_cache(toolbox.toolchain_cache)
    # a linked copy: the build adds its own entries; the cached ones are read-only and stay so (a cache
    # the sandbox cannot read only makes the build slower)
    start = f"{{ cp -rs {warm} /tmp/.gocache 2>/dev/null || rm -rf /tmp/.gocache; }}; " if warm else ""
    script = f"{start}cd /tmp/{folder} && {GO} build -o /tmp/built ."
    job = Command(("/bin/sh", "-c", script), {**RUN_ENV, **BUILD_ENV})
    return sandboxed_step(toolbox, job, {**_wire(), **{f"{folder}/{k}": v for k, v in files.items()}}, "built", name,
                          failure)


# -- the steps --------------------------------------------------------------------------------------------------

DESCRIBE_SPEC = LanguageSpec(
    "go-split-describe", "describe.go", ("{program}",), SelfTest(""),
    compile=(GO, "build", "-o", "{workdir}/describe", "{source}"), artifact="describe",
    env={k: v for k, v in BUILD_ENV.items() if k != "GOPATH"})


def _describe(toolbox: Toolbox, mode: str, source: str, failure: str) -> Build:
    tool = toolbox.build(DESCRIBE_SPEC, _read("describe.go"))
    if tool.artifact is None:
        return Build(system_error=tool.system_error or f"the Go describe tool does not build: {tool.compile_error}")
    job = Command(("/proc/self/fd/5", mode, "/tmp/in.go", "/tmp/reading.json"), dict(RUN_ENV))
    return sandboxed_step(toolbox, job, {"in.go": source}, "reading.json", f"go-split-{mode}", failure,
                          program=tool.artifact)


def _program_side(toolbox: Toolbox, reading: Reading, functions: list[Function], types: list[DataType]) -> Build:
    return _go_build(toolbox, "s", {"program.go": reading.source,
                                    "judgebox_dispatch.go": dispatcher_source(functions, types)},
                     "go", "the program does not build with the assert harness")


def _tests_side(toolbox: Toolbox, tests_source: str, stubs: str) -> Build:
    return _go_build(toolbox, "t", {"tests.go": tests_source, "judgebox_stubs.go": stubs,
                                    "judgebox_main.go": _read("tests_main.go")},
                     "go-split-tests", "the tests do not compile against the program's functions")


def split_asserts(toolbox: Toolbox, program: str, tests: str) -> SplitBuild:
    """The ``split_asserts`` of the Go entry."""
    cache = toolbox.cache
    harness = "".join(_read(n) for n in ("describe.go", "tests_main.go", *(f"wire/{w}" for w in WIRE_FILES)))
    read_program = cache.get_or_build(cache.key("go-split-program", harness, program), lambda: _describe(
        toolbox, "program", program, "the program does not parse"))
    if read_program.artifact is None:
        return SplitBuild(compile_error=read_program.compile_error, system_error=read_program.system_error)
    read_tests = cache.get_or_build(cache.key("go-split-tests", harness, tests), lambda: _describe(
        toolbox, "tests", tests, "the test code does not parse"))
    if read_tests.artifact is None:
        return SplitBuild(system_error=read_tests.system_error or read_tests.compile_error)
    try:
        program_reading = _reading(read_program.artifact)
        every, refusals = program_functions(program_reading.listing)
        types = data_types(program_reading.listing)
    except (Unsupported, ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        return SplitBuild(compile_error=f"the assert harness could not read the program's functions: {exc}")
    try:
        tests_reading = _reading(read_tests.artifact)
        test_names = _names(tests_reading.listing, "tests")
        declared = set(_names(tests_reading.listing, "declared"))
    except (Unsupported, ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        return SplitBuild(system_error=f"the assert harness could not read the tests: {exc}")
    if not test_names:
        return SplitBuild(system_error="the tests define no func TestXxx(t *testing.T)")
    side_key = cache.key("go-split-side", harness, program)
    program_future = beside(lambda: cache.get_or_build(side_key, lambda: _program_side(toolbox, program_reading,
                                                                                     every, types)))
    wanted = set(IDENTIFIER.findall(tests)) - declared
    copied, clashes = tests_view(types, every, declared)
    refusals.update(clashes)
    called = [(index, f) for index, f in enumerate(every) if f.name in wanted and f.name not in clashes]
    stubs = stubs_source(called, test_names, copied)
    tests_built = cache.get_or_build(cache.key("go-split-t", harness, tests_reading.source, stubs),
                                     lambda: _tests_side(toolbox, tests_reading.source, stubs))
    side = program_future.result()
    failed = failed_sides(side, tests_built, {name: why for name, why in refusals.items() if name in wanted},
                          CALLABLE)
    if failed is not None:
        return failed
    assert tests_built.artifact is not None  # failed_sides found both sides built
    tests_binary = os.pread(tests_built.artifact.fd, tests_built.artifact.size, 0)
    job = SplitCommand(("/proc/self/fd/5",), ("/proc/self/fd/6",), tests_binary, dict(RUN_ENV))
    return SplitBuild(job, side.artifact)
