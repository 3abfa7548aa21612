"""Each distinct submission judged once (judgebox.dedupe): the key covers every field that decides a verdict,
the cache shares judgements in progress and keeps results LRU, SE and abandoned judgements are never
replayed, and the counts reach Judge.stats() and the server's /metrics. Real judge, real sandbox."""

from __future__ import annotations

import ast
import asyncio
import dataclasses
import decimal
import os
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

import judgebox
from conftest import Server, load_dataset
from judgebox import Case, CaseResult, JudgeResult, Limits, Submission, Verdict, callers, checkers
from judgebox.checkers import Checker, CheckerProgram, Checking, Interactor
from judgebox.dedupe import Abandoned, ResultCache, Unkeyable, retained_bytes, submission_key

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

BASE_LIMITS = Limits(cpu_time=4.0, wall_time=20.0, memory_mb=256, output_bytes=2 * 1024 * 1024, processes=32,
                     file_size_bytes=4 * 1024 * 1024, open_files=64, returned_output_bytes=4096, run_time=10.0)
BASE = Submission(
    code="print(input())",
    cases=(Case("stdio", stdin=b"1\n", expected_output="1\n", fn_name="f", args=(1, 2), expected_value=[1],
                assert_code="assert True", limits=BASE_LIMITS, io="stdio"),),
    language="python", limits=BASE_LIMITS,
    checker=Checking(CheckerProgram("python", "print(1)", "codeforces-python", BASE_LIMITS),
                     checkers.make("value", epsilon=0.5)),
    stop_on_first_failure=False,
    interactor=Interactor("cpp", "int main() {}", "testlib"))

# One other value for every field of every record a submission holds. A field added to one of them later
# has no entry here, and the test below says so: give it one, and make sure the key covers it.
OTHER = {
    Submission: {"code": "print(input() * 2)", "cases": (Case.stdio("2\n", "2\n"),), "language": "cpp",
                 "limits": Limits(), "checker": checkers.DEFAULT, "stop_on_first_failure": True, "interactor": None},
    Case: {"kind": "call", "stdin": b"1", "expected_output": "1", "fn_name": "g", "args": (1, 3),
           "expected_value": (1,), "assert_code": "assert 1", "limits": None, "io": "file"},
    Limits: {"cpu_time": 4.5, "wall_time": None, "memory_mb": 512, "output_bytes": 3 * 1024 * 1024,
             "processes": 33, "file_size_bytes": 5 * 1024 * 1024, "open_files": 65,
             "returned_output_bytes": 4097, "run_time": None},
    Checking: {"output": checkers.make("tokens"), "value": checkers.make("value")},
    Checker: {"name": "float", "options": (("epsilon", 0.25),)},
    CheckerProgram: {"language": "cpp", "code": "print(2)", "protocol": "testlib", "limits": None},
    Interactor: {"language": "c", "code": "int main() { return 0; }", "protocol": "codeforces-python"},
}


def _at(cls: type) -> list[tuple[str, object, object]]:
    """Where ``BASE`` holds a record of ``cls``: (where, the record, a function putting another in its place)."""
    case, checking = BASE.cases[0], BASE.checker

    def in_case(**change):
        return dataclasses.replace(BASE, cases=(dataclasses.replace(case, **change),))

    def in_checking(**change):
        return dataclasses.replace(BASE, checker=dataclasses.replace(checking, **change))

    return {
        Submission: [("submission", BASE, lambda record: record)],
        Case: [("case", case, lambda record: dataclasses.replace(BASE, cases=(record,)))],
        Limits: [("submission limits", BASE.limits, lambda record: dataclasses.replace(BASE, limits=record)),
                 ("case limits", case.limits, lambda record: in_case(limits=record)),
                 ("checker limits", checking.output.limits, lambda record: in_checking(
                     output=dataclasses.replace(checking.output, limits=record)))],
        Checking: [("checking", checking, lambda record: dataclasses.replace(BASE, checker=record))],
        Checker: [("value checker", checking.value, lambda record: in_checking(value=record))],
        CheckerProgram: [("checker program", checking.output, lambda record: in_checking(output=record))],
        Interactor: [("interactor", BASE.interactor, lambda record: dataclasses.replace(BASE, interactor=record))],
    }[cls]


def _with(record: object, name: str, value: object) -> object:
    """A copy of ``record`` with one field changed, past its validation: the key must cover a field whatever
    value it holds."""
    copy = dataclasses.replace(record)
    object.__setattr__(copy, name, value)
    return copy


