"""Conformance of every language in the catalog: the same scenarios, each language's own programs.

The programs live in ``tests/languages/conformance/<language>.toml``, one file per language of
``judgebox.languages.LANGUAGES``; the tests below pick every language up from the catalog, so adding a
language is its catalog entry plus that one file (a language without it fails here, by name). A file holds:

- ``sum`` (AC: print the sum of the two numbers on stdin), ``wrong`` (WA: prints a wrong number),
  ``crash`` (RE: a non-zero exit or a signal), ``busy`` (TLE under ``cpu_time=1``), ``memory`` (MLE: touches
  about 1 GiB under ``memory_mb=512``), ``threads`` (AC: 8 threads, or the language's equivalent, each sum a
  slice of ``range(800000)``; print the total, under 512 MiB), ``syntax_error`` and ``flood`` (OLE: endless
  output under ``output_bytes=1 MiB``);
- ``syntax_error_verdict``: ``"CE"`` where a compile step (or Python's harness) finds the error, ``"RE"``
  where the interpreter only finds it when it starts;
- ``comment``: the line-comment marker, to make a program unique (the build cache tests);
- ``threads_skip = "why"`` instead of ``threads`` for a language with neither threads nor processes;
- ``like = "other"``: take the other language's programs (the C++ standards share one set);
- ``[asserts]`` for every language that takes assert cases (the HumanEval-X form: the tests are appended to
  the program): ``solution``, ``tests`` (a list; each must be AC), ``failing_tests`` (WA or RE),
  ``exits_before_tests`` and ``exits_in_call`` (a solution that leaves with status 0 before the tests end:
  never AC, as a pass needs positive evidence that the tests ran to their end).

The echo scenario runs the spec's own ``self_test``. Languages whose toolchain is missing are skipped with
the reason shown (``pytest -rs``).
"""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import pytest

from judgebox import Case, InvalidCases, Limits, Verdict
from judgebox.languages import LANGUAGES, LanguageSpec, get, missing_tools
from judgebox.languages.build import build
from support.conformance import PROGRAMS, programs, takes_asserts

MiB = 1024 * 1024
THREADS_TOTAL = f"{sum(range(800_000))}\n"


@dataclass(frozen=True)
class Scenario:
    verdict: Verdict | None  # None: the language's ``syntax_error_verdict``
    stdin: str = "123456789 987654321\n"
    expected: str = "1111111110\n"
    limits: Limits = field(default_factory=Limits)


SCENARIOS = {
    "sum": Scenario(Verdict.AC),
    "wrong": Scenario(Verdict.WA),
    "crash": Scenario(Verdict.RE),
    "busy": Scenario(Verdict.TLE, limits=Limits(cpu_time=1)),
    "memory": Scenario(Verdict.MLE, limits=Limits(cpu_time=10, memory_mb=512)),
    "threads": Scenario(Verdict.AC, stdin="", expected=THREADS_TOTAL, limits=Limits(cpu_time=10, memory_mb=512)),
    "syntax_error": Scenario(None),
    "flood": Scenario(Verdict.OLE, limits=Limits(output_bytes=1 * MiB)),
}
assert set(SCENARIOS) == set(PROGRAMS)


def languages(only=lambda spec: True) -> list:
    """Every catalog language ``only`` keeps; those missing a toolchain are skipped, with the reason."""
    params = []
    for spec in LANGUAGES:
        if not only(spec):
            continue
        missing = missing_tools(spec)
        marks = [pytest.mark.skip(reason=f"{spec.name}: not available here, missing {', '.join(missing)}")] \
            if missing else []
        params.append(pytest.param(spec, id=spec.name, marks=marks))
    return params


def explain(result) -> str:
    """What to show when a verdict is not the expected one."""
    if not result.cases:
        return f"{result.verdict}: {result.message}"
    case = result.cases[0]
    return (f"{result.verdict} ({case.message}; exit {case.exit_code}, signal {case.signal}, "
            f"{case.cpu_time:.2f} s CPU, {case.memory_bytes // MiB} MiB)\n"
            f"stdout: {case.stdout[:500]!r}\nstderr: {case.stderr[:2000]}\n{result.message[:2000]}")


# -- the scenarios ---------------------------------------------------------------------------------------


@pytest.mark.slow  # about 12 s in all on this busy 2-core machine
@pytest.mark.parametrize("spec", languages())
def test_echo_self_test(judge, spec):
    test = spec.self_test
    result = judge.judge(test.code, [Case.stdio(test.stdin, test.expected)], language=spec.name)
    assert result.verdict is Verdict.AC, explain(result)
    assert result.cases[0].stdout.split() == test.expected.split()


