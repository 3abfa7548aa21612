"""What the trainers' entry points make of a model's text and a judge's result, without a judge: OpenRLHF's query
less its prompt (a truncated prompt included), TRL's completion shapes, columns, presets and pickled reward
functions made, and no reward for a result with an SE."""

from __future__ import annotations

import pytest

import judgebox
from judgebox import Verdict, rewards
from judgebox.errors import InvalidInput
from judgebox.openrlhf import response_text
from judgebox.trl import completion_text, reward_function

SUM = "a, b = map(int, input().split())\nprint(a + b)"


def test_a_query_that_shares_only_a_little_with_its_prompt_is_still_refused():
    """What the truncated-prompt reading must not accept: a query whose start matches the prompt's end by
    a few characters only, which would make the whole query (prompt text with its code blocks) the
    response."""
    prompt = "Write f.\n```python\ndef f(): return 0\n```\n<|im_start|>assistant\n"
    assert response_text(prompt[-33:] + "```python\nprint(1)\n```", prompt) == "```python\nprint(1)\n```"
    assert response_text("assistant\n```python\nprint(1)\n```", prompt) is None
    assert response_text("```python\ndef f(): return 1\n```", prompt) is None


def test_response_text():
    assert response_text("PROMPT answer<|im_end|>", "PROMPT ") == "answer"
    assert response_text("PROMPT code\n</s>  ", "PROMPT ") == "code"
    assert response_text(" PROMPT x", "PROMPT ") == "x"  # a leading space a tokenizer added
    assert response_text("PROMPT a <|im_end|> b<|endoftext|>", "PROMPT ") == "a <|im_end|> b"  # only the end
    assert response_text("PROMPT x" + " " * 100_000 + "</s>" + "\n" * 100_000, "PROMPT ") == "x"  # one pass
    assert response_text("truncated", "PROMPT ") is None


def test_missing_column_names_the_columns():
    function = reward_function("tests")
    with pytest.raises(InvalidInput, match=r"no 'tests' column .*columns: test_cases"):
        function(prompts=["p"], completions=["c"], test_cases=["{}"], trainer_state=None, log_metric=print)


def test_completion_text_shapes():
    assert completion_text("x") == "x"
    tool_turns = [{"role": "assistant", "content": "calling"}, {"role": "tool", "content": "42"},
                  {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "image"},
                                                    {"type": "text", "text": "b"}]}]
    assert completion_text(tool_turns) == "ab"
    assert completion_text([{"role": "assistant", "content": None}]) == ""
    for bad in ([{"role": "user", "content": "x"}], 3, [{"role": "assistant", "content": 3}]):
        with pytest.raises(InvalidInput):
            completion_text(bad)


def test_unknown_preset_fails_when_made():
    with pytest.raises(judgebox.JudgeboxError):
        reward_function(preset="nope")


def test_an_se_on_one_case_is_no_reward_for_the_sample():
    passed = judgebox.CaseResult(Verdict.AC)
    broken = judgebox.CaseResult(Verdict.SE, message="the worker died")
    result = judgebox.JudgeResult.fold([passed, broken], 2, 0.1)
    assert result.verdict is Verdict.SE
    assert rewards.reward(result) is None
    assert rewards.reward(judgebox.JudgeResult.fold([passed, passed], 2, 0.1)) == 1.0