def test_changing_any_field_changes_the_key():
    base = submission_key(BASE)
    assert submission_key(dataclasses.replace(BASE)) == base  # equal records, one key
    seen = {base: "base"}
    for cls, others in OTHER.items():
        fields = {f.name for f in dataclasses.fields(cls)}
        assert fields == set(others), f"{cls.__name__}: fields {sorted(fields ^ set(others))} need an entry in OTHER"
        for where, record, put in _at(cls):
            for name, value in others.items():
                assert getattr(record, name) != value or type(getattr(record, name)) is not type(value), \
                    f"OTHER[{cls.__name__}][{name!r}] is the base's own value"
                key = submission_key(put(_with(record, name, value)))
                label = f"{where}.{name}"
                assert key not in seen, f"changing {label} gave the key of {seen.get(key)}"
                seen[key] = label
    assert len(seen) == 1 + sum(len(others) * len(_at(cls)) for cls, others in OTHER.items())


def test_the_judges_settings_are_part_of_its_keys():
    assert submission_key(BASE, judgebox.SandboxConfig()) != submission_key(BASE)
    assert submission_key(BASE, judgebox.SandboxConfig()) != submission_key(BASE, judgebox.SandboxConfig(uid_base=1))


@pytest.mark.parametrize("values", [
    [1, 1.0, True, "1", b"1", [1], (1,), {1}, frozenset({1}), {"1": 1}, None, 0.0, -0.0, False, 0, ""],
    [{"a": 1}, {"a": 1.0}, {"a": True}, {1: "a"}, {1.0: "a"}, [[1], 2], [1, [2]], [1, 2], (1, 2)],
    [2 ** 64, 2 ** 64 + 1, -(2 ** 64), float(2 ** 64), 10 ** 5000, "x" * 3, ["x"] * 3]])
def test_values_the_checker_tells_apart_have_keys_apart(values):
    keys = [submission_key(dataclasses.replace(BASE, cases=(Case.call("f", [], value),))) for value in values]
    assert len(set(keys)) == len(values)


def test_equal_dicts_and_sets_in_any_order_have_one_key():
    one = [{"b": [1, {"y": 2, "x": 1}], "a": {3, 1, 2}}]
    other = [{"a": {2, 3, 1}, "b": [1, {"x": 1, "y": 2}]}]
    assert submission_key(dataclasses.replace(BASE, cases=(Case.call("f", one, 0),))) == \
        submission_key(dataclasses.replace(BASE, cases=(Case.call("f", other, 0),)))


def test_a_value_without_a_canonical_encoding_is_judged_uncached(fresh):
    submission = fresh.submission("def f():\n    return 1\n", [Case.call("f", [], decimal.Decimal(1))])
    with pytest.raises(Unkeyable):
        submission_key(submission)
    jobs = fresh.pool.jobs_started
    assert fresh.judge_submission(submission).verdict is not Verdict.SE
    assert fresh.judge_submission(submission).verdict is not Verdict.SE
    assert fresh.pool.jobs_started == jobs + 2 and fresh.dedupe.stats()["misses"] == 0


# -- the cache on its own (real records, no sandbox) ----------------------------------------------------------

def _result(verdict: Verdict = Verdict.AC, stdout: bytes = b"") -> JudgeResult:
    return JudgeResult(verdict, (CaseResult(verdict, stdout_raw=stdout, stdout_length=len(stdout)),), 1)


def _settle(cache: ResultCache, key: str, result: JudgeResult) -> None:
    future, owner = cache.claim(key)
    assert owner
    future.set_result(result)


def test_eviction_by_entries_is_least_recently_used_first():
    cache = ResultCache(max_entries=2)
    for key in "ab":
        _settle(cache, key, _result())
    assert cache.claim("a")[1] is False  # a hit: "a" is now the most recently used
    _settle(cache, "c", _result())
    assert cache.claim("b")[1] is True  # "b" was dropped
    assert cache.claim("a")[1] is False and cache.claim("c")[1] is False
    stats = cache.stats()
    assert (stats["entries"], stats["evictions"], stats["hits"], stats["misses"]) == (2, 1, 3, 4)


def test_eviction_by_bytes_counts_the_output_kept():
    size = retained_bytes(_result(stdout=b"x" * 10_000))
    cache = ResultCache(max_bytes=2 * size + 10)
    for key in "abc":
        _settle(cache, key, _result(stdout=b"x" * 10_000))
    stats = cache.stats()
    assert (stats["entries"], stats["bytes"], stats["evictions"]) == (2, 2 * size, 1)
    assert cache.claim("a")[1] is True and cache.claim("c")[1] is False
    small = ResultCache(max_bytes=size - 1)
    _settle(small, "big", _result(stdout=b"x" * 10_000))  # larger than the whole cache: not kept
    assert small.stats()["entries"] == 0 and small.claim("big")[1] is True


