"""The public API: sync and async entry points, threads, verl's case forms, bad input, harnesses."""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import ClassVar

import pytest

import judgebox
from judgebox import Case, Limits, Verdict

SUM = "a, b = map(int, input().split())\nprint(a + b)"


def test_module_level_judge_takes_verl_form():
    result = judgebox.judge(SUM, {"inputs": ["1 2", "5 5"], "outputs": ["3", "10"]})
    assert (result.verdict, result.score, result.total) == (Verdict.AC, 1.0, 2)


def test_async_twin_runs_many_at_once(judge):
    async def main():
        return await asyncio.gather(*(judge.judge_async(SUM, [Case.stdio(f"{i} {i}", str(2 * i))])
                                      for i in range(20)))

    results = asyncio.run(main())
    assert [r.verdict for r in results] == [Verdict.AC] * 20


def test_module_level_async():
    result = asyncio.run(judgebox.judge_async("print(input())", [Case.stdio("x", "x")]))
    assert result.verdict is Verdict.AC


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
def test_many_threads_get_their_own_results(judge):
    def one(i):
        return judge.judge(f"print({i} * int(input()))", [Case.stdio("3", str(3 * i)), Case.stdio("0", "0")])

    with ThreadPoolExecutor(48) as pool:
        results = list(pool.map(one, range(200)))
    assert all(r.verdict is Verdict.AC for r in results)
    assert [r.cases[0].stdout.strip() for r in results] == [str(3 * i) for i in range(200)]


def test_score_counts_every_case_and_headline_is_first_failure(judge):
    cases = [Case.stdio("1 1", "2"), Case.stdio("1 1", "3"), Case.stdio("", ""), Case.stdio("2 2", "4")]
    result = judge.judge(SUM, cases)
    assert [c.verdict for c in result.cases] == [Verdict.AC, Verdict.WA, Verdict.RE, Verdict.AC]
    assert (result.verdict, result.score) == (Verdict.WA, 0.5)


def test_stop_on_first_failure_reports_cases_up_to_it(judge):
    cases = [Case.stdio("1 1", "2"), Case.stdio("1 1", "3")] + [Case.stdio("2 2", "4")] * 5
    result = judge.judge(SUM, cases, stop_on_first_failure=True)
    assert [c.verdict for c in result.cases] == [Verdict.AC, Verdict.WA]
    assert (result.verdict, result.total, result.score) == (Verdict.WA, 7, 1 / 7)


def test_syntax_error_is_compile_error_with_message(judge):
    result = judge.judge("def f(:\n  pass", [Case.stdio("", "")])
    assert result.verdict is Verdict.CE
    assert "SyntaxError" in result.message and result.score == 0.0


def test_bad_input_raises_the_documented_errors(judge):
    with pytest.raises(judgebox.UnknownLanguage, match="brainfuck"):
        judge.judge(SUM, [Case.stdio("", "")], language="brainfuck")
    with pytest.raises(judgebox.InvalidCases):
        judge.judge(SUM, {"inputs": ["1"], "outputs": []})
    with pytest.raises(judgebox.InvalidCode):
        judge.judge("  ", [Case.stdio("", "")])
    with pytest.raises(judgebox.UnknownChecker):
        judge.judge(SUM, [Case.stdio("", "")], checker="nope")
    assert issubclass(judgebox.UnknownLanguage, judgebox.JudgeboxError)


def test_the_module_level_entry_points_raise_judgebox_errors():
    """judgebox.judge and judge_async refuse bad input as a judge does (tests/unit/test_errors.py has the rest)."""
    for code, cases, options, error in ((42, [Case.stdio("", "")], {}, judgebox.InvalidCode),
                                        (SUM, "not json", {}, judgebox.InvalidCases),
                                        (SUM, [Case.stdio("", "")], {"language": "cobol"}, judgebox.UnknownLanguage),
                                        (SUM, [Case.stdio("", "")], {"limits": "x"}, judgebox.InvalidLimits)):
        with pytest.raises(error):
            judgebox.judge(code, cases, **options)
        with pytest.raises(error):
            asyncio.run(judgebox.judge_async(code, cases, **options))


def test_a_closed_judge_raises_judge_closed():
    closed = judgebox.Judge(slots=1)
    closed.close()
    with pytest.raises(judgebox.JudgeClosed, match="closed") as caught:
        closed.judge(SUM, [Case.stdio("1 2", "3")])
    assert isinstance(caught.value, RuntimeError)  # as before: an `except RuntimeError` still catches it
    with pytest.raises(judgebox.JudgeClosed):
        asyncio.run(closed.judge_async(SUM, [Case.stdio("1 2", "3")]))
    with pytest.raises(judgebox.JudgeClosed):  # the Backend contract: a closed backend raises, on every path
        list(closed.judge_many([closed.submission(SUM, [Case.stdio("1 2", "3")])]))


