"""``POST /openrlhf/reward`` driven by OpenRLHF's own rollout code: ``SingleTurnAgentExecutor`` loaded from
OpenRLHF's wheel by path (its package imports vLLM, Ray and DeepSpeed, which this machine cannot run),
against a real ``judgebox serve``, with a real tokenizer (byte-level BPE trained here, chat markers as
special tokens), on MBPP problems with right and wrong programs, and on a problem whose checker is broken
(an SE: 0.0, flagged in extra_logs and counted, the only per-sample value OpenRLHF takes)."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace

import httpx
import pytest

from support.data import load_dataset
from support.openrlhf import END, ScriptedModel, _chat, _mbpp, _metric, _rollout
from support.server import Server, free_port

try:  # test extras (OpenRLHF's executor posts with aiohttp and tokenizes to torch tensors)
    import aiohttp  # noqa: F401
    import torch  # noqa: F401
except ImportError as exc:
    pytest.fail(f"{exc}: torch and aiohttp are test extras; run scripts/setup.sh --test", pytrace=False)


@pytest.fixture(scope="module")
def judge_server():
    with Server("--workers", "2") as running:
        yield running


@pytest.mark.slow  # about 7 s in all on this busy 2-core machine
@pytest.mark.parametrize("response, reward", [
    ("```python\n{right}\n```" + END, 1.0),                           # right, fenced, the EOS marker after
    ("{right}" + END, 1.0),                                            # right, no fence: the answer is the code
    ("```python\ndef is_not_prime(n):\n    return False\n```" + END, 1 / 3),  # wrong on 2 of 3 asserts
    ("I would rather not." + END, 0.0),                                # not a program
], ids=["fenced", "unfenced", "wrong", "prose"])
def test_openrlhf_executor_gets_judged_rewards(agent, tokenizer, judge_server, response, reward):
    problem = _mbpp("mbpp/3")
    out = _rollout(agent, tokenizer, judge_server.url + "/openrlhf/reward", problem,
                   response.format(right=problem["solutions"][0]))
    assert out["reward"] == pytest.approx([reward])
    assert out["scores"] == pytest.approx([reward])
    assert out["extra_logs"]["judgebox_all_passed"] == [float(reward == 1.0)]


def test_several_queries_in_one_request(agent, judge_server):
    """OpenRLHF's own request function with a batch (older releases sent one per micro-batch): one
    reward per query, in order, each on its own label."""
    right, other = _mbpp("mbpp/3"), _mbpp("mbpp/2")
    queries = [_chat(right) + f"```python\n{right['solutions'][0]}\n```{END}",
               _chat(other) + f"```python\n{right['solutions'][0]}\n```{END}",  # the other problem's program
               _chat(other) + f"```python\n{other['solutions'][0]}\n```{END}"]
    executor = agent.SingleTurnAgentExecutor(judge_server.url + "/openrlhf/reward")
    answers = asyncio.run(executor._fetch_rewards_via_http(
        queries, [_chat(right), _chat(other), _chat(other)],
        [json.dumps(right["test_cases"]), other["test_cases"], json.dumps(other["test_cases"])]))
    assert [a["rewards"] for a in answers] == [[1.0, 0.0, 1.0]]
    assert answers[0]["extra_logs"]["judgebox_all_passed"] == [1.0, 0.0, 1.0]


def test_binary_setting_on_the_url(agent, tokenizer, judge_server):
    problem = _mbpp("mbpp/3")
    wrong = "```python\ndef is_not_prime(n):\n    return False\n```"
    out = _rollout(agent, tokenizer, judge_server.url + "/openrlhf/reward?binary=true", problem, wrong)
    assert out["reward"] == [0.0]


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
def test_judge_failure_is_flagged_zero_for_openrlhf(agent, tokenizer, judge_server):
    """The problem's own checker is broken (it fails on the jury's answer too: SE, judged twice within the
    request). OpenRLHF takes only a finite number per sample (None stops its trainer, NaN poisons the
    group's advantages), so the sample gets 0.0, flagged judgebox_no_reward in extra_logs and counted; the
    request is answered, never a 503 that would stop the trainer after OpenRLHF's retries."""
    problem = next(r for r in load_dataset("codecontests.jsonl"))
    broken = {**problem["test_cases"], "checker": {"language": "python", "protocol": "codeforces-python",
                                                   "code": "import sys\nsys.exit(7)\n"}}
    before = _metric(judge_server, "no_reward")
    out = _rollout(agent, tokenizer, judge_server.url + "/openrlhf/reward", problem,
                   f"```python\n{problem['solutions'][0]}\n```", label=json.dumps(broken))
    assert out["reward"] == [0.0] and out["scores"] == [0.0]
    assert out["extra_logs"]["judgebox_no_reward"] == [1.0]
    assert _metric(judge_server, "no_reward") - before == 1  # one sample, one request (judged twice in it)
    answer = httpx.post(judge_server.url + "/openrlhf/reward", timeout=60, json={
        "query": [_chat(problem) + "print(1)"], "prompts": [_chat(problem)], "labels": [broken]})
    assert answer.status_code == 200 and answer.json()["extra_logs"]["judgebox_no_reward"] == [1.0]


@pytest.mark.slow  # about 5 s in all on this busy 2-core machine
def test_server_unreachable_is_no_reward(agent, tokenizer):
    """OpenRLHF's own handling when the reward server is down: no reward for the sample."""
    url = f"http://127.0.0.1:{free_port()}/openrlhf/reward"  # nothing listens there
    out = _rollout(agent, tokenizer, url, _mbpp("mbpp/3"), "```python\nprint(1)\n```")
    assert out["reward"] is None


@pytest.mark.parametrize("body, params, says", [
    ({"query": ["pq"], "prompts": ["p"], "labels": ["{}"], "extra": 1}, "", "extra"),
    ({"query": ["pq"], "prompts": ["p", "p"], "labels": ["{}"]}, "", "one of each"),
    ({"query": [], "prompts": [], "labels": []}, "", "at least 1"),
    ({"query": ["other"], "prompts": ["p"], "labels": ['{"inputs": ["1"], "outputs": ["1"]}']}, "",
     "does not begin with its prompt"),
    ({"query": ["pq"], "prompts": ["p"], "labels": ['{"inputs": ["1"], "outputs": []}']}, "", "not test cases"),
    ({"query": ["pq"], "prompts": ["p"], "labels": ['{"inputs": ["1"], "outputs": ["1"]}']}, "?temperature=1",
     "unknown query parameter"),
    ({"query": ["pq"], "prompts": ["p"], "labels": ['{"inputs": ["1"], "outputs": ["1"]}']}, "?preset=nope",
     "unknown preset"),
], ids=["unknown-key", "lengths", "empty", "no-prompt", "bad-label", "unknown-param", "unknown-preset"])
def test_bad_requests_are_refused(judge_server, body, params, says):
    answer = httpx.post(judge_server.url + "/openrlhf/reward" + params, json=body, timeout=30)
    assert answer.status_code == 422
    assert says in answer.text


# Attacks on the trainer interfaces: OpenRLHF's own rollout executor (from its
# wheel, as this file loads it) against a real ``judgebox serve``, and verl's batch and prime entry
# points under ``profile="verl"`` with the judge unreachable.
#
# OpenRLHF truncates a prompt longer than its budget (``max_len - max_tokens``) to its last tokens, with a
# warning, and the query it posts is the decode of those tokens and the response: it begins with the end of
# the prompt, not with the prompt. Refused as "a query that does not begin with its prompt" (422), the sample
# had no reward after OpenRLHF's five retries, and OpenRLHF's trainer stops on a sample without reward.

def test_a_truncated_prompt_s_response_is_judged(agent, tokenizer, judge_server):
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
