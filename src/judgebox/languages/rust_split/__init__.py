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
``VecDeque``, arrays, tuples, ``Option``, ``HashMap``/``HashSet``/``BTreeMap``/``BTreeSet`` of those,
by value or by reference. Not supported (no stub, so tests calling it do not compile: CE, with the reason):
generics, lifetimes, ``Box``/``dyn``/``impl`` types, ``Result``, program-defined types, references in
results, methods, ``async``/``unsafe``/``extern`` functions. Known differences from one crate: arguments
cross by value (a ``&mut`` argument's changes stay in the program's process).

Builds are cached by content: S once per program; T once per tests and stubs (the programs of a GRPO
group share it).
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from judgebox.languages.artifacts import Build
from judgebox.languages.rust_split.signatures import Function, Param, Unsupported, top_level
from judgebox.languages.spec import SplitBuild, Toolbox
from judgebox.languages.split import beside, failed_sides, sandboxed_step
from judgebox.sandbox.config import RUN_ENV
from judgebox.sandbox.slot import Command, SplitCommand

HARNESS = Path(__file__).parent.with_name("harnesses") / "rust"
RUSTC = "/usr/bin/rustc"
PROGRAM_FLAGS = "--edition 2021 -O -C overflow-checks=on -C debug-assertions=on -C strip=symbols -A warnings"
TESTS_FLAGS = "--edition 2021 -C opt-level=1 -C strip=symbols -A warnings"
CALLABLE = ("the tests see the program's top-level functions, not generic, whose parameters and results are"
            " integers, f32/f64, bool, char, String/&str, Vec/&[T], VecDeque, arrays, tuples, Option, HashMap,"
            " HashSet, BTreeMap or BTreeSet of those")
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

def program_side_source(program: str, functions: list[Function], rewrites: list) -> str:
    """The program (main renamed, foreign uses dropped) and the dispatcher of its functions."""
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
        args = ", ".join(f"{p.borrow}a{i}" for i, p in enumerate(f.params))
        lines += ["r.finish()?;", f"let value: {f.result} = super::{f.name}({args});", "Put::put(&value, w);"]
        arms.append(f"            {index} => {{ {' '.join(lines)} }}\n")
    return ("".join(out) + "\n\n#[allow(unused_imports, dead_code, unused_variables, unused_mut, non_snake_case)]\n"
            "mod judgebox_dispatch {\n" + _wire_module()
            + "\n    pub fn dispatch(index: u32, r: &mut Reader, w: &mut ::std::vec::Vec<u8>)"
              " -> ::std::result::Result<(), Malformed> {\n        match index {\n" + "".join(arms)
            + "            _ => return Err(\"no such function\"),\n        }\n        Ok(())\n    }\n}\n\n"
              "fn main() {\n    judgebox_dispatch::serve(judgebox_dispatch::dispatch)\n}\n")


def _declared(p: Param) -> str:
    if p.slice_of:
        inner = "str" if p.spelled == "::std::string::String" else f"[{p.spelled[len('::std::vec::Vec<'):-1]}]"
        return p.borrow + inner
    return p.borrow + p.spelled


def stubs_source(called: list[tuple[int, Function]]) -> str:
    """T's stubs: each encodes its arguments, calls S's function by its index in S's table, and decodes
    the result as its declared type."""
    out = []
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
        every, refused, rewrites = top_level(program)
    except Unsupported as exc:
        return SplitBuild(compile_error=f"the assert harness could not read the program: {exc}")
    kept = [f for f in every if f.name not in KEPT_NAMES]
    refused.update({f.name: "it is named like a std name the tests keep" for f in every if f.name in KEPT_NAMES})
    libtest = TEST_ATTRIBUTE.search(tests) is not None
    try:
        tests_functions, _, _ = top_level(tests)
    except Unsupported as exc:
        return SplitBuild(system_error=f"the assert harness could not read the tests: {exc}")
    declared = {f.name for f in tests_functions} | set(re.findall(r"\b(?:fn|struct|enum|type|const|static|mod)\s+"
                                                                  r"([A-Za-z_][A-Za-z0-9_]*)", tests))
    if not libtest and "main" not in declared:
        return SplitBuild(system_error="the tests have no #[test] function and no fn main")
    cache = toolbox.cache
    harness = "".join(_read(n) for n in ("wire.rs", "tests_prelude.rs", "run_tests.sh"))
    side_source = program_side_source(program, kept, rewrites)
    side_key = cache.key("rust-split-side", harness, PROGRAM_FLAGS, side_source)
    program_future = beside(lambda: cache.get_or_build(side_key, lambda: _rustc(
        toolbox, PROGRAM_FLAGS, side_source, "rust", "the program does not build with the assert harness", False)))
    wanted = set(IDENTIFIER.findall(tests)) - declared
    called = [(index, f) for index, f in enumerate(kept) if f.name in wanted]
    source = tests_side_source(stubs_source(called), tests)
    flags = TESTS_FLAGS + (" --test" if libtest else "")
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
