"""Adversarial review (round 3, issue 11) of dedupe (judgebox.dedupe through judgebox.Judge): what a policy
could get from a result it did not earn in this run. Real judge, real sandbox.

Held (regression data): submissions that differ in anything the verdict depends on, spelled as a policy or
a dataset might spell them alike, are judged apart; a waiter whose owner was cancelled judges for itself.

Since issue 17: a key's first judgement stands, TLE included, and a program that reads the clock or
randomness is judged once per key: re-judging some verdicts and not others raised a flaky program's reward
(the module notes of judgebox.dedupe; the statistics are in tests/adversarial/test_shared_work.py).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import tracemalloc

import pytest

import judgebox
from judgebox import Case, Limits, Verdict
from judgebox.dedupe import ResultCache


@pytest.fixture
def fresh(judge):  # the session's judge, with a cache of this test's own
    kept, judge.dedupe = judge.dedupe, ResultCache()
    yield judge
    judge.dedupe = kept


def _runs(judge, submission) -> tuple[judgebox.JudgeResult, int]:
    """The result, and how many jobs the pool started for it."""
    before = judge.stats()["jobs_started"]
    result = judge.judge_submission(submission)
    return result, judge.stats()["jobs_started"] - before


def _unique(code: str) -> str:
    return f"{code}\n# {secrets.token_hex(8)}"  # no other test's entry


# -- held ------------------------------------------------------------------------------------------------

def test_spellings_that_judge_differently_are_judged_apart(fresh):
    """Pairs a caller might think alike: each member judged on its own, with its own verdict."""
    reads = "import sys\nx = sys.stdin.buffer.read()\nprint(len(x))"
    spins = "n = 0\nfor i in range(20_000_000):\n    n += i\nprint(0)"  # about a second of CPU
    pairs = [
        # the same text as stdin with and without its newline
        (reads, [Case.stdio("ab\n", "3")], [Case.stdio("ab", "3")]),
        # stdin given as bytes, and as text that differs in a line ending only
        (reads, [Case.stdio(b"ab\n", "3")], [Case.stdio("ab\r\n", "3")]),
        # a per-case limit the program cannot live with, against none
        (spins, [Case.stdio("", "0")], [Case.stdio("", "0", limits=Limits(cpu_time=0.1))]),
    ]
    for code, first, second in pairs:
        code = _unique(code)  # this pair's alone
        one, ran_one = _runs(fresh, fresh.submission(code, first))
        two, ran_two = _runs(fresh, fresh.submission(code, second))
        assert ran_one >= 1 and ran_two >= 1, (first, second)
        assert one.verdict is Verdict.AC and two.verdict is not Verdict.AC, (one, two)
    value = _unique("def f():\n    return 1\n")
    results = [fresh.judge(value, [Case.call("f", [], expected)]).verdict for expected in (1, 1.0, True)]
    assert results[0] is Verdict.AC  # the value checker tells True from 1; each key judged for itself
    assert fresh.stats()["dedupe"]["hits"] == 0, fresh.stats()


def test_the_same_program_under_another_stop_rule_is_judged_again(fresh):
    code = _unique("print(int(input()) * 2)")
    cases = [Case.stdio("1\n", "3\n"), Case.stdio("2\n", "4\n")]
    stopped, _ = _runs(fresh, fresh.submission(code, cases, stop_on_first_failure=True))
    every, ran = _runs(fresh, fresh.submission(code, cases))
    assert len(stopped.cases) == 1 and len(every.cases) == 2 and ran >= 1
    assert every.verdict is Verdict.WA and every.passed == 1


def test_a_waiter_whose_owner_is_cancelled_gets_a_judgement_of_its_own(fresh):
    """Two identical async callers; the owner's task is cancelled while its case runs: the waiter does not
    hang and does not inherit a cancellation, it judges and gets the real verdict."""
    submission = fresh.submission(_unique("import time\ntime.sleep(1.5)\nprint(7)"), [Case.stdio("", "7")])

    async def both() -> judgebox.JudgeResult:
        owner = asyncio.ensure_future(fresh.judge_submission_async(submission))
        await asyncio.sleep(0.3)
        waiter = asyncio.ensure_future(fresh.judge_submission_async(submission))
        await asyncio.sleep(0.3)
        owner.cancel()
        return await asyncio.wait_for(waiter, 60)

    assert asyncio.run(both()).verdict is Verdict.AC
    assert fresh.stats()["dedupe"]["shared_in_flight"] == 1


def test_leaving_judge_many_while_cases_run_logs_no_callback_errors(fresh, caplog):
    """A case whose caller went away (judge_many left early, a server's client hung up) while it ran: when
    the run ends, its result goes nowhere, quietly. It raised InvalidStateError in the run's callback
    (logged by concurrent.futures as an error, once per such case) setting the cancelled case's result."""
    quick = fresh.submission(_unique("print(1)"), [Case.stdio("", "1")])
    slow = [fresh.submission(_unique("import time\ntime.sleep(1)\nprint(1)"), [Case.stdio("", "1")] * 2)
            for _ in range(3)]
    with caplog.at_level(logging.ERROR, logger="concurrent.futures"):
        stream = fresh.judge_many([quick, *slow])
        assert next(stream)[0] == 0  # the quick one; both slots are running slow cases now
        stream.close()
        time.sleep(2.5)  # the running ones end
    assert [r.getMessage() for r in caplog.records if "exception calling callback" in r.getMessage()] == []


# -- the rule that keeps the cache reward-neutral: a key's first verdict stands, TLE included ------------------
# (tests/adversarial/test_shared_work.py measures that flaky programs score no better with the cache than without)

def test_a_tle_is_kept_like_any_verdict(fresh):
    """Re-judging a TLE while keeping an AC raised a flaky program's AC share to 1.0: the TLE is kept."""
    submission = fresh.submission(_unique("while True:\n    pass"), [Case.stdio("", "1")], limits=Limits(cpu_time=0.3))
    first, _ = _runs(fresh, submission)
    assert first.verdict is Verdict.TLE
    again, ran = _runs(fresh, submission)
    assert (again.verdict, ran) == (Verdict.TLE, 0)


def test_a_program_that_reads_randomness_is_judged_once_per_key(fresh):
    submission = fresh.submission(_unique("import os\nprint(1 if os.urandom(1)[0] < 128 else 2)"),
                                  [Case.stdio("", "1")])
    first, ran = _runs(fresh, submission)
    assert ran >= 1
    replays = [_runs(fresh, submission) for _ in range(3)]
    assert all(ran == 0 and result.verdict is first.verdict for result, ran in replays), replays


def test_judge_many_holds_a_bounded_amount_of_work(fresh):
    def waiting_bytes(count: int) -> int:
        batch = [fresh.submission(_unique("print(1)"), [Case.stdio(str(k), "1") for k in range(5)])
                 for _ in range(count)]
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            stream = fresh.judge_many(batch)
            next(stream)
            held = tracemalloc.get_traced_memory()[0] - before
            stream.close()
        finally:
            tracemalloc.stop()
        return held

    small, large = waiting_bytes(500), waiting_bytes(5000)
    assert large < 3 * small, f"{small / 500:.0f} and {large / 5000:.0f} bytes per submission waiting"
