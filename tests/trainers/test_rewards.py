"""judgebox.rewards: whole batches judged in the real sandbox, rewards, and "no reward" for judge failures."""

from __future__ import annotations

import asyncio
import logging

import pytest

import judgebox
from judgebox import InvalidInput, Limits, Verdict, rewards
from support.data import load_dataset

MBPP = load_dataset("mbpp.jsonl")[:4]
# problems whose reference passes every case (a few need a checker for "any valid answer")
CODECONTESTS = [r for r in load_dataset("codecontests.jsonl") if r["meta"]["reference_ok_lenient"]][:2]


def fenced(code: str, tag: str = "python") -> str:
    return f"Here is my answer.\n```{tag}\n{code}\n```\nDone."


def test_right_and_wrong_programs_in_one_batch(judge):
    samples = []
    for record in MBPP:
        samples.append({"completion": fenced(record["solutions"][0]), "test_cases": record["test_cases"]})
        samples.append({"code": "def nothing():\n    return None\n", "test_cases": record["test_cases"]})
    for record in CODECONTESTS:
        samples.append({"code": record["solutions"][0], "test_cases": record["test_cases"], "language": "python"})
        samples.append({"completion": fenced("print('certainly not the answer')", "py"),
                        "test_cases": record["test_cases"]})
    results = rewards.score_batch_sync(samples, judge=judge)
    assert len(results) == len(samples)
    verdicts = [r.verdict for r in results]
    assert verdicts[0::2] == [Verdict.AC] * (len(MBPP) + len(CODECONTESTS)), [r.message for r in results[0::2]]
    assert all(v not in (Verdict.AC, Verdict.SE) for v in verdicts[1::2]), verdicts
    assert [rewards.reward(r) for r in results[0::2]] == [1.0] * (len(MBPP) + len(CODECONTESTS))
    assert [rewards.reward(r) for r in results[1::2]] == [0.0] * (len(MBPP) + len(CODECONTESTS))


def test_results_keep_the_samples_order(judge):
    cases = {"inputs": ["2\n"], "outputs": ["4\n"]}
    samples = [{"code": f"import time\ntime.sleep({0.3 if i == 0 else 0})\nprint({i} * 2)", "test_cases": cases}
               for i in range(6)]
    results = rewards.score_batch_sync(samples, judge=judge)
    assert [r.verdict for r in results] == [Verdict.WA, Verdict.WA, Verdict.AC, Verdict.WA, Verdict.WA, Verdict.WA]


def test_partial_credit_and_the_presets_scoring(judge):
    cases = {"inputs": ["1\n", "2\n", "3\n", "4\n"], "outputs": ["1\n", "2\n", "3\n", "5\n"]}
    sample = {"code": "print(input())", "test_cases": cases}
    (fraction,) = rewards.score_batch_sync([sample], judge=judge)
    assert rewards.reward(fraction) == 0.75
    (binary,) = rewards.score_batch_sync([sample], judge=judge, binary=True)
    assert rewards.reward(binary, binary=True) == 0.0
    (exact,) = rewards.score_batch_sync([sample], judge=judge, preset="livecodebench")
    assert rewards.reward(exact, preset="livecodebench") == 0.0  # all or nothing
    assert rewards.reward(exact) == 0.75


def test_no_code_block_is_told_apart_and_earns_zero(judge):
    cases = MBPP[0]["test_cases"]
    samples = [{"completion": "I would rather not write code.\n```js\nconsole.log(1)\n```", "test_cases": cases},
               {"completion": "<think>still thinking about it", "test_cases": cases},
               {"completion": fenced("x = 1"), "test_cases": cases}]
    before = rewards.stats()
    results = rewards.score_batch_sync(samples, judge=judge)
    assert [rewards.no_code(r) for r in results] == [True, True, False]
    assert results[0].verdict is Verdict.CE and results[0].message == rewards.NO_CODE and results[0].total == 0
    assert [rewards.reward(r) for r in results] == [0.0, 0.0, 0.0]
    assert rewards.stats()["no_code"] - before["no_code"] == 2


