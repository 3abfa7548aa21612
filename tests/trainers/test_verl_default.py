"""profile="judgebox" (the default of judgebox.verl) gives correct rewards on real data.

Every known-correct HumanEval and MBPP solution scores 1.0 and every known-wrong HumanEval completion
less. (CodeContests' 300 references under this profile are tests/judging/test_presets.py's: they score 1.0 at
least as often as the dataset's tolerant validation.) Completions are written as a reasoning model writes
them: a think section (with a decoy block), then the answer's fenced block.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from judgebox.verl import compute_score, default_compute_score
from support.data import load_dataset


def completion(code: str) -> str:
    return ("<think>\nFirst attempt:\n```python\nprint('not the answer')\n```\nThat is wrong; fix it.\n</think>\n\n"
            f"Here is the solution.\n\n```python\n{code}\n```\n")


def scores(records: list[dict], kind: str) -> dict[str, float]:
    jobs = [(f"{r['id']} {kind}[{i}]", code, r["test_cases"]) for r in records
            for i, code in enumerate(r.get(kind) or [])]

    def one(job: tuple) -> float:
        return compute_score(None, None, 1024, completion(job[1]), job[2], True)[0]

    with ThreadPoolExecutor(8) as pool:
        return dict(zip((j[0] for j in jobs), pool.map(one, jobs)))


@pytest.mark.slow  # a whole dataset
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("dataset, count", [("humaneval.jsonl", 164), ("mbpp.jsonl", 974)])
def test_every_reference_solution_scores_full(dataset, count):
    results = scores(load_dataset(dataset), "solutions")
    assert len(results) == count
    assert [label for label, score in results.items() if score != 1.0] == []


@pytest.mark.slow  # a whole dataset
@pytest.mark.timeout(1800)
def test_every_wrong_humaneval_completion_scores_below_full():
    results = scores(load_dataset("humaneval.jsonl"), "wrong_solutions")
    assert len(results) == 68
    assert [label for label, score in results.items() if score >= 1.0] == []


def test_default_compute_score_is_a_dict_for_verls_reward_loop():
    record = load_dataset("codecontests.jsonl")[0]
    result = default_compute_score("codecontests", completion(record["solutions"][0]), record["test_cases"])
    assert set(result) == {"score", "acc", "passed", "total", "verdict", "infra_error", "error"}
    assert result["infra_error"] is False and result["total"] == len(record["test_cases"]["inputs"])  # all cases


