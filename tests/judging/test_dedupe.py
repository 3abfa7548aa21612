"""Each distinct submission judged once (judgebox.judging.dedupe): the key covers every field that decides a verdict,
the cache shares judgements in progress and keeps results LRU, SE and abandoned judgements are never
replayed, and the counts reach Judge.stats() and the server's /metrics. Real judge, real sandbox."""

from __future__ import annotations

import ast
import asyncio
import decimal
import logging
import os
import secrets
import signal
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

import judgebox
from judgebox import Case, JudgeResult, Limits, Submission, Verdict, callers
from judgebox.judging.dedupe import ResultCache, Unkeyable, submission_key
from support.data import load_dataset
from support.server import Server

MBPP = load_dataset("mbpp.jsonl")[:3]


@pytest.fixture(scope="module")
def judge():
    with judgebox.Judge(slots=2) as j:
        yield j


@pytest.fixture
def fresh(judge):
    """The module's judge with an empty cache of its own for this test."""
    judge.dedupe = ResultCache()
    yield judge
    judge.dedupe = ResultCache()


# -- the key --------------------------------------------------------------------------------------------------


def test_a_value_without_a_canonical_encoding_is_judged_uncached(fresh):
    submission = fresh.submission("def f():\n    return 1\n", [Case.call("f", [], decimal.Decimal(1))])
    with pytest.raises(Unkeyable):
        submission_key(submission)
    jobs = fresh._pool.jobs_started
    assert fresh.judge_submission(submission).verdict is not Verdict.SE
    assert fresh.judge_submission(submission).verdict is not Verdict.SE
    assert fresh._pool.jobs_started == jobs + 2 and fresh.dedupe.stats()["misses"] == 0


# -- the cache on its own (real records, no sandbox) ----------------------------------------------------------


# -- the judge ------------------------------------------------------------------------------------------------

def _entry_point(problem: dict) -> str:
    """The function the problem's asserts call (one the reference defines)."""
    defined = {node.name for node in ast.walk(ast.parse(problem["solutions"][0])) if isinstance(node, ast.FunctionDef)}
    tree = ast.parse(problem["test_cases"]["assert_case"][0])
    return next(node.func.id for node in ast.walk(tree)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in defined)


def _grpo_batch(judge: judgebox.Judge) -> tuple[list[Submission], list[str]]:
    """16 samples of each of three MBPP prompts: the reference 8 times, a reformatted reference 4 times, a wrong
    program 3 times, a reference that crashes once; and what each should get."""
    batch, expected = [], []
    for problem in MBPP:
        reference = problem["solutions"][0]
        variants = [(reference, 8, "AC"), (reference + "\n# checked\n", 4, "AC"),
                    (f"def {_entry_point(problem)}(*args, **kwargs):\n    return None\n", 3, "WA"),
                    ("raise SystemExit(3)\n" + reference, 1, "RE")]
        for code, times, verdict in variants:
            batch += [judge.submission(code, problem["test_cases"])] * times
            expected += [verdict] * times
    return batch, expected


def _runs_of_distinct(batch: list[Submission]) -> int:
    return sum(len(s.cases) for s in {submission_key(s): s for s in batch}.values())


def test_judge_many_judges_each_distinct_program_once(fresh):
    batch, expected = _grpo_batch(fresh)
    jobs = fresh._pool.jobs_started
    results = dict(fresh.judge_many(batch))
    assert sorted(results) == list(range(48))
    assert [results[i].verdict.value for i in range(48)] == expected
    stats = fresh.dedupe.stats()
    assert (stats["misses"], stats["hits"] + stats["shared_in_flight"], stats["entries"]) == (12, 36, 12)
    assert fresh._pool.jobs_started - jobs == _runs_of_distinct(batch)
    assert results[1] is results[0]  # the very same result; its wall_time is the original judgement's

    jobs = fresh._pool.jobs_started  # a later epoch: every one a hit, nothing runs
    again = dict(fresh.judge_many(batch))
    assert fresh._pool.jobs_started == jobs and fresh.dedupe.stats()["hits"] - stats["hits"] == 48
    assert all(again[i] is results[i] for i in range(48))


def test_dedupe_off_judges_every_submission_alike(fresh):
    batch, expected = _grpo_batch(fresh)
    fresh.dedupe = None
    jobs = fresh._pool.jobs_started
    results = dict(fresh.judge_many(batch))
    assert [results[i].verdict.value for i in range(48)] == expected
    assert fresh._pool.jobs_started - jobs == sum(len(s.cases) for s in batch)
    assert fresh.stats().dedupe is None


