"""Interactive problems: the tests' guess-the-number interactor (testlib, compiled against the real
testlib.h) against honest and wrong solutions (AC, WA, TLE, idleness, protocol violations, crashes), the
solution's isolation from the interactor, and the reward hacks of tests/adversarial/checkers/hacks."""

from __future__ import annotations

from pathlib import Path

import pytest

import judgebox
from judgebox import InvalidCases, Verdict
from judgebox.sandbox.config import SandboxConfig
from support.special_judges import BINARY_SEARCH, find_testlib, program

HACKS = Path(__file__).resolve().parents[1] / "adversarial" / "checkers" / "hacks"
SECRETS = ("777\n", "1\n", "1000000\n")


@pytest.fixture(scope="module")
def testlib_judge():
    with judgebox.Judge(SandboxConfig(testlib=find_testlib()), slots=2) as judge:
        yield judge


def guess(*secrets: str, time_limit: float = 1, interactor: str = "guess_interactor.cpp") -> dict:
    return {"inputs": list(secrets or SECRETS), "outputs": [""] * len(secrets or SECRETS),
            "interactor": program(interactor), "time_limit": time_limit}


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
@pytest.mark.parametrize(("code", "expected"), [
    (BINARY_SEARCH, Verdict.AC), ("print('! 5', flush=True)", Verdict.WA), ("input()", Verdict.TLE),
    ("print('what 3', flush=True)", Verdict.PE)])
def test_an_interactor_in_python(judge, code, expected):
    """The mechanism without testlib.h (the fast tier): a Python interactor speaking testlib's exit codes."""
    result = judge.judge(code, guess(interactor="guess_interactor.py"))
    assert [c.verdict for c in result.cases] == [expected] * len(SECRETS), [c.message for c in result.cases]


@pytest.mark.parametrize(("code", "expected", "why"), [
    (BINARY_SEARCH, Verdict.AC, "ok guessed"),
    ("print('! 5', flush=True)", Verdict.WA, "the number was"),
    ("while True:\n    print('? 1', flush=True)\n    input()", Verdict.WA, "more than 25 questions"),
    ("while True: pass", Verdict.TLE, "time limit"),  # never answers: busy
    ("input()", Verdict.TLE, "idleness"),  # waits forever for a prompt that never comes
    ("print('what 3', flush=True)", Verdict.PE, "expected ? or !"),  # protocol violation
    ("print('? three', flush=True)", Verdict.PE, ""),
    ("print('? 5', flush=True)\ninput()\nraise SystemExit(4)", Verdict.RE, "exit code 4"),  # ends first
    ("import os\nprint('? 5', flush=True)\ninput()\nos.kill(os.getpid(), 11)", Verdict.RE, "signal 11"),
])
@pytest.mark.slow  # the testlib interactor compiles testlib.h (about 15 s) once per module
def test_guess_the_number(testlib_judge, code, expected, why):
    result = testlib_judge.judge(code, guess())
    assert [c.verdict for c in result.cases] == [expected] * len(SECRETS), [c.message for c in result.cases]
    assert why in result.cases[0].message


@pytest.mark.slow  # the testlib interactor compiles testlib.h (about 15 s) once per module
def test_one_time_limit_covers_both_sides(testlib_judge):
    """The run's CPU (the solution's and the interactor's, the cgroup's account) meets the case's limit:
    the same solution passes under a generous limit and is TLE under one below its own CPU."""
    busy = "import time\nend = time.process_time() + 0.6\nwhile time.process_time() < end: pass\n" + BINARY_SEARCH
    assert testlib_judge.judge(busy, guess("777\n", time_limit=4)).verdict is Verdict.AC
    assert testlib_judge.judge(busy, guess("777\n", time_limit=0.3)).verdict is Verdict.TLE


@pytest.mark.slow  # the testlib interactor compiles testlib.h (about 15 s) once per module
def test_a_solution_that_runs_on_after_the_interactor_ended(testlib_judge):
    """Once the interactor has decided, the solution has a moment to end; the verdict stays the
    interactor's if it rejected, and a solution that will not end after an accept is TLE."""
    after_wrong = "print('! 5', flush=True)\nwhile True: pass"
    assert testlib_judge.judge(after_wrong, guess("777\n", time_limit=5)).verdict is Verdict.WA
    after_right = BINARY_SEARCH + "\nimport time\ntime.sleep(60)\n"
    result = testlib_judge.judge(after_right, guess("777\n", time_limit=5))
    assert result.verdict is Verdict.TLE and "did not end" in result.cases[0].message


@pytest.mark.slow  # the testlib interactor compiles testlib.h (about 15 s) once per module
def test_memory_is_the_solutions_limit(testlib_judge):
    hog = "x = bytearray(400 << 20)\nfor i in range(0, len(x), 4096): x[i] = 1\nprint('! 1', flush=True)"
    data = dict(guess("777\n"), memory_limit=128)
    assert testlib_judge.judge(hog, data).verdict is Verdict.MLE


