"""``POST /openrlhf/reward`` driven by OpenRLHF's own rollout code: ``SingleTurnAgentExecutor`` loaded from
OpenRLHF's wheel by path (its package imports vLLM, Ray and DeepSpeed, which this machine cannot run),
against a real ``judgebox serve``, with a real tokenizer (byte-level BPE trained here, chat markers as
special tokens), on MBPP problems with right and wrong programs, and on a problem whose checker is broken
(an SE: 0.0, flagged in extra_logs and counted, the only per-sample value OpenRLHF takes)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
import zipfile
from pathlib import Path
from types import ModuleType, SimpleNamespace

import httpx
import pytest

from conftest import Server, free_port, load_dataset
from judgebox.openrlhf import response_text
from tiny_tokenizer import byte_level

try:  # test extras (OpenRLHF's executor posts with aiohttp and tokenizes to torch tensors)
    import aiohttp  # noqa: F401
    import torch  # noqa: F401
except ImportError as exc:
    pytest.fail(f"{exc}: torch and aiohttp are test extras; run scripts/setup.sh", pytrace=False)

WHEELS = Path(__file__).resolve().parents[1] / ".cache" / "openrlhf"
IN_WHEEL = "openrlhf-0.11.2.data/purelib/openrlhf/utils/"
START, END = "<|im_start|>", "<|im_end|>"


@pytest.fixture(scope="module")
def agent(tmp_path_factory) -> ModuleType:
    """openrlhf/utils/agent.py (and the logging module it imports) from OpenRLHF 0.11.2's wheel."""
    wheels = sorted(WHEELS.glob("openrlhf-0.11.2-*.whl"))
    if not wheels:
        pytest.fail("OpenRLHF's wheel is not in .cache/openrlhf: run scripts/setup.sh")
    folder = tmp_path_factory.mktemp("openrlhf")
    with zipfile.ZipFile(wheels[0]) as archive:
        for name in ("logging_utils.py", "agent.py"):
            archive.extract(IN_WHEEL + name, folder)
    modules = {}
    for package in ("openrlhf", "openrlhf.utils"):  # bare namespaces: the real __init__s import the GPU stack
        modules[package] = ModuleType(package)
        modules[package].__path__ = []
    for name in ("logging_utils", "agent"):
        spec = importlib.util.spec_from_file_location(f"openrlhf.utils.{name}", folder / IN_WHEEL / f"{name}.py")
        modules[f"openrlhf.utils.{name}"] = importlib.util.module_from_spec(spec)
    saved = {name: sys.modules.get(name) for name in modules}
    sys.modules.update(modules)
    try:
        for name in ("logging_utils", "agent"):
            spec = modules[f"openrlhf.utils.{name}"].__spec__
            spec.loader.exec_module(modules[f"openrlhf.utils.{name}"])
        yield modules["openrlhf.utils.agent"]
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


@pytest.fixture(scope="module")
def tokenizer():
    return byte_level([START, END], eos_token=END, additional_special_tokens=[START])


@pytest.fixture(scope="module")
def judge_server():
    with Server("--workers", "2") as running:
        yield running


class ScriptedModel:
    """Stands in for the vLLM engine (no GPU here): it "generates" a given response, as token ids."""

    def __init__(self, tokenizer, response: str) -> None:
        self.ids = tokenizer(text=response, add_special_tokens=False)["input_ids"]
        self.response = response

    async def generate(self, prompt_ids, sampling_params, multi_modal_data=None):
        output = SimpleNamespace(token_ids=self.ids, text=self.response, finish_reason="stop", logprobs=None)
        return SimpleNamespace(outputs=[output])


def _chat(problem: dict) -> str:
    """The prompt as OpenRLHF renders it with a chat template (--apply_chat_template)."""
    return f"{START}user\n{problem['prompt']}{END}\n{START}assistant\n"


def _rollout(agent, tokenizer, url: str, problem: dict, response: str, label=None) -> dict:
    """One rollout through OpenRLHF's executor: generate, decode prompt + response, ask the reward server."""
    executor = agent.SingleTurnAgentExecutor(url)
    params = SimpleNamespace(max_tokens=None, logprobs=None)
    label = json.dumps(problem["test_cases"]) if label is None else label
    return asyncio.run(executor.execute(_chat(problem), label, params, 4096, tokenizer,
                                        ScriptedModel(tokenizer, response)))


def _mbpp(problem_id: str) -> dict:
    return next(r for r in load_dataset("mbpp.jsonl") if r["id"] == problem_id)


def _metric(server, outcome: str) -> float:
    text = httpx.get(server.url + "/metrics", timeout=10).text
    line = next((x for x in text.splitlines() if x.startswith(f'judgebox_reward_samples_total{{outcome="{outcome}"}}')),
                None)
    return float(line.split()[-1]) if line else 0.0


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


def test_response_text():
    assert response_text("PROMPT answer<|im_end|>", "PROMPT ") == "answer"
    assert response_text("PROMPT code\n</s>  ", "PROMPT ") == "code"
    assert response_text(" PROMPT x", "PROMPT ") == "x"  # a leading space a tokenizer added
    assert response_text("PROMPT a <|im_end|> b<|endoftext|>", "PROMPT ") == "a <|im_end|> b"  # only the end
    assert response_text("PROMPT x" + " " * 100_000 + "</s>" + "\n" * 100_000, "PROMPT ") == "x"  # one pass
    assert response_text("truncated", "PROMPT ") is None
