"""Correctness on real data: every reference passes, every known-wrong completion fails."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import load_dataset
from judgebox import Limits, Verdict

# Whole datasets (974 MBPP problems, 164 HumanEval with 68 wrong completions): minutes each.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

# mbpp/123 needs about 5.5 s of CPU in CPython; the verdict is on CPU time, so a generous limit is enough.
LIMITS = Limits(cpu_time=20)


def _scores(judge, records, kind):
    jobs = [(r["id"], code, r["test_cases"]) for r in records for code in (r.get(kind) or [])]
    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(lambda job: (job[0], judge.judge(job[1], job[2], limits=LIMITS)), jobs))
    assert not [(i, r.message) for i, r in results if r.verdict is Verdict.SE], "judge failures"
    return results


@pytest.mark.parametrize("name, count", [("humaneval.jsonl", 164), ("mbpp.jsonl", 974)])
def test_every_reference_scores_one(judge, name, count):
    results = _scores(judge, load_dataset(name), "solutions")
    assert len(results) == count
    failing = [(i, r.verdict, r.cases[0].message if r.cases else r.message) for i, r in results if r.score != 1.0]
    assert failing == []


def test_every_wrong_humaneval_completion_scores_below_one(judge):
    results = _scores(judge, load_dataset("humaneval.jsonl"), "wrong_solutions")
    assert len(results) == 68
    assert [i for i, r in results if r.score >= 1.0] == []
