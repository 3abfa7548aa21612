"""OpenRLHF's rollout executor from its wheel (its package imports vLLM, Ray and DeepSpeed, which this machine cannot
run, so agent.py and its logging module are loaded by path), a tokenizer with chat markers, and a stand-in for
the vLLM engine: what the trainer tests and the relayed-failure attacks drive /openrlhf/reward with."""

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

from support.data import load_dataset
from support.tiny_tokenizer import byte_level

START, END = "<|im_start|>", "<|im_end|>"
WHEELS = Path(__file__).resolve().parents[2] / ".cache" / "openrlhf"


IN_WHEEL = "openrlhf-0.11.2.data/purelib/openrlhf/utils/"


@pytest.fixture(scope="module")
def agent(tmp_path_factory) -> ModuleType:
    """openrlhf/utils/agent.py (and the logging module it imports) from OpenRLHF 0.11.2's wheel."""
    wheels = sorted(WHEELS.glob("openrlhf-0.11.2-*.whl"))
    if not wheels:
        pytest.fail("OpenRLHF's wheel is not in .cache/openrlhf: run scripts/setup.sh --test")
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