def test_closing_with_cancel_ends_the_running_case_as_se_and_the_queued_ones_at_once():
    """``close(cancel=True)``: the running loop ends as SE (never a verdict of the program), the case queued
    behind it raises JudgeClosed, and neither waits for the loop's 30 s CPU limit."""
    judge = judgebox.Judge(slots=1, dedupe=False)
    outcomes: dict[str, object] = {}

    def call(name: str, cases: int) -> None:
        try:
            outcomes[name] = judge.judge(f"while True:\n    pass  # {name}", [Case.stdio("", "")] * cases,
                                         limits=Limits(cpu_time=30))
        except judgebox.JudgeboxError as exc:
            outcomes[name] = exc

    callers = [threading.Thread(target=call, args=("alone", 1))]
    callers[0].start()
    while judge._pool.busy == 0:  # the loop is running
        time.sleep(0.01)
    callers.append(threading.Thread(target=call, args=("queued", 1)))
    callers[1].start()
    while "queued" not in outcomes and not any(g._queue for t in judge._pool._ready for g in t._groups):
        time.sleep(0.01)
    judge.close(cancel=True)
    for caller in callers:
        caller.join(timeout=10)
        assert not caller.is_alive(), "a caller waited for the loop's CPU limit"
    alone, queued = outcomes["alone"], outcomes["queued"]
    assert isinstance(alone, judgebox.JudgeResult) and alone.verdict is Verdict.SE, alone
    assert "closed" in alone.cases[0].message
    assert isinstance(queued, judgebox.JudgeClosed), queued
    with pytest.raises(judgebox.JudgeClosed):
        judge.judge(SUM, [Case.stdio("1 2", "3")])


def test_bad_submission_does_not_disturb_others_in_flight(judge):
    def one(i):
        try:
            return judge.judge(SUM if i % 3 else "def (", {"inputs": ["1 2"], "outputs": ["3"]},
                               language="python" if i % 5 else "cobol")
        except judgebox.JudgeboxError as exc:
            return exc

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(one, range(60)))
    for i, r in enumerate(results):
        expected = judgebox.UnknownLanguage if i % 5 == 0 else Verdict.CE if i % 3 == 0 else Verdict.AC
        assert (isinstance(r, expected) if isinstance(expected, type) else r.verdict is expected), (i, r)


class TestCallHarness:
    def test_values_come_back_through_a_side_channel(self, judge):
        code = "def f(xs):\n    print('debug', xs)\n    return tuple(x * 2 for x in xs)"
        result = judge.judge(code, {"inputs": ["[1, 2]"], "outputs": ["[2, 4]"], "fn_name": "f"})
        assert result.verdict is Verdict.AC
        assert "debug" in result.cases[0].stdout

    def test_solution_method_wins_over_a_global_of_the_same_name(self, judge):
        code = "import re\nfrom re import search\nclass Solution:\n    def search(self, x):\n        return x + 1"
        assert judge.judge(code, {"inputs": ["1"], "outputs": ["2"], "fn_name": "search"}).verdict is Verdict.AC

    def test_raising_is_a_runtime_error_not_a_pass(self, judge):
        code = "def f(x):\n    raise ValueError('no')"
        result = judge.judge(code, {"inputs": ["1"], "outputs": ["1"], "fn_name": "f"})
        assert result.verdict is Verdict.RE and "ValueError" in result.cases[0].stderr

    def test_missing_function_says_so(self, judge):
        result = judge.judge("x = 1", {"inputs": ["1"], "outputs": ["1"], "fn_name": "f"})
        assert result.verdict is Verdict.RE and "defines no function" in result.cases[0].stderr

    def test_eq_override_does_not_fool_value_comparison(self, judge):
        code = "class Any(int):\n    def __eq__(self, o): return True\ndef f(x):\n    return Any(0)"
        assert judge.judge(code, {"inputs": ["1"], "outputs": ["5"], "fn_name": "f"}).verdict is Verdict.WA


