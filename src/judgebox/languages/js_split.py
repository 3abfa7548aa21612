"""JavaScript and TypeScript assert cases with the program and the tests in two processes.

The HumanEval-X / MultiPL-E form: the program defines functions, the tests call them and check the results
with ``console.assert``, ``require('assert')`` / ``node:assert`` or (TypeScript) ``import assert from
'assert'``. Run in one process, a program can copy the pass token itself, or disarm the assertion
machinery (replace ``console``, empty ``assert``'s exports, patch prototypes) before the tests run. Here
the tests run in a process of their own (T, ``harnesses/js_tests.js``) that never runs program code; the
program runs in S (``harnesses/js_program.js``), which holds neither the tests, nor the token, nor the
report. Every program name the tests use is a proxy in T whose calls go to S over ``Fd.CHANNEL`` and
bring the result back as data: undefined, null, booleans, numbers (NaN, the infinities and -0 too),
BigInt, strings, arrays, plain objects, Map, Set and Date, rebuilt in T from T's own constructors.
Anything else of S's (instances of its classes, its functions) stays in S behind a handle that T can only
call or read properties of, by asking S. The tests' functions (a comparator, say) cross to S as call-only
callbacks: called with data, answering data; no other object of T is reachable from S. An exception in S
reaches the tests as an ordinary Error. T writes the pass (``asserts`` and the token) only after the
tests ran to their end (``beforeExit``, so asynchronous tests too) with no assertion failed and no promise
left pending; a failed ``console.assert``, an uncaught ``AssertionError``, or a failed assertion inside a
callback the program called (even if the program caught it) writes ``assertion-failed`` and exits 1.

Program names that the tests' own world defines (JavaScript's and Node's globals, ``require``,
``assert``...) give way to it: a program's ``JSON`` or ``assert`` is never the one the tests use.
The program's top-level names come from S (``var``/``function`` globals and, through the in-process
inspector, ``let``/``const``/``class``); S may lie about them, which only gives the tests proxies to S.

The tests are prepared once per distinct test code, in a sandboxed build cached by content
(``harnesses/js_prepare_tests.js``): TypeScript tests are transpiled (CommonJS, ``esModuleInterop``, so
``import assert from "assert"`` works), and tests of either language that do not compile are the
caller's fault (SE), never the program's. The program is built once per distinct program (TypeScript:
transpiled, as for stdio cases) and is the same artifact for every case.

Known differences from running the tests in the program's process: arguments cross by value (a program
that mutates an argument does not change the tests' copy), and the program's own asynchronous work never
runs (S has no event loop while it serves T: a program's promises resolve to handles, never awaited).
"""

from __future__ import annotations

import os
from pathlib import Path

from judgebox.languages.spec import LanguageSpec, SelfTest, SplitBuild, Toolbox
from judgebox.sandbox.config import RUN_ENV
from judgebox.sandbox.slot import SplitCommand

HARNESSES = Path(__file__).with_name("harnesses")
NODE = "/usr/bin/node"
# Debian's Node modules (lodash; typescript itself): Node searches this folder only when told. Both sides
# get it: the program's require finds lodash as in one process, and it is under /usr, where the tests'
# require may look.
NODE_LIBRARIES = "/usr/share/nodejs"


def _script(name: str) -> str:
    return (HARNESSES / name).read_text(encoding="utf-8")


PROGRAM_SIDE = _script("js_program.js")
TESTS_SIDE = _script("js_tests.js")
PROGRAM_ARGV = (NODE, "-e", PROGRAM_SIDE)  # S: evaluates /proc/self/fd/5 and serves T
TESTS_ARGV = (NODE, "-e", TESTS_SIDE)  # T: runs the tests of fd 6 against proxies to S
ENV = {**RUN_ENV, "NODE_PATH": NODE_LIBRARIES}


def _tests_spec(typescript: bool) -> LanguageSpec:
    """A build that turns the tests into the JavaScript T runs (a compile error: the tests are broken)."""
    return LanguageSpec(
        f"{'typescript' if typescript else 'javascript'}-split-tests", "tests.ts" if typescript else "tests.js",
        (), SelfTest(""), compile=(NODE, "-e", _script("js_prepare_tests.js").replace("{", "{{").replace("}", "}}"),
                                   "{source}", "{workdir}/prepared.js"),
        artifact="prepared.js", env={"NODE_PATH": NODE_LIBRARIES})


TESTS_SPECS = {False: _tests_spec(False), True: _tests_spec(True)}


def _split(toolbox: Toolbox, language: str, program: str, tests: str) -> SplitBuild:
    built = toolbox.build(toolbox.language(language), program)
    if built.artifact is None:
        return SplitBuild(compile_error=built.compile_error, system_error=built.system_error)
    prepared = toolbox.build(TESTS_SPECS[language == "typescript"], tests)
    if prepared.artifact is None:
        return SplitBuild(system_error=prepared.system_error
                          or f"the test code does not compile: {prepared.compile_error or ''}".strip())
    code = os.pread(prepared.artifact.fd, prepared.artifact.size, 0)
    return SplitBuild(SplitCommand(PROGRAM_ARGV, TESTS_ARGV, code, dict(ENV)), built.artifact)


def javascript(toolbox: Toolbox, program: str, tests: str) -> SplitBuild:
    """The ``split_asserts`` of the JavaScript entry."""
    return _split(toolbox, "javascript", program, tests)


def typescript(toolbox: Toolbox, program: str, tests: str) -> SplitBuild:
    """The ``split_asserts`` of the TypeScript entry (the program is the transpiled JavaScript)."""
    return _split(toolbox, "typescript", program, tests)