@pytest.mark.parametrize("scenario", PROGRAMS)
@pytest.mark.parametrize("spec", languages())
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_verdict(judge, spec, scenario):
    data = programs(spec)
    if scenario == "threads" and "threads" not in data:
        pytest.skip(f"{spec.name}: {data['threads_skip']}")
    setup = SCENARIOS[scenario]
    expected = setup.verdict or Verdict(data["syntax_error_verdict"])
    result = judge.judge(data[scenario], [Case.stdio(setup.stdin, setup.expected)], language=spec.name,
                         limits=setup.limits)
    assert result.verdict is expected, f"{spec.name} {scenario}: expected {expected}, got {explain(result)}"
    if expected is Verdict.CE:
        assert result.message, "a compile error comes with the compiler's message"
    if scenario == "busy":
        assert "CPU" in result.cases[0].message, "the CPU limit, not the wall-clock backstop, stops a busy loop"


# -- building once ---------------------------------------------------------------------------------------


@pytest.mark.slow  # about 20 s in all on this busy 2-core machine
@pytest.mark.parametrize("spec", languages(lambda spec: spec.runner != "python-fork"))
def test_a_program_is_built_once(judge, spec):
    """However many cases and identical submissions (even at the same time), one build; then every
    submission of the same program is a cache hit that compiles nothing."""
    data = programs(spec)
    code = f"{data['sum']}\n{data['comment']} build-once {uuid.uuid4().hex}\n"
    cache_ = judge._programs.cache
    hits, misses = cache_.hits, cache_.misses
    def cases(n: int) -> list[Case]:  # submissions apart (identical ones are judged once), one program
        return [Case.stdio("1 2\n", "3\n"), Case.stdio(f"{40 + n} 2\n", f"{42 + n}\n")]

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda n: judge.judge(code, cases(n), language=spec.name), range(4)))
    assert [r.verdict for r in results] == [Verdict.AC] * 4, explain(next(r for r in results if not r.score))
    assert cache_.misses - misses == 1, "4 submissions of 2 cases each: one build"
    assert cache_.hits - hits == 7

    again = judge.judge(code, cases(4), language=spec.name)
    assert again.verdict is Verdict.AC
    assert (cache_.misses - misses, cache_.hits - hits) == (1, 9)

    first = build(judge._pool.submit, cache_, spec, spec.source_for(code), judge.config.cache_dir)
    assert first.compile_time == 0.0, "a cache hit compiles nothing"
    assert first.artifact is build(judge._pool.submit, cache_, spec, spec.source_for(code),
                                   judge.config.cache_dir).artifact, "the very same sealed memfd"
    assert cache_.misses - misses == 1


@pytest.mark.slow  # about 10 s in all on this busy 2-core machine
@pytest.mark.parametrize("spec", languages(lambda spec: spec.compiled))
def test_a_build_costs_compile_time_once_and_compile_errors_are_cached(judge, spec):
    data = programs(spec)
    code = f"{data['sum']}\n{data['comment']} compile-time {uuid.uuid4().hex}\n"
    cache_ = judge._programs.cache
    first = build(judge._pool.submit, cache_, spec, spec.source_for(code), judge.config.cache_dir)
    assert first.artifact is not None and first.compile_time > 0
    second = build(judge._pool.submit, cache_, spec, spec.source_for(code), judge.config.cache_dir)
    assert second.artifact is first.artifact and second.compile_time == 0.0

    broken = f"{data['syntax_error']}\n{data['comment']} {uuid.uuid4().hex}\n"
    misses = cache_.misses
    verdicts = [judge.judge(broken, [Case.stdio("", "")], language=spec.name).verdict for _ in range(2)]
    assert verdicts == [Verdict.CE, Verdict.CE]
    assert cache_.misses - misses == 1, "the same broken program fails to compile once"


# -- assert cases (HumanEval-X form) --------------------------------------------------------------------


@pytest.mark.parametrize("spec", languages(takes_asserts))
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_assert_cases_pass_when_the_tests_run_to_their_end(judge, spec):
    asserts = programs(spec)["asserts"]
    for tests in asserts["tests"]:
        result = judge.judge(asserts["solution"], [Case.asserts(tests)], language=spec.name)
        assert result.verdict is Verdict.AC, f"{spec.name}:\n{tests}\n{explain(result)}"


@pytest.mark.parametrize("program", ["failing_tests", "exits_before_tests", "exits_in_call"])
@pytest.mark.parametrize("spec", languages(takes_asserts))
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_assert_cases_fail_without_evidence(judge, spec, program):
    """A failing assertion (JavaScript's ``console.assert`` included, which never fails the process) and a
    solution that exits with status 0 before the tests end (C++ ``exit(0)``, Java ``System.exit(0)``,
    JavaScript ``process.exit(0)``) are never AC."""
    asserts = programs(spec)["asserts"]
    if program == "failing_tests":
        code, tests = asserts["solution"], asserts["failing_tests"]
    else:
        code, tests = asserts[program], asserts["tests"][0]
    result = judge.judge(code, [Case.asserts(tests)], language=spec.name)
    assert result.verdict in (Verdict.WA, Verdict.RE), f"{spec.name} {program}: {explain(result)}"
    if program != "failing_tests" and spec.split_asserts is None:  # split: the run's status is the tests' side's
        assert result.cases[0].exit_code == 0, "the program did leave with status 0"