@pytest.mark.slow  # the testlib interactor compiles testlib.h (about 15 s) once per module
def test_a_compiled_solution(testlib_judge):
    cpp = r"""
#include <cstdio>
int main() { int lo = 1, hi = 1000000; char a[4];
  while (true) { int mid = (lo + hi) / 2; printf("? %d\n", mid); fflush(stdout);
    if (scanf("%3s", a) != 1) return 1;
    if (a[0] == '=') { printf("! %d\n", mid); fflush(stdout); return 0; }
    if (a[0] == '<') hi = mid - 1; else lo = mid + 1; } }
"""
    assert testlib_judge.judge(cpp, guess(), "cpp").verdict is Verdict.AC


@pytest.mark.slow  # the testlib interactor compiles testlib.h (about 15 s) once per module
def test_a_broken_interactor_scores_zero_and_one_that_cannot_run_is_se(testlib_judge):
    """An interactor's crash or FAIL once the exchange began is blamed on the solution's exchange (WA: a
    solution's queries can reach an interactor's ensuref), so a broken one scores 0, never a mask; one
    that does not compile failed before any solution ran, which the judge saw itself: SE."""
    crashing = {"language": "cpp", "code": "#include <cstdlib>\nint main() { abort(); }"}
    result = testlib_judge.judge(BINARY_SEARCH, dict(guess("777\n"), interactor=crashing))
    assert result.verdict is Verdict.WA and "interactor failed" in result.cases[0].message
    failing = {"language": "cpp", "code": '#include "testlib.h"\nint main(int c, char* v[]) {\n'
               'registerInteraction(c, v); quitf(_fail, "bad input"); }'}
    result = testlib_judge.judge(BINARY_SEARCH, dict(guess("777\n"), interactor=failing))
    assert result.verdict is Verdict.WA and "FAIL" in result.cases[0].message and result.score == 0.0
    broken = {"language": "cpp", "code": "int main( { }"}
    result = testlib_judge.judge(BINARY_SEARCH, dict(guess("777\n"), interactor=broken))
    assert result.verdict is Verdict.SE and "does not compile" in result.cases[0].message


def test_a_solution_that_crashes_first_is_re_whatever_the_interactor_does(judge):
    """A buggy interactor that aborts at end of file: the solution's crash before it is RE; the same abort
    after a clean exit is blamed on the solution's exchange (WA, score 0: never an SE a solution could make
    by what it sends)."""
    aborts = {"language": "python",
              "code": "import os\ntry:\n    input()\nexcept EOFError:\n    os.abort()\n"}
    data = {"inputs": ["1\n"], "outputs": [""], "interactor": aborts}
    assert judge.judge("raise SystemExit(3)", data).verdict is Verdict.RE
    assert judge.judge("print('hello', flush=True)", data).verdict is Verdict.AC
    assert judge.judge("pass", data).verdict is Verdict.WA


def test_refused_before_anything_runs(judge):
    with pytest.raises(InvalidCases, match="unknown checker"):  # the data's checker beside its interactor
        judge.judge(BINARY_SEARCH, dict(guess(), checker="no-such-checker"))
    with pytest.raises(InvalidCases):
        judgebox.Judge.submission("def f(): pass", {"inputs": ["[1]"], "outputs": ["1"], "fn_name": "f",
                                                    "interactor": program("guess_interactor.cpp")})


@pytest.mark.slow  # the testlib interactor compiles testlib.h (about 15 s) once per module
@pytest.mark.parametrize("path", sorted(p for p in HACKS.glob("*.py") if "# problem: guess\n" in p.read_text()),
                         ids=lambda p: p.stem)
def test_interactive_reward_hacks_score_zero(testlib_judge, path):
    result = testlib_judge.judge(path.read_text(), guess("777\n", "123456\n"))
    assert result.score == 0.0, [(c.verdict, c.message) for c in result.cases]
    assert Verdict.SE not in {c.verdict for c in result.cases}, [c.message for c in result.cases]


# Attacks on the checker library, checker programs and interactive runs.
#
# Each attack is an output or a solution an RL policy could find. Attacks that still succeed are strict
# xfails (the fix flips them); blocked ones are kept as regression data.

CLOSE_STDIN_THEN_ASK = """
import os, time
os.close(0)                  # the interactor's answer now meets a closed pipe: EPIPE
print("? 5", flush=True)
time.sleep(0.5)              # let the interactor end first
"""


def test_closing_stdin_does_not_buy_an_se_from_a_python_interactor(judge):
    data = {"inputs": ["777\n"], "outputs": [""], "interactor": program("guess_interactor.py"), "time_limit": 1}
    result = judge.judge(CLOSE_STDIN_THEN_ASK, data)
    assert result.cases[0].verdict is not Verdict.SE, result.cases[0].message
    assert result.score == 0.0