def test_se_results_and_exceptions_reach_the_waiters_and_are_not_kept():
    cache = ResultCache()
    for settle in (lambda f: f.set_result(_result(Verdict.SE)), lambda f: f.set_exception(RuntimeError("lost"))):
        owned, owner = cache.claim("k")
        waiting, waiter = cache.claim("k")
        assert (owner, waiter) == (True, False)
        settle(owned)
        assert waiting.exception() is owned.exception()
        if owned.exception() is None:
            assert waiting.result() is owned.result()
        again, owner = cache.claim("k")
        assert owner  # judged again
        again.set_exception(RuntimeError("this test judges nothing"))
    stats = cache.stats()
    assert (stats["entries"], stats["not_kept"], stats["misses"], stats["shared_in_flight"]) == (0, 4, 4, 2)


def test_an_owner_that_goes_away_lets_a_waiter_judge():
    """KeyboardInterrupt in the owner's thread: the waiter does not hang, and judges the key itself."""
    cache, started, judged = ResultCache(), threading.Event(), []

    def owner() -> None:
        def interrupted() -> JudgeResult:
            started.set()
            time.sleep(0.2)  # the waiter joins meanwhile
            raise KeyboardInterrupt
        with pytest.raises(KeyboardInterrupt):
            cache.run("k", interrupted)

    thread = threading.Thread(target=owner)
    thread.start()
    started.wait()
    while cache.stats()["in_flight"] == 0:
        time.sleep(0.01)
    result = cache.run("k", lambda: judged.append(1) or _result())
    thread.join()
    assert result.verdict is Verdict.AC and judged == [1]
    stats = cache.stats()
    assert (stats["misses"], stats["shared_in_flight"], stats["not_kept"], stats["entries"]) == (2, 1, 1, 1)


def test_a_waiter_giving_up_cancels_nothing_of_the_owners():
    cache = ResultCache()
    owned, _ = cache.claim("k")
    waiting, _ = cache.claim("k")
    assert waiting.cancel()
    owned.set_result(_result())
    assert cache.claim("k")[1] is False and cache.stats()["entries"] == 1


def test_an_abandoned_judgement_tells_its_waiters_to_claim_again():
    cache = ResultCache()
    owned, _ = cache.claim("k")
    waiting, _ = cache.claim("k")
    owned.cancel()
    with pytest.raises(Abandoned):
        waiting.result()
    assert cache.claim("k")[1] is True
    with pytest.raises(judgebox.InvalidInput):
        ResultCache(max_entries=-1)


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
    jobs = fresh.pool.jobs_started
    results = dict(fresh.judge_many(batch))
    assert sorted(results) == list(range(48))
    assert [results[i].verdict.value for i in range(48)] == expected
    stats = fresh.dedupe.stats()
    assert (stats["misses"], stats["hits"] + stats["shared_in_flight"], stats["entries"]) == (12, 36, 12)
    assert fresh.pool.jobs_started - jobs == _runs_of_distinct(batch)
    assert results[1] is results[0]  # the very same result; its wall_time is the original judgement's

    jobs = fresh.pool.jobs_started  # a later epoch: every one a hit, nothing runs
    again = dict(fresh.judge_many(batch))
    assert fresh.pool.jobs_started == jobs and fresh.dedupe.stats()["hits"] - stats["hits"] == 48
    assert all(again[i] is results[i] for i in range(48))


def test_dedupe_off_judges_every_submission_alike(fresh):
    batch, expected = _grpo_batch(fresh)
    fresh.dedupe = None
    jobs = fresh.pool.jobs_started
    results = dict(fresh.judge_many(batch))
    assert [results[i].verdict.value for i in range(48)] == expected
    assert fresh.pool.jobs_started - jobs == sum(len(s.cases) for s in batch)
    assert fresh.stats()["dedupe"] is None