@pytest.mark.parametrize("spec", languages(lambda spec: not takes_asserts(spec)))
def test_assert_cases_are_refused_without_a_harness(judge, spec):
    with pytest.raises(InvalidCases, match="no assert harness"):
        judge.judge(programs(spec)["sum"], [Case.asserts("true")], language=spec.name)


# -- the quirks of single languages ----------------------------------------------------------------------

JAVA_HELPER_AND_MAIN = """
import java.util.*;
public class Adder {
    static long add(long a, long b) { return a + b; }
}
public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        System.out.println(Adder.add(in.nextLong(), in.nextLong()));
    }
}
"""
JAVA_PUBLIC_SOLUTION = """
import java.util.*;
public final class Solution {
    public int add(int a, int b) { return a + b; }
}
"""


def available(name: str) -> LanguageSpec:
    spec = next(s for s in LANGUAGES if s.name == name)
    missing = missing_tools(spec)
    if missing:
        pytest.skip(f"{name}: not available here, missing {', '.join(missing)}")
    return get(name)


@pytest.mark.slow  # about 6 s in all on this busy 2-core machine
def test_java_public_class_with_another_name_than_main(judge):
    """The file is Main.java: a public class of another name loses its ``public`` (the prepare hook)."""
    available("java")
    result = judge.judge(JAVA_HELPER_AND_MAIN, [Case.stdio("2 40\n", "42\n")], language="java")
    assert result.verdict is Verdict.AC, explain(result)
    tests = programs(get("java"))["asserts"]["tests"][0]
    result = judge.judge(JAVA_PUBLIC_SOLUTION, [Case.asserts(tests)], language="java")
    assert result.verdict is Verdict.AC, explain(result)


def test_php_with_and_without_open_tag(judge):
    available("php")
    body = "[$a, $b] = array_map('intval', explode(' ', trim(fgets(STDIN))));\necho $a + $b, \"\\n\";\n"
    for code in (body, "<?php\n" + body, "<?php " + body + "?>\n"):
        result = judge.judge(code, [Case.stdio("2 40\n", "42\n")], language="php")
        assert result.verdict is Verdict.AC, f"{code!r}: {explain(result)}"
        assert result.cases[0].stdout == "42\n"


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_js_solution_cannot_silence_console_assert(judge, language):
    """The harness makes ``console.assert`` record failures; a solution must not be able to undo that."""
    available(language)
    for silencer in ("console.assert = () => {};", "Array.prototype.push = function () { return 0; };",
                     "Object.defineProperty(console, 'assert', { value: () => {} });"):
        code = f"{silencer}\nconst add = (a, b) => a + b;\n"
        result = judge.judge(code, [Case.asserts("console.assert(add(2, 2) === 5)\n")], language=language)
        assert result.verdict in (Verdict.WA, Verdict.RE), f"{silencer}: {explain(result)}"


@pytest.mark.slow  # about 7 s in all on this busy 2-core machine
@pytest.mark.parametrize("language", ["javascript", "typescript"])
def test_js_asynchronous_tests_run_to_their_end_before_the_verdict(judge, language):
    """The token is written once the event loop ran dry: a failure in a promise or a timer counts."""
    available(language)
    code = "const add = (a, b) => a + b;\n"
    expected = {
        "Promise.resolve().then(() => console.assert(add(2, 3) === 5));\n": Verdict.AC,
        "setTimeout(() => console.assert(add(2, 3) === 5), 20);\n": Verdict.AC,
        "Promise.resolve().then(() => console.assert(add(2, 2) === 5));\n": Verdict.WA,
        "setTimeout(() => console.assert(add(2, 2) === 5), 20);\n": Verdict.WA,
        "setTimeout(() => { throw new Error('late'); }, 20);\n": Verdict.RE,
    }
    for tests, verdict in expected.items():
        result = judge.judge(code, [Case.asserts(tests)], language=language)
        assert result.verdict is verdict, f"{tests}: {explain(result)}"


JAVA_MAIN_IN_SOLUTION = """
import java.util.*;
public class Solution {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        System.out.println(in.nextLong() + in.nextLong());
    }
}
"""


@pytest.mark.slow  # about 6 s in all on this busy 2-core machine
def test_java_main_in_another_class_gets_a_launcher(judge):
    """Models often write ``public class Solution`` with its own main: it runs through a launcher class Main,
    and the same program still takes assert cases (whose tests bring their own Main)."""
    available("java")
    result = judge.judge(JAVA_MAIN_IN_SOLUTION, [Case.stdio("2 40\n", "42\n")], language="java")
    assert result.verdict is Verdict.AC, explain(result)
    with_method = JAVA_MAIN_IN_SOLUTION.replace("public static void main", "public int add(int a, int b) "
                                                "{ return a + b; }\n    public static void main")
    tests = programs(get("java"))["asserts"]["tests"][0]
    result = judge.judge(with_method, [Case.asserts(tests)], language="java")
    assert result.verdict is Verdict.AC, explain(result)