def test_concurrent_async_and_threaded_callers_share_one_judgement(fresh):
    batch, expected = _grpo_batch(fresh)
    jobs = fresh._pool.jobs_started

    async def all_at_once() -> list[JudgeResult]:
        return await asyncio.gather(*(fresh.judge_submission_async(s) for s in batch))

    results = asyncio.run(all_at_once())
    assert [r.verdict.value for r in results] == expected
    stats = fresh.stats()
    assert (stats.dedupe["misses"], stats.dedupe["hits"] + stats.dedupe["shared_in_flight"]) == (12, 36)
    assert stats.jobs_started - jobs == _runs_of_distinct(batch)

    fresh.dedupe = ResultCache()  # verl's thread pool: blocking calls from many threads
    jobs = fresh._pool.jobs_started
    with ThreadPoolExecutor(16) as threads:
        threaded = list(threads.map(fresh.judge_submission, batch))
    assert [r.verdict.value for r in threaded] == expected
    assert fresh.dedupe.stats()["misses"] == 12 and fresh._pool.jobs_started - jobs == _runs_of_distinct(batch)


def test_judge_many_gives_se_for_what_it_cannot_judge_and_goes_on(fresh):
    good = fresh.submission("print(int(input()) + 1)", [Case.stdio("1\n", "2\n")])
    results = dict(fresh.judge_many([good, {"code": "print(1)"}, good]))
    assert [results[i].verdict for i in range(3)] == [Verdict.AC, Verdict.SE, Verdict.AC]
    assert "Submission records" in results[1].message

    closed = judgebox.Judge(slots=1, dedupe=ResultCache())
    closed.close()
    with pytest.raises(judgebox.JudgeClosed):  # a closed backend raises (the Backend contract), caching nothing
        dict(closed.judge_many([good, good]))
    assert closed.dedupe.stats()["entries"] == 0


SLEEPER = "import time\ntime.sleep(2)\nprint('woke')\n"


def test_leaving_judge_many_early_cancels_what_has_not_run(fresh):
    sleepers = [fresh.submission(SLEEPER.replace("2", "1") + f"# sample {i}\n", [Case.stdio("", "woke\n")])
                for i in range(8)]
    jobs = fresh._pool.jobs_started
    for _index, result in fresh.judge_many(sleepers):
        assert result.verdict is Verdict.AC
        break
    deadline = time.monotonic() + 30
    while fresh._pool.busy or fresh.dedupe.stats()["in_flight"]:
        assert time.monotonic() < deadline, "the abandoned judgements never ended"
        time.sleep(0.05)
    ran = fresh._pool.jobs_started - jobs
    stats = fresh.dedupe.stats()
    assert ran < len(sleepers) and stats["not_kept"] >= len(sleepers) - ran  # cancelled ones are not kept
    assert fresh.judge(SLEEPER.replace("2", "0"), [Case.stdio("", "woke\n")]).verdict is Verdict.AC


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_a_slot_dying_is_se_for_everyone_waiting_and_is_judged_again():
    """The infrastructure fails mid-run (the slot's process killed, as the OOM killer might): the owner and
    its waiter get SE, nothing is kept, and the next identical submission runs and is judged AC."""
    with judgebox.Judge(slots=1, dedupe=ResultCache()) as judge:
        submission = judge.submission(SLEEPER, [Case.stdio("", "woke\n")])
        with ThreadPoolExecutor(2) as threads:
            first = threads.submit(judge.judge_submission, submission)
            deadline = time.monotonic() + 20
            while judge._pool.busy < 1:
                assert time.monotonic() < deadline, "the run never started"
                time.sleep(0.02)
            second = threads.submit(judge.judge_submission, submission)
            time.sleep(0.5)
            os.kill(judge._pool.slots[0].pid, signal.SIGKILL)
            results = [first.result(timeout=30), second.result(timeout=30)]
        assert [r.verdict for r in results] == [Verdict.SE, Verdict.SE]
        stats = judge.dedupe.stats()
        assert (stats["misses"], stats["shared_in_flight"], stats["entries"], stats["not_kept"]) == (1, 1, 0, 1)
        jobs = judge._pool.jobs_started
        assert judge.judge_submission(submission).verdict is Verdict.AC
        assert judge._pool.jobs_started == jobs + 1 and judge.dedupe.stats()["entries"] == 1


def test_a_cancelled_owner_lets_its_waiter_judge(fresh):
    """The owner's caller goes away (a client hanging up is a cancelled task in the server): the waiter
    judges the submission itself rather than hanging or getting the cancellation."""
    submission = fresh.submission(SLEEPER.replace("2", "1"), [Case.stdio("", "woke\n")])

    async def scenario() -> JudgeResult:
        owner = asyncio.ensure_future(fresh.judge_submission_async(submission))
        while fresh._pool.busy < 1:
            await asyncio.sleep(0.02)
        waiter = asyncio.ensure_future(fresh.judge_submission_async(submission))
        await asyncio.sleep(0.2)
        owner.cancel()
        with pytest.raises(asyncio.CancelledError):
            await owner
        return await asyncio.wait_for(waiter, 30)

    assert asyncio.run(scenario()).verdict is Verdict.AC
    stats = fresh.dedupe.stats()
    assert (stats["misses"], stats["shared_in_flight"], stats["not_kept"], stats["entries"]) == (2, 1, 1, 1)


