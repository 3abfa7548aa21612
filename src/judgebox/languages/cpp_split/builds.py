"""The sandboxed build steps of a C/C++ split case, and the language entry's ``split_asserts``: the
program's object and signatures (A), S linked from it and the shared dispatcher (B), T from the stubs
and the tests (C), each cached by content; S builds beside T.
"""

from __future__ import annotations

import base64
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from judgebox.languages import pch
from judgebox.languages.artifacts import Artifact, Build
from judgebox.languages.build import COMPILE_LIMITS, failed_build
from judgebox.languages.cpp_split.dispatcher import program_side_source
from judgebox.languages.cpp_split.dwarf import DUMP_FILTER, IDENTIFIER, functions
from judgebox.languages.cpp_split.harness_sources import C_HEADER, HEADER, TESTS_MAIN, harness_source
from judgebox.languages.cpp_split.libc import libc_functions
from judgebox.languages.cpp_split.signatures import Function, Unsupported
from judgebox.languages.cpp_split.stubs import tests_source
from judgebox.languages.spec import SplitBuild, Toolbox
from judgebox.languages.split import beside, failed_sides
from judgebox.sandbox.config import RUN_ENV
from judgebox.sandbox.outcome import RunOutcome
from judgebox.sandbox.slot import Command, SplitCommand

PROGRAM_PATH = "/proc/self/fd/5"
TESTS_PATH = "/proc/self/fd/6"
WORKDIR = "/tmp"
MAX_DUMP_BYTES = 16 << 20  # of the filtered DWARF dump brought back from the sandbox (a program's ~1 MiB)


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


def _b64(data: bytes | str) -> str:
    return base64.b64encode(data.encode() if isinstance(data, str) else data).decode()


def _pch(toolbox: Toolbox, flags: tuple[str, ...]) -> str:
    folder = pch.include_dir(toolbox.toolchain_cache, flags) if flags else None
    return f"-I {folder} " if folder else ""


def _message(outcome: RunOutcome, what: str) -> str:
    return failed_build(outcome, COMPILE_LIMITS, what=what).compile_error or ""


def _run(toolbox: Toolbox, script: str, files: dict[str, str], fetch: tuple[str, ...]) -> RunOutcome:
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
        libc = libc_functions()
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
    files = {"judgebox_program.cpp": _b64(program_side_source(funcs)), HEADER: _b64(harness_source(HEADER))}
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
    key = cache.key("cpp-split-dispatcher", chain.language, chain.dispatcher_flags, listing, harness_source(HEADER))
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
    files = {tests_file: _b64(source), header: _b64(harness_source(header)),
             TESTS_MAIN: _b64(harness_source(TESTS_MAIN))}
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


# what the tests can call, said with a compile error of theirs
CALLABLE = ("the tests see only the program's global functions that are neither static, inline, overloaded nor"
            " templates, of data types: numbers, bool, char, std::string, vector, pair, tuple, map, set,"
            " unordered_map, unordered_set")


def split_asserts(chain: Toolchain, toolbox: Toolbox, program: str, tests: str) -> SplitBuild:
    cache = toolbox.cache
    program_key = cache.key("cpp-split-object", chain.language, chain.compiler, chain.flags, program)
    built = cache.get_or_build(program_key, lambda: _signatures(toolbox, chain, program))
    signatures = built.artifact  # a local, so program_side() below sees it is not None
    if signatures is None:
        return SplitBuild(compile_error=built.compile_error, system_error=built.system_error)
    every, refusals = _listing(program_key, built)
    # S serves every function it can (one build per program, whatever the tests); T has stubs for those the
    # tests name, each calling S's function by its index in S's table
    wanted = wanted_names(tests)
    called = [(index, f) for index, f in enumerate(every) if f.name in wanted]
    refused = {name: why for name, why in refusals.items() if name in wanted}
    side_key = cache.key("cpp-split-program", chain.language, chain.compiler, chain.flags, program,
                         harness_source(HEADER))

    def program_side() -> Build:
        obj = json.loads(_contents(signatures))["object"]
        return _program_side(toolbox, chain, obj, every)

    program_future = beside(lambda: cache.get_or_build(side_key, program_side))
    source = tests_source(called, tests, chain.c)
    tests_key = cache.key("cpp-split-tests", chain.language, chain.compiler, chain.flags, source,
                          harness_source(C_HEADER if chain.c else HEADER), harness_source(TESTS_MAIN))
    tests_built = cache.get_or_build(tests_key, lambda: _tests_side(toolbox, chain, source))
    side = program_future.result()
    failed = failed_sides(side, tests_built, refused, CALLABLE)
    if failed is not None:
        return failed
    assert tests_built.artifact is not None  # failed_sides found both sides built
    job = SplitCommand((PROGRAM_PATH,), (TESTS_PATH,), _contents(tests_built.artifact), dict(RUN_ENV))
    return SplitBuild(job, side.artifact)


def harness(language: str, compiler: str, standard: str, pch_flags: tuple[str, ...],
            source: str) -> Callable[[Toolbox, str, str], SplitBuild]:
    """The ``split_asserts`` of a C++ language entry."""
    chain = Toolchain(language, compiler, standard, pch_flags, source)
    return lambda toolbox, program, tests: split_asserts(chain, toolbox, program, tests)
