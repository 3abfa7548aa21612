"""Attack: the call harness (pyrun._call / _encode_other) turns non-JSON return values into JSON before the
judge compares them, and some of those conversions do the task's work or change the answer's type.

- ``return set(xs)`` is sent as ``sorted(set)``: a program that never sorts passes "sort the list" tasks
  (any task whose expected answer is the sorted list of distinct items). Reward without solving. WORKS.
- ``return b"abc"`` passes for the expected str ``"abc"`` (bytes decoded to text).
- an object of the program's class whose ``__repr__`` is the expected text passes for that str
  (``{"__repr__": ...}`` collapses to the string in classify._check_value).
- false negatives (correct programs scored 0): a returned int of more than 4300 digits is RE (json.dumps
  hits the int->str digit limit); a dict with int keys is WA against the same dict (keys become strings).

Run: .venv/bin/python -m pytest tests/review_attacks/test_call_value_loose_encoding.py
Judge gave: AC for the four hacks (verl: score 1.0 for the set); RE and WA for the two correct programs.
A correct judge gives WA for the hacks (a set, bytes, an object are not the expected list/str; in one
process ``set(x) == [1, 2, 3]`` is False) and AC for the two correct programs.
"""

from __future__ import annotations

import pytest

import judgebox
from judgebox import Case, Limits, Verdict


@pytest.fixture(scope="module")
def judge():
    with judgebox.Judge(slots=1) as j:
        yield j


HACKS = {
    "set_does_the_sorting": ("def sort_list(xs):\n    return set(xs)\n",
                             Case.call("sort_list", [[3, 1, 2]], [1, 2, 3])),
    "frozenset_does_the_sorting": ("def sort_words(ws):\n    return frozenset(ws)\n",
                                   Case.call("sort_words", [["b", "c", "a"]], ["a", "b", "c"])),
    "bytes_for_str": ("def f(s):\n    return s.encode()\n", Case.call("f", ["abc"], "abc")),
    "repr_for_str": ("class A:\n    def __repr__(self):\n        return 'abc'\ndef f(s):\n    return A()\n",
                     Case.call("f", ["x"], "abc")),
}


@pytest.mark.parametrize("name", HACKS)
def test_a_non_list_value_does_not_pass_for_a_list_or_str(judge, name):
    code, case = HACKS[name]
    result = judge.judge(code, [case], limits=Limits(cpu_time=2))
    assert result.verdict is Verdict.WA, (name, result.verdict, result.cases[0].message)


CORRECT = {
    "big_int": ("def f(n):\n    return 10 ** n\n", Case.call("f", [5000], 10 ** 5000)),
    "int_keys": ("def f(x):\n    return {1: x}\n", Case.call("f", ["a"], {1: "a"})),
}


@pytest.mark.parametrize("name", CORRECT)
def test_a_correct_value_passes(judge, name):
    code, case = CORRECT[name]
    result = judge.judge(code, [case], limits=Limits(cpu_time=2))
    assert result.verdict is Verdict.AC, (name, result.verdict, result.cases[0].message, result.cases[0].stderr[-300:])


def test_verl_reward_for_returning_a_set_on_a_sorting_task():
    """The same hack through verl's reward (judgebox profile): full reward for a program that never sorts."""
    import json

    import judgebox.verl as verl

    ground_truth = {"inputs": ["[3, 1, 2]", "[5, 4]"], "outputs": ["[1, 2, 3]", "[4, 5]"], "fn_name": "sort_list"}
    completion = "```python\nclass Solution:\n    def sort_list(self, xs):\n        return set(xs)\n```"
    scored = verl.default_compute_score("taco", completion, json.dumps(ground_truth))
    assert scored["score"] == 0 and not scored["infra_error"], scored
