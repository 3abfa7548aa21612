"""Rust assert cases (``#[test]`` functions with ``assert!``/``assert_eq!``, the HumanEval-X form; or a
``fn main`` of asserts, the MultiPL-E form) with the program and the tests in two processes.

In one crate a program can define its own ``assert_eq!`` macro before the tests, exit with
``std::process::exit(0)`` from a function the tests call, or shadow the names the tests use through
``use super::*``. Here the tests never share a crate, a binary or a process with the program:

1. **Signatures.** The program's top-level functions are read by a strict grammar
   (``signatures.py``); only functions whose every type is in the closed set of data types get a stub.
2. **The program's side** (S): the program (its ``fn main`` renamed, ``use`` lines of crates that are not
   here dropped) with a generated dispatcher module: it reads calls from the channel (fd 7), decodes the
   arguments by type (``harnesses/rust/wire.rs``), calls the function by its path, sends back the result
   as data, or the message of its panic. Built with ``-O`` and, as ``cargo test`` builds, overflow checks
   and debug assertions on.
3. **The tests' side** (T): a crate of ``harnesses/rust/tests_prelude.rs`` (the wire module, the std
   names HumanEval-X's tests reach through ``use super::*``, a constructor that makes the process
   undumpable), a stub per program function the tests name (same signature, types by their std paths,
   forwarding over the channel), and the tests; built with ``--test`` (libtest runs the ``#[test]``
   functions) or as a binary whose main is the tests'. ``harnesses/rust/run_tests.sh`` runs it without
   the report and token, and writes the pass only when it exited 0; a failed assertion (exit 101) writes
   ``assertion-failed`` (WA). A panic of the program's function is raised again in T with its message
   alone (a payload that is not a message crosses as "a panic"): ``#[should_panic]`` and ``catch_unwind``
   behave as under ``cargo test``, and a panic the tests do not expect fails their test (WA). The
   program's process ending, or a malformed reply, ends T with status 1: RE, never a pass. A program
   function named like a std name the tests see (``Some``, ``drop``, ``max``, ``HashMap``...) gets no
   stub: it would shadow that name in the tests.

Values: every int type, f32, f64, bool, char, String (and ``&str``), ``Vec`` (and ``&[T]``),
``VecDeque``, arrays, tuples, ``Option``, ``Result``, ``HashMap``/``HashSet``/``BTreeMap``/``BTreeSet`` of
those, ``&str`` inside them and as a result (``Vec<&str>``, ``HashMap<&str, &str>``, ``-> &str``: the tests'
side leaks the string it decodes, a ``&'static str``), ``Box<dyn Any>`` (and ``&dyn Any``) holding a value
of a closed list of concrete types (``wire.rs``: it crosses with a tag naming its type and is rebuilt as
that type, so ``downcast_ref`` sees it; an unknown tag is a malformed reply), the program's own enums and
structs that are plain data (generic too: fields of these types; T gets a copy of the definition, made
from what the grammar read, with only its std derives; a value crosses as its variant's index and its
fields), by value or by reference; a function may declare lifetimes. Not supported (no stub, so tests
calling it do not compile: CE, with the reason): type parameters, ``impl`` types and ``dyn`` types but
``dyn Any``, other ``Box``es, other program types (with a bound, a discriminant, a field outside the set),
references in results but ``&str``, methods, ``async``/``unsafe``/``extern`` functions. Known differences
from one crate: arguments cross by value (a ``&mut`` argument's changes stay in the program's process); a
``dyn Any`` of a type outside the list panics where it is encoded (in the tests' process, the test
fails); the copy of a program's type has none of its hand-written impls (``Display``, a ``PartialEq`` of
its own): tests that need them do not compile.

Builds are cached by content: S once per program; T once per tests and stubs (the programs of a GRPO
group share it).
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from judgebox.languages import rust_crates
from judgebox.languages.artifacts import Build
from judgebox.languages.rust_split.signatures import (
    ANY,
    STR,
    DataType,
    Function,
    Param,
    Unsupported,
    Variant,
    program_types,
    read,
)
from judgebox.languages.spec import SplitBuild, Toolbox
from judgebox.languages.split import beside, failed_sides, sandboxed_step
from judgebox.sandbox.config import RUN_ENV
from judgebox.sandbox.slot import Command, SplitCommand

HARNESS = Path(__file__).parent.with_name("harnesses") / "rust"
RUSTC = "/usr/bin/rustc"
PROGRAM_FLAGS = "--edition 2021 -O -C overflow-checks=on -C debug-assertions=on -C strip=symbols -A warnings"
TESTS_FLAGS = "--edition 2021 -C opt-level=1 -C strip=symbols -A warnings"
CALLABLE = ("the tests see the program's top-level functions, not generic, whose parameters and results are"
            " integers, f32/f64, bool, char, String/&str, Box<dyn Any>/&dyn Any, Vec/&[T], VecDeque, arrays,"
            " tuples, Option, Result, HashMap, HashSet, BTreeMap, BTreeSet or the program's plain enums and structs"
            " of those")
# names a stub must not take: the tests' std names (the prelude's, primitive types', tests_prelude.rs's)
KEPT_NAMES = frozenset(
    "Copy Send Sized Sync Unpin Drop Fn FnMut FnOnce drop Box ToOwned Clone PartialEq PartialOrd Eq Ord AsRef"
    " AsMut Into From Default Iterator Extend IntoIterator DoubleEndedIterator ExactSizeIterator Option Some"
    " None Result Ok Err String ToString Vec TryFrom TryInto FromIterator i8 i16 i32 i64 i128 isize u8 u16"
    " u32 u64 u128 usize f32 f64 bool char str Any TypeId AsciiExt cmp max min Ordering BTreeMap BTreeSet"
    " HashMap HashSet VecDeque replace Index Iter main tests judgebox_wire judgebox_prelude".split())
TEST_ATTRIBUTE = re.compile(r"#\s*\[\s*test\s*\]")
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@functools.cache
def _read(name: str) -> str:
    return (HARNESS / name).read_text(encoding="utf-8")


def _wire_module() -> str:
    return _read("wire.rs")


# -- generated sources ----------------------------------------------------------------------------------

def program_side_source(program: str, functions: list[Function], rewrites: list,
                        types: dict[str, DataType] | None = None) -> str:
    """The program (main renamed, foreign uses dropped) and the dispatcher of its functions (with the wire
    impls of the program's plain data types they use)."""
    out, last = [], 0
    for item in sorted(rewrites, key=lambda item: item.start):
        out.append(program[last:item.start])
        # a dropped use keeps its line breaks, so the compiler's line numbers stay the program's
        out.append("judgebox_program_main" if item.kind == "main" else "\n" * program.count("\n", item.start, item.end))
        last = item.end
    out.append(program[last:])
    arms = []
    for index, f in enumerate(functions):
        lines = [f"let mut a{i}: {p.spelled} = Get::get(r)?;" for i, p in enumerate(f.params)]
        args = ", ".join(f"{p.borrow}{'*' if p.slice_of else ''}a{i}" for i, p in enumerate(f.params))
        # a &str in the result may borrow from an argument here: its lifetime is left to inference
        result = f.result.replace(STR, "&str")
        lines += ["r.finish()?;", f"let value: {result} = super::{f.name}({args});", "Put::put(&value, w);"]
        arms.append(f"            {index} => {{ {' '.join(lines)} }}\n")
    return ("".join(out) + "\n\n#[allow(unused_imports, dead_code, unused_variables, unused_mut, non_snake_case)]\n"
            "mod judgebox_dispatch {\n" + _wire_module()
            + "".join(_data_impls(data, "") for data in _needed(types or {}, _types_named(functions)))
            + "\n    pub fn dispatch(index: u32, r: &mut Reader, w: &mut ::std::vec::Vec<u8>)"
              " -> ::std::result::Result<(), Malformed> {\n        match index {\n" + "".join(arms)
            + "            _ => return Err(\"no such function\"),\n        }\n        Ok(())\n    }\n}\n\n"
              "fn main() {\n    judgebox_dispatch::serve(judgebox_dispatch::dispatch)\n}\n")


def _callable(every: list[Function], refused: dict[str, str], types: dict[str, DataType]) -> list[Function]:
    """The functions that get a stub (the others go to ``refused``, with why): none named like a std name
    the tests keep, nor using a program type so named (its copy would shadow that name in the tests)."""
    for name in [name for name in types if name in KEPT_NAMES]:
        del types[name]
    kept = []
    for f in every:
        named = [n for t in (*(p.spelled for p in f.params), f.result) for n in program_types(t) if n not in types]
        if f.name in KEPT_NAMES:
            refused[f.name] = "it is named like a std name the tests keep"
        elif named:
            refused[f.name] = f"its type {named[0]} is named like a std name the tests keep"
        else:
            kept.append(f)
    return kept


def _declared(p: Param) -> str:
    """A parameter's type in T's stub: as the program declares it (a &str in it with an elided lifetime)."""
    spelled = p.spelled.replace(STR, "&str")
    if p.slice_of:
        if spelled == "::std::string::String":
            return p.borrow + "str"
        if spelled == ANY:
            return p.borrow + "dyn ::std::any::Any"
        return p.borrow + f"[{spelled[len('::std::vec::Vec<'):-1]}]"
    return p.borrow + spelled


def _data_impls(data: DataType, wire: str) -> str:
    """Put and Get of a program's plain data type: the index of its variant (u32), then its fields; the
    same text on both sides (``crate::Name`` is the program's type in S, its copy in T)."""
    params = ", ".join(data.generics)
    spelled = f"crate::{data.name}" + (f"<{params}>" if params else "")

    def bounds(trait: str) -> str:
        return "<" + ", ".join(f"{g}: {wire}{trait}" for g in data.generics) + ">" if data.generics else ""

    puts, gets = [], []
    for k, v in enumerate(data.variants):
        path = f"crate::{data.name}" + (f"::{v.name}" if v.name else "")
        binds = [f"f{j}" for j in range(len(v.fields))]
        if v.shape == "tuple":
            pattern, build = f"{path}({', '.join(binds)})", f"{path}({', '.join(f'{wire}Get::get(r)?' for _ in binds)})"
        elif v.shape == "named":
            pattern = path + " { " + ", ".join(f"{name}: {b}" for (name, _), b in zip(v.fields, binds)) + " }"
            build = path + " { " + ", ".join(f"{name}: {wire}Get::get(r)?" for name, _ in v.fields) + " }"
        else:
            pattern = build = path
        puts.append(f"            {pattern} => {{ {wire}Put::put(&{k}u32, w);"
                    + "".join(f" {wire}Put::put({b}, w);" for b in binds) + " }\n")
        gets.append(f"            {k} => {build},\n")
    return (f"impl{bounds('Put')} {wire}Put for {spelled} {{\n    fn put(&self, w: &mut ::std::vec::Vec<u8>) {{\n"
            f"        match {'self' if puts else '*self'} {{\n{''.join(puts)}        }}\n    }}\n}}\n"
            f"impl{bounds('Get')} {wire}Get for {spelled} {{\n"
            f"    fn get(r: &mut {wire}Reader) -> ::std::result::Result<Self, {wire}Malformed> {{\n"
            "        r.enter()?;\n"
            f"        let value = match <u32 as {wire}Get>::get(r)? {{\n{''.join(gets)}"
            "            _ => return Err(\"a value of a program's type with no such variant\"),\n        };\n"
            "        r.leave();\n        Ok(value)\n    }\n}\n")


def _data_definition(data: DataType) -> str:
    """T's copy of a program's plain data type, from what the grammar read (its std derives only)."""
    def fields(v: Variant) -> str:
        if v.shape == "tuple":
            return "(" + ", ".join(f"pub {t}" if not v.name else t for _, t in v.fields) + ")"
        if v.shape == "named":
            return " { " + ", ".join(f"{'pub ' if not v.name else ''}{name}: {t}" for name, t in v.fields) + " }"
        return ""

    head = (f"#[derive({', '.join(data.derives)})]\n" if data.derives else "") + \
        f"pub {data.kind} {data.name}" + (f"<{', '.join(data.generics)}>" if data.generics else "")
    if data.kind == "struct":
        (v,) = data.variants
        return head + fields(v) + ("" if v.shape == "named" else ";") + "\n"
    return head + " {\n" + "".join(f"    {v.name}{fields(v)},\n" for v in data.variants) + "}\n"


def _types_named(functions: list[Function]) -> set[str]:
    return {n for f in functions for t in (*(p.spelled for p in f.params), f.result) for n in program_types(t)}


def _needed(types: dict[str, DataType], names: set[str]) -> list[DataType]:
    """The program's plain data types of ``names`` and those their fields name, each once."""
    out: dict[str, DataType] = {}
    todo = [n for n in names if n in types]
    while todo:
        name = todo.pop()
        if name not in out:
            out[name] = types[name]
            todo += [n for n in types[name].uses() if n in types]
    return [out[n] for n in sorted(out)]


def stubs_source(called: list[tuple[int, Function]], types: dict[str, DataType] | None = None,
                 named: set[str] | frozenset[str] = frozenset()) -> str:
    """T's stubs: each encodes its arguments, calls S's function by its index in S's table, and decodes
    the result as its declared type; and the copies of the program's plain data types they use or the
    tests name."""
    names = set(named) | _types_named([f for _, f in called])
    out = [_data_definition(data) + _data_impls(data, "judgebox_wire::") for data in _needed(types or {}, names)]
    for index, f in called:
        params = ", ".join(f"a{i}: {_declared(p)}" for i, p in enumerate(f.params))
        puts = "".join(f"    judgebox_wire::Put::put({'&*' if p.borrow else '&'}a{i}, &mut judgebox_request);\n"
                       for i, p in enumerate(f.params))
        out.append(f"pub fn {f.name}({params}) -> {f.result} {{\n"
                   f"    let mut judgebox_request = ::std::vec::Vec::new();\n{puts}"
                   f"    judgebox_wire::result(judgebox_wire::call({index}, judgebox_request))\n}}\n")
    return "".join(out)


def tests_side_source(stubs: str, tests: str) -> str:
    return _read("tests_prelude.rs") + "\n" + stubs + "\n" + tests + "\n"


# -- builds ---------------------------------------------------------------------------------------------------

def _rustc(toolbox: Toolbox, flags: str, source: str, name: str, failure: str, with_wire: bool) -> Build:
    script = f"cd /tmp && {RUSTC} {flags} -o built main.rs"
    files = {"main.rs": source, **({"wire.rs": _wire_module()} if with_wire else {})}
    return sandboxed_step(toolbox, Command(("/bin/sh", "-c", script), dict(RUN_ENV)), files, "built", name, failure)


def split_asserts(toolbox: Toolbox, program: str, tests: str) -> SplitBuild:
    """The ``split_asserts`` of the Rust entry."""
    try:
        every, refused, rewrites, types = read(program)
    except Unsupported as exc:
        return SplitBuild(compile_error=f"the assert harness could not read the program: {exc}")
    kept = _callable(every, refused, types)
    libtest = TEST_ATTRIBUTE.search(tests) is not None
    try:
        tests_functions, _, _, _ = read(tests)
    except Unsupported as exc:
        return SplitBuild(system_error=f"the assert harness could not read the tests: {exc}")
    declared = {f.name for f in tests_functions} | set(re.findall(r"\b(?:fn|struct|enum|type|const|static|mod)\s+"
                                                                  r"([A-Za-z_][A-Za-z0-9_]*)", tests))
    if not libtest and "main" not in declared:
        return SplitBuild(system_error="the tests have no #[test] function and no fn main")
    cache = toolbox.cache
    harness = "".join(_read(n) for n in ("wire.rs", "tests_prelude.rs", "run_tests.sh"))
    linked = rust_crates.linked(toolbox.toolchain_cache, program, tests)  # rand, regex, md5 where named
    side_source = program_side_source(program, kept, rust_crates.dropped_uses(program, rewrites, linked), types)
    side_flags = PROGRAM_FLAGS + rust_crates.flags(linked)
    side_key = cache.key("rust-split-side", harness, side_flags, side_source)
    program_future = beside(lambda: cache.get_or_build(side_key, lambda: _rustc(
        toolbox, side_flags, side_source, "rust", "the program does not build with the assert harness", False)))
    wanted = set(IDENTIFIER.findall(tests)) - declared
    called = [(index, f) for index, f in enumerate(kept) if f.name in wanted]
    source = tests_side_source(stubs_source(called, types, wanted), tests) + rust_crates.tests_scope(linked)
    flags = TESTS_FLAGS + rust_crates.flags(linked) + (" --test" if libtest else "")
    tests_built = cache.get_or_build(cache.key("rust-split-tests", harness, flags, source), lambda: _rustc(
        toolbox, flags, source, "rust-split-tests", "the tests do not compile against the program's functions", True))
    side = program_future.result()
    failed = failed_sides(side, tests_built, {name: why for name, why in refused.items() if name in wanted}, CALLABLE)
    if failed is not None:
        return failed
    assert tests_built.artifact is not None
    tests_binary = os.pread(tests_built.artifact.fd, tests_built.artifact.size, 0)
    job = SplitCommand(("/proc/self/fd/5",), ("/bin/sh", "-c", _read("run_tests.sh")), tests_binary, dict(RUN_ENV))
    return SplitBuild(job, side.artifact)
