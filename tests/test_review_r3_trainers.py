"""Adversarial review (round 3, issue 11) of the trainer interfaces: OpenRLHF's own rollout executor (from its
wheel, as tests/test_openrlhf.py loads it) against a real ``judgebox serve``, and verl's batch and prime entry
points under ``profile="verl"`` with the judge unreachable.

OpenRLHF truncates a prompt longer than its budget (``max_len - max_tokens``) to its last tokens, with a
warning, and the query it posts is the decode of those tokens and the response: it begins with the end of
the prompt, not with the prompt. Refused as "a query that does not begin with its prompt" (422), the sample
had no reward after OpenRLHF's five retries, and OpenRLHF's trainer stops on a sample without reward.
"""

from __future__ import annotations

import asyncio
import json
import math
from types import SimpleNamespace

from conftest import free_port
from judgebox import rewards
from judgebox.openrlhf import response_text
from judgebox.verl import compute_score_batch, prime_compute_score
from test_openrlhf import END, ScriptedModel, _chat, _mbpp, agent, judge_server, tokenizer  # noqa: F401


def test_a_truncated_prompt_s_response_is_judged(agent, tokenizer, judge_server):  # noqa: F811
    problem = _mbpp("mbpp/3")
    response = f"```python\n{problem['solutions'][0]}\n```{END}"
    prompt = _chat(problem)
    prompt_tokens = len(tokenizer(text=prompt, add_special_tokens=False)["input_ids"])
    budget = len(tokenizer(text=response, add_special_tokens=False)["input_ids"]) + 16
    params = SimpleNamespace(max_tokens=budget, logprobs=None)
    executor = agent.SingleTurnAgentExecutor(judge_server.url + "/openrlhf/reward")
    out = asyncio.run(executor.execute(prompt, json.dumps(problem["test_cases"]), params,
                                       budget + prompt_tokens // 2, tokenizer, ScriptedModel(tokenizer, response)))
    query = tokenizer.decode(out["observation_tokens"], skip_special_tokens=False)
    kept = query[: len(query) - len(response)]  # of the prompt
    assert query.endswith(response) and prompt.endswith(kept) and len(kept) < len(prompt)  # truncated
    assert out["reward"] == [1.0], out["extra_logs"]


def test_a_query_that_shares_only_a_little_with_its_prompt_is_still_refused():
    """What the truncated-prompt reading must not accept: a query whose start matches the prompt's end by
    a few characters only, which would make the whole query (prompt text with its code blocks) the
    response."""
    prompt = "Write f.\n```python\ndef f(): return 0\n```\n<|im_start|>assistant\n"
    assert response_text(prompt[-33:] + "```python\nprint(1)\n```", prompt) == "```python\nprint(1)\n```"
    assert response_text("assistant\n```python\nprint(1)\n```", prompt) is None
    assert response_text("```python\ndef f(): return 1\n```", prompt) is None


def test_profile_verl_marks_a_judge_failure_in_the_batch_and_prime_managers():
    """Held since a verl-profile judge failure is NaN, counted and logged (it was verl's silent 0.0)."""
    url = f"http://127.0.0.1:{free_port()}/run_code"  # nothing listens: every request is refused
    before = rewards.stats()["system_errors"]
    completion, tests = "```python\nprint(input())\n```", {"inputs": ["1"], "outputs": ["1"]}
    (batch,) = compute_score_batch(["codecontests"], [completion], [tests], profile="verl", sandbox_fusion_url=url)
    prime = prime_compute_score("codecontests", completion, tests, profile="verl", sandbox_fusion_url=url)
    assert rewards.stats()["system_errors"] - before == 2
    for answer in (batch, prime):  # marked as the judgebox profile marks it, or prime's NaN
        marked = isinstance(answer, dict) and answer["infra_error"]
        assert marked or (isinstance(answer, float) and math.isnan(answer)), answer
