"""profile="judgebox" (the default of judgebox.verl) gives correct rewards on real data.

Every known-correct HumanEval and MBPP solution scores 1.0 and every known-wrong HumanEval completion
less; CodeContests references score 1.0 at least as often as the tolerant validation of the dataset
(255/300, tests/data/README.md), all cases judged. Completions are written as a reasoning model writes
them: a think section (with a decoy block), then the answer's fenced block.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from conftest import load_dataset
from judgebox.verl import compute_score, default_compute_score
from judgebox.verl.extract import answer_code

CODECONTESTS_TOLERANT_VALIDATION = 255


def completion(code: str) -> str:
    return ("<think>\nFirst attempt:\n```python\nprint('not the answer')\n```\nThat is wrong; fix it.\n</think>\n\n"
            f"Here is the solution.\n\n```python\n{code}\n```\n")


def scores(records: list[dict], kind: str, continuous: bool = True) -> dict[str, float]:
    jobs = [(f"{r['id']} {kind}[{i}]", code, r["test_cases"]) for r in records
            for i, code in enumerate(r.get(kind) or [])]

    def one(job: tuple) -> float:
        return compute_score(None, None, 1024, completion(job[1]), job[2], continuous)[0]

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


@pytest.mark.slow  # a whole dataset
@pytest.mark.timeout(1800)
def test_codecontests_references_pass_at_least_as_often_as_tolerant_validation():
    results = scores(load_dataset("codecontests.jsonl"), "solutions", continuous=False)
    full = sum(score == 1.0 for score in results.values())
    assert full >= CODECONTESTS_TOLERANT_VALIDATION, f"{full}/300 references score 1.0"


def test_default_compute_score_is_a_dict_for_verls_reward_loop():
    record = load_dataset("codecontests.jsonl")[0]
    result = default_compute_score("codecontests", completion(record["solutions"][0]), record["test_cases"])
    assert set(result) == {"score", "acc", "passed", "total", "verdict", "infra_error", "error"}
    assert result["infra_error"] is False and result["total"] == len(record["test_cases"]["inputs"])  # all cases


SUM = "a, b = map(int, input().split())\nprint(a + b)"


@pytest.mark.parametrize("text, language, expected", [
    (f"```python\n{SUM}\n```", "python", SUM + "\n"),
    (f"```Python3\n{SUM}\n```", "python", SUM + "\n"),
    (f"```py\n{SUM}\n```", "python", SUM + "\n"),
    (f"<think>```python\nprint(1)\n```</think>```\n{SUM}\n```", "python", SUM + "\n"),
    (f"```python\nprint(0)\n```\nthen\n```python\n{SUM}\n```", "python", SUM + "\n"),
    (f"```python\n{SUM}\n", "python", SUM + "\n"),  # a generation cut off before the closing fence
    (f"```text\n3\n```\n```python\n{SUM}\n```\n```text\n4\n```", "python", SUM + "\n"),
    (SUM, "python", SUM),  # no fence at all: the whole answer
    ("<think>still thinking ```python\nprint(1)\n```", "python", None),  # no answer yet
    ("```bash\necho 3\n```", "python", None),  # only another language's code
    ("```c++\nint main() {}\n```", "cpp20", "int main() {}\n"),
    ("```js\nconsole.log(1)\n```", "javascript", "console.log(1)\n"),
])
def test_the_answer_is_the_final_fenced_block_of_the_language(text, language, expected):
    assert answer_code(text, language) == expected