class TestAssertHarness:
    TESTS: ClassVar[dict] = {"inputs": [""], "outputs": [None], "assert_case": ["assert f(2) == 4\nassert f(3) == 6"]}

    def test_passes_only_when_asserts_run_to_the_end(self, judge):
        assert judge.judge("def f(x): return 2 * x", self.TESTS).verdict is Verdict.AC
        assert judge.judge("def f(x): return 4", self.TESTS).verdict is Verdict.WA

    @pytest.mark.parametrize("trick", [
        "import sys\nsys.exit(0)", "import os\nos._exit(0)", "raise SystemExit", "raise SystemExit(0)",
        "import atexit, os\natexit.register(os._exit, 0)\nimport sys\nsys.exit(0)",
        "import builtins\nbuiltins.AssertionError = type('X', (Exception,), {})",
        "import os\nos.write(3, b'asserts\\n' + b'x' * 32)\nos._exit(0)",
    ])
    def test_leaving_early_never_passes(self, judge, trick):
        assert judge.judge("def f(x): return 0\n" + trick, self.TESTS).verdict in (Verdict.WA, Verdict.RE)

    def test_patched_builtins_are_restored_before_the_asserts(self, judge):
        code = "import builtins\nbuiltins.abs = lambda x: 0\ndef f(x): return 1.0"
        tests = {"inputs": [""], "outputs": [None], "assert_case": ["assert abs(f(1) - 2.0) < 1e-6"]}
        assert judge.judge(code, tests).verdict is Verdict.WA


def test_per_case_limits_override_the_submission(judge):
    spin = "import sys\nn = int(input())\nwhile n: pass\nprint('done')"
    cases = [Case.stdio("0", "done"), Case.stdio("1", "done", limits=Limits(cpu_time=0.3))]
    result = judge.judge(spin, cases, limits=Limits(cpu_time=30))
    assert [c.verdict for c in result.cases] == [Verdict.AC, Verdict.TLE]
    assert result.cases[1].cpu_time < 2


def test_test_code_that_does_not_compile_is_a_system_error_not_a_wrong_answer(judge):
    result = judge.judge("def f(x): return x", {"inputs": [""], "outputs": [None], "assert_case": ["assert f(1) =="]})
    assert result.verdict is Verdict.SE and "test code does not compile" in result.message


def test_standard_streams_look_like_the_interpreters(judge):
    """Contest templates (FastIO) read ``sys.stdout.mode``; a judge's own streams must carry it too."""
    code = "import sys\nprint(sys.stdin.mode, sys.stdout.mode, sys.stderr.mode, sys.stdin.read())"
    assert judge.judge(code, [Case.stdio("x", "r w w x\n")]).verdict is Verdict.AC


def test_finalizers_run_at_exit_as_under_the_interpreter(judge):
    """Contest templates keep output in an object that writes it when finalized (``IOBase`` at exit)."""
    code = ("import os\n\nclass Late:\n    def __init__(self):\n        self.me = self  # a cycle: only the"
            " collector frees it\n    def __del__(self):\n        os.write(1, b'late\\n')\n\nkeep = Late()\n"
            "print('early')\n")
    result = judge.judge(code, [Case.stdio("", "early\nlate\n")], checker="exact")
    assert result.verdict is Verdict.AC, result.cases[0].stdout


@pytest.mark.parametrize("value, expected", [("1", "1 AC"), ("0", "InvalidInput"), ("two", "InvalidInput")])
def test_the_process_wide_judge_takes_its_slot_count_from_the_environment(value, expected):
    import os
    import subprocess
    import sys

    script = ("import judgebox\nfrom judgebox.judging.judge import default_judge\ntry:\n"
              "    verdict = judgebox.judge('print(1)', [judgebox.Case.stdio('', '1')]).verdict\n"
              "    print(default_judge().slots, verdict)\n"
              "except judgebox.InvalidInput as exc:\n    print(type(exc).__name__, exc)\n")
    run = subprocess.run([sys.executable, "-c", script], env={**os.environ, "JUDGEBOX_SLOTS": value},
                         capture_output=True, text=True, timeout=120)
    assert run.stdout.startswith(expected), run.stderr


def test_an_uncaught_exception_goes_through_the_programs_excepthook(judge):
    """As under the interpreter: the program's own ``sys.excepthook`` reports it, and the exit status is 1."""
    code = ("import sys\nsys.excepthook = lambda kind, value, tb: print('hooked', kind.__name__, tb is not None)\n"
            "raise KeyError('x')\n")
    case = judge.judge(code, [Case.stdio("", "")]).cases[0]
    assert (case.verdict, case.exit_code, case.stdout) == (Verdict.RE, 1, "hooked KeyError True\n")