def test_a_failed_judge_gives_no_reward_never_zero(caplog):
    closed = judgebox.Judge(slots=1)
    closed.close()
    cases = MBPP[0]["test_cases"]
    before = rewards.stats()
    with caplog.at_level(logging.INFO, logger="judgebox.rewards"):
        results = rewards.score_batch_sync([{"code": MBPP[0]["solutions"][0], "test_cases": cases},
                                            {"completion": "no code at all ```js\n1\n```", "test_cases": cases}],
                                           judge=closed)
    assert results[0].verdict is Verdict.SE and "judge failed" in results[0].message
    assert rewards.reward(results[0]) is None
    assert rewards.reward(results[0], binary=True) is None
    assert rewards.no_code(results[1]) and rewards.reward(results[1]) == 0.0  # never reached the judge
    after = rewards.stats()
    assert after["system_errors"] - before["system_errors"] == 1
    assert after["samples"] - before["samples"] == 2
    warnings = [r for r in caplog.records if r.name == "judgebox.rewards" and r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "1 without reward" in warnings[0].getMessage()


def test_test_data_judgebox_cannot_use_is_no_reward(judge):
    results = rewards.score_batch_sync([
        {"code": "print(1)", "test_cases": "{not json"},
        {"code": "print(1)", "test_cases": {"inputs": ["1"], "outputs": ["1"], "surprise": True}},
        {"code": "print(1)", "test_cases": {"inputs": ["1"], "outputs": ["1"]}},
    ], judge=judge)
    assert [r.verdict for r in results] == [Verdict.SE, Verdict.SE, Verdict.AC]
    assert "test data" in results[0].message and "surprise" in results[1].message
    assert [rewards.reward(r) for r in results] == [None, None, 1.0]


@pytest.mark.parametrize("sample, error", [
    ({"code": "print(1)", "test_cases": {"inputs": ["1"], "outputs": ["1"]}, "extra": 1}, "unknown key 'extra'"),
    ({"code": "print(1)", "completion": "x", "test_cases": {}}, "exactly one"),
    ({"test_cases": {}}, "exactly one"),
    ({"code": "print(1)"}, "no 'test_cases'"),
    ({"code": b"print(1)", "test_cases": {}}, "must be text"),
    ({"code": "print(1)", "test_cases": {}, "limits": {"cpu": 1}}, "unknown limit 'cpu'"),
    ({"code": "print(1)", "test_cases": {}, "limits": {"cpu_time": -1}}, "cpu_time"),
    ("print(1)", "must be a mapping"),
])
def test_the_callers_mistakes_raise_before_anything_runs(sample, error):
    closed = judgebox.Judge(slots=1)
    closed.close()  # nothing may reach it
    with pytest.raises(InvalidInput, match=error):
        rewards.score_batch_sync([sample], judge=closed)


def test_limits_per_sample_and_per_batch(judge):
    cases = {"inputs": [""], "outputs": ["done\n"]}
    spin = "while True:\n    pass\n"
    results = rewards.score_batch_sync([{"code": spin, "test_cases": cases, "limits": {"cpu_time": 0.5}},
                                        {"code": "print('done')", "test_cases": cases}],
                                       judge=judge, limits=Limits(cpu_time=0.5))
    assert [r.verdict for r in results] == [Verdict.TLE, Verdict.AC]
    assert results[0].cases[0].cpu_time < 2


def test_any_judge_with_a_blocking_judge_submission(judge):
    class Blocking:  # a judge offering only the blocking call (a remote client, say)
        def judge_submission(self, submission):
            return judge.judge_submission(submission)

    results = rewards.score_batch_sync([{"code": "print(int(input()) + 1)",
                                         "test_cases": {"inputs": ["1"], "outputs": ["2"]}}], judge=Blocking())
    assert results[0].verdict is Verdict.AC


def test_async_and_from_inside_a_running_loop(judge):
    cases = {"inputs": ["3"], "outputs": ["9"]}
    sample = {"code": "n = int(input())\nprint(n * n)", "test_cases": cases}

    async def main():
        awaited = await rewards.score_batch([sample], judge=judge)
        blocking = rewards.score_batch_sync([sample], judge=judge)  # a loop is running in this thread
        return awaited + blocking

    assert [r.verdict for r in asyncio.run(main())] == [Verdict.AC, Verdict.AC]


def test_the_default_judge_is_the_process_wide_one():
    results = rewards.score_batch_sync([{"code": "print('hi')", "test_cases": {"inputs": [""], "outputs": ["hi"]}}])
    assert results[0].verdict is Verdict.AC


def _judged_in_child() -> str:
    result = rewards.score_batch_sync([{"code": "print(6 * 7)", "test_cases": {"inputs": [""], "outputs": ["42"]}}])
    return str(result[0].verdict)


def test_a_forked_child_judges_with_a_default_judge_of_its_own():
    """verl's prime manager forks its workers from a process that may have judged already: the child gets a
    default judge of its own (the inherited one's threads stayed in the parent: it would wait forever)."""
    import concurrent.futures
    import multiprocessing

    rewards.score_batch_sync([{"code": "print(1)", "test_cases": {"inputs": [""], "outputs": ["1"]}}])
    pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    try:
        assert pool.submit(_judged_in_child).result(timeout=60) == "AC"
    finally:
        for process in list(pool._processes.values()):  # a child that hangs is ended, not waited for
            process.kill()
        pool.shutdown(cancel_futures=True)
    assert rewards.score_batch_sync([{"code": "print(2)", "test_cases": {"inputs": [""], "outputs": ["2"]}}]
                                    )[0].verdict is Verdict.AC  # the parent's slots are untouched


def test_in_flight_bounds_what_the_judge_holds_at_once(judge):
    class Counting:  # the real judge, counting the submissions it holds at once
        def __init__(self):
            self.now = self.most = 0

        async def judge_submission_async(self, submission):
            self.now += 1
            self.most = max(self.most, self.now)
            try:
                return await judge.judge_submission_async(submission)
            finally:
                self.now -= 1

    counting = Counting()
    samples = [{"code": f"print({i})", "test_cases": {"inputs": [""], "outputs": [str(i)]}} for i in range(12)]
    results = rewards.score_batch_sync(samples, judge=counting, in_flight=3)
    assert [r.verdict for r in results] == [Verdict.AC] * 12
    assert counting.most == 3
    with pytest.raises(InvalidInput, match="in_flight"):
        rewards.score_batch_sync(samples, judge=counting, in_flight=0)