def test_judgebox_dedupe_0_turns_the_judges_own_cache_off(monkeypatch):
    cache = ResultCache()
    monkeypatch.setenv("JUDGEBOX_DEDUPE", "0")
    with judgebox.Judge(slots=1) as off, judgebox.Judge(slots=1, dedupe=cache) as given:
        assert off.dedupe is None and off.stats().dedupe is None and given.dedupe is cache
    monkeypatch.setenv("JUDGEBOX_DEDUPE", "yes")
    with pytest.raises(judgebox.InvalidInput):
        judgebox.Judge(slots=1)
    monkeypatch.setenv("JUDGEBOX_DEDUPE", "1")
    with pytest.raises(judgebox.InvalidInput):
        judgebox.Judge(slots=1, dedupe="on")
    with judgebox.Judge(slots=1) as on:
        assert isinstance(on.dedupe, ResultCache)


# -- the server -----------------------------------------------------------------------------------------------

def _dedupe_metrics(url: str) -> dict[str, float]:
    text = httpx.get(url + "/metrics", timeout=10).text
    return {line.split(" ")[0]: float(line.split(" ")[1]) for line in text.splitlines()
            if line.startswith("judgebox_dedupe_")}


@pytest.fixture(scope="module")
def server():
    """A server that gives a request 1 s to get its first case onto a slot."""
    with Server("--workers", "2", "--max-wait", "1", env={"JUDGEBOX_DEDUPE": "1"}) as running:
        running.wait_for_self_tests()  # their judgements are counted too
        yield running


ONE_CALLER = {callers.HEADER: callers.new_caller()}  # the requests of one client share its caches


def _post_all(url: str, body: dict, times: int, headers: dict | None = ONE_CALLER) -> list[httpx.Response]:
    with ThreadPoolExecutor(times) as threads:
        return list(threads.map(lambda _: httpx.post(url + "/judge", json=body, headers=headers, timeout=60),
                                range(times)))


@pytest.mark.slow  # about 15 s in all on this busy 2-core machine
def test_requests_that_declare_no_caller_share_nothing(server):
    before = _dedupe_metrics(server.url)
    answers = _post_all(server.url, {"code": "print(int(input()) * 11)",
                                     "cases": [{"stdin": "6", "expected_output": "66"}]}, 3, headers=None)
    assert [a.json()["verdict"] for a in answers] == ["AC"] * 3
    after = _dedupe_metrics(server.url)
    assert after["judgebox_dedupe_misses_total"] - before.get("judgebox_dedupe_misses_total", 0) == 3


def test_metrics_show_the_dedupe_counts(server):
    before = _dedupe_metrics(server.url)
    answers = _post_all(server.url, {"code": "print(int(input()) * 7)",
                                     "cases": [{"stdin": "6", "expected_output": "42"}]}, 4)
    assert [a.json()["verdict"] for a in answers] == ["AC"] * 4
    after = _dedupe_metrics(server.url)
    delta = {name: after[name] - before.get(name, 0) for name in after}
    assert delta["judgebox_dedupe_misses_total"] == 1
    assert delta["judgebox_dedupe_hits_total"] + delta["judgebox_dedupe_shared_in_flight_total"] == 3
    assert delta["judgebox_dedupe_entries"] == 1 and after["judgebox_dedupe_bytes"] > 0


def test_a_request_waiting_on_an_identical_one_is_not_refused_for_its_wait(server):
    """Its work runs as the other request's jobs: it counts as started when they start, so waiting 2 s for
    that judgement is not a 504 on a server that gives a request 1 s to start."""
    answers = _post_all(server.url, {"code": "import time\ntime.sleep(2)\nprint('woke')\n", "limits": {"cpu_time": 2},
                                     "cases": [{"stdin": "", "expected_output": "woke"}]}, 2)
    assert [(a.status_code, a.json()["verdict"]) for a in answers] == [(200, "AC")] * 2


# Attacks on dedupe (judgebox.judging.dedupe through judgebox.Judge): what a policy
# could get from a result it did not earn in this run. Real judge, real sandbox.
#
# Held (regression data): submissions that differ in anything the verdict depends on, spelled as a policy or
# a dataset might spell them alike, are judged apart; a waiter whose owner was cancelled judges for itself.
#
# Since issue 17: a key's first judgement stands, TLE included, and a program that reads the clock or
# randomness is judged once per key: re-judging some verdicts and not others raised a flaky program's reward
# (the module notes of judgebox.judging.dedupe; the statistics are in
# tests/adversarial/shared_work/test_shared_work.py).

def _runs(judge, submission) -> tuple[judgebox.JudgeResult, int]:
    """The result, and how many jobs the pool started for it."""
    before = judge.stats().jobs_started
    result = judge.judge_submission(submission)
    return result, judge.stats().jobs_started - before


def _unique(code: str) -> str:
    return f"{code}\n# {secrets.token_hex(8)}"  # no other test's entry


# -- held ------------------------------------------------------------------------------------------------

@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
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
    assert fresh.stats().dedupe["hits"] == 0, fresh.stats()


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
    assert fresh.stats().dedupe["shared_in_flight"] == 1


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
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
# (tests/adversarial/shared_work/test_shared_work.py measures that flaky programs score no better with the cache
# than without)

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


@pytest.mark.slow  # about 5 s in all on this busy 2-core machine
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