def test_concurrent_async_and_threaded_callers_share_one_judgement(fresh):
    batch, expected = _grpo_batch(fresh)
    jobs = fresh.pool.jobs_started

    async def all_at_once() -> list[JudgeResult]:
        return await asyncio.gather(*(fresh.judge_submission_async(s) for s in batch))

    results = asyncio.run(all_at_once())
    assert [r.verdict.value for r in results] == expected
    stats = fresh.stats()
    assert (stats["dedupe"]["misses"], stats["dedupe"]["hits"] + stats["dedupe"]["shared_in_flight"]) == (12, 36)
    assert stats["jobs_started"] - jobs == _runs_of_distinct(batch)

    fresh.dedupe = ResultCache()  # verl's thread pool: blocking calls from many threads
    jobs = fresh.pool.jobs_started
    with ThreadPoolExecutor(16) as threads:
        threaded = list(threads.map(fresh.judge_submission, batch))
    assert [r.verdict.value for r in threaded] == expected
    assert fresh.dedupe.stats()["misses"] == 12 and fresh.pool.jobs_started - jobs == _runs_of_distinct(batch)


def test_judge_many_gives_se_for_what_it_cannot_judge_and_goes_on(fresh):
    good = fresh.submission("print(int(input()) + 1)", [Case.stdio("1\n", "2\n")])
    results = dict(fresh.judge_many([good, {"code": "print(1)"}, good]))
    assert [results[i].verdict for i in range(3)] == [Verdict.AC, Verdict.SE, Verdict.AC]
    assert "Submission records" in results[1].message

    closed = judgebox.Judge(slots=1, dedupe=ResultCache())
    closed.close()
    results = dict(closed.judge_many([good, good]))
    assert [r.verdict for r in results.values()] == [Verdict.SE, Verdict.SE] and results[0].total == 1
    assert "closed" in results[0].message and closed.dedupe.stats()["entries"] == 0


SLEEPER = "import time\ntime.sleep(2)\nprint('woke')\n"


def test_leaving_judge_many_early_cancels_what_has_not_run(fresh):
    sleepers = [fresh.submission(SLEEPER.replace("2", "1") + f"# sample {i}\n", [Case.stdio("", "woke\n")])
                for i in range(8)]
    jobs = fresh.pool.jobs_started
    for _index, result in fresh.judge_many(sleepers):
        assert result.verdict is Verdict.AC
        break
    deadline = time.monotonic() + 30
    while fresh.pool.busy or fresh.dedupe.stats()["in_flight"]:
        assert time.monotonic() < deadline, "the abandoned judgements never ended"
        time.sleep(0.05)
    ran = fresh.pool.jobs_started - jobs
    stats = fresh.dedupe.stats()
    assert ran < len(sleepers) and stats["not_kept"] >= len(sleepers) - ran  # cancelled ones are not kept
    assert fresh.judge(SLEEPER.replace("2", "0"), [Case.stdio("", "woke\n")]).verdict is Verdict.AC


def test_a_slot_dying_is_se_for_everyone_waiting_and_is_judged_again():
    """The infrastructure fails mid-run (the slot's process killed, as the OOM killer might): the owner and
    its waiter get SE, nothing is kept, and the next identical submission runs and is judged AC."""
    with judgebox.Judge(slots=1, dedupe=ResultCache()) as judge:
        submission = judge.submission(SLEEPER, [Case.stdio("", "woke\n")])
        with ThreadPoolExecutor(2) as threads:
            first = threads.submit(judge.judge_submission, submission)
            deadline = time.monotonic() + 20
            while judge.pool.busy < 1:
                assert time.monotonic() < deadline, "the run never started"
                time.sleep(0.02)
            second = threads.submit(judge.judge_submission, submission)
            time.sleep(0.5)
            os.kill(judge.pool.slots[0].pid, signal.SIGKILL)
            results = [first.result(timeout=30), second.result(timeout=30)]
        assert [r.verdict for r in results] == [Verdict.SE, Verdict.SE]
        stats = judge.dedupe.stats()
        assert (stats["misses"], stats["shared_in_flight"], stats["entries"], stats["not_kept"]) == (1, 1, 0, 1)
        jobs = judge.pool.jobs_started
        assert judge.judge_submission(submission).verdict is Verdict.AC
        assert judge.pool.jobs_started == jobs + 1 and judge.dedupe.stats()["entries"] == 1


def test_a_cancelled_owner_lets_its_waiter_judge(fresh):
    """The owner's caller goes away (a client hanging up is a cancelled task in the server): the waiter
    judges the submission itself rather than hanging or getting the cancellation."""
    submission = fresh.submission(SLEEPER.replace("2", "1"), [Case.stdio("", "woke\n")])

    async def scenario() -> JudgeResult:
        owner = asyncio.ensure_future(fresh.judge_submission_async(submission))
        while fresh.pool.busy < 1:
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
        assert off.dedupe is None and off.stats()["dedupe"] is None and given.dedupe is cache
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
