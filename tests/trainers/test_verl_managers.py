"""judgebox's functions for verl's reward interfaces, each driven by verl 0.9.1's own code from its wheel: the
prime and batch reward managers, the reward loop's NaiveRewardManager (async), and verl's compute_advantage
with judgebox.verl.mask; every program judged in the embedded sandbox on MBPP and CodeContests items.

verl is importable from its wheel for this module only (tests/support/verl_wheel.py).
"""

from __future__ import annotations

import asyncio
import functools
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from judgebox import rewards
from judgebox.verl import async_compute_score, compute_score_batch, default_compute_score, mask, prime_compute_score
from support import verl_wheel
from support.data import load_dataset
from support.server import free_port

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MBPP = load_dataset("mbpp.jsonl")[:3]
CODECONTESTS = [r for r in load_dataset("codecontests.jsonl") if r["meta"]["reference_ok_lenient"]][:1]
DOWN = f"judgebox://127.0.0.1:{free_port()}"  # nothing listens there: every request to it fails


@pytest.fixture(scope="module")
def verl(tmp_path_factory):
    """verl 0.9.1 importable, for this module only."""
    with verl_wheel.importable("0.9.1", tmp_path_factory.mktemp("verl")) as package:
        yield package


common = verl_wheel.example("verl_common")  # the batch a trainer builds, shared with the examples


@pytest.fixture(scope="module")
def tokenizer(verl):
    """A real byte-level BPE tokenizer (it decodes any text exactly), trained here on a few programs: no hub."""
    return common.tokenizer([r["solutions"][0] for r in MBPP + CODECONTESTS])


def fenced(code: str, tag: str) -> str:
    # the tag makes each test's programs its own: none is answered from the judge's dedupe cache
    return f"Let me solve it.\n```python\n# {tag}\n{code}\n```"


def samples(tag: str) -> list[tuple[str, str, dict, float]]:
    """(data source, completion, test cases, the reward it must get): right and known-wrong programs."""
    out = []
    for record in MBPP:
        out.append(("mbpp", fenced(record["solutions"][0], tag), record["test_cases"], 1.0))
        out.append(("mbpp", fenced("def unrelated():\n    return 0", tag), record["test_cases"], 0.0))
    for record in CODECONTESTS:
        out.append(("codecontests", fenced(record["solutions"][0], tag), record["test_cases"], 1.0))
        out.append(("codecontests", fenced("print(-1)", tag), record["test_cases"], 0.0))
    return out


@pytest.mark.slow  # prime forks a process per sample, each starting a sandbox: 15-25 s
def test_prime_manager(verl, tokenizer):
    """verl's PrimeRewardManager: judgebox's dict answer makes it drop the whole batch to 0 (its KeyError: 0,
    caught); prime_compute_score gives each sample its reward."""
    from verl.workers.reward_manager import PrimeRewardManager

    rows = samples("prime")
    data = common.data_proto(tokenizer, rows)
    crashed = PrimeRewardManager(tokenizer, num_examine=0, compute_score=default_compute_score)(data)
    assert common.last_token_rewards(data, crashed) == [0.0] * len(rows)  # the rights too: the bug being fixed
    data = common.data_proto(tokenizer, rows)
    scored = PrimeRewardManager(tokenizer, num_examine=0, compute_score=prime_compute_score)(data)
    assert common.last_token_rewards(data, scored) == [expected for _, _, _, expected in rows]
    assert data.batch["acc"].tolist() == [expected for _, _, _, expected in rows]


@pytest.mark.slow
def test_prime_manager_judge_down_is_no_reward_then_masked(verl, tokenizer):
    """An SE under prime: NaN in the reward tensor (prime keeps only a number; a raise or None would be its
    0.0), and judgebox.verl.mask takes the sample out of verl's compute_advantage."""
    from verl.trainer.ppo import ray_trainer
    from verl.workers.reward_manager import PrimeRewardManager

    rows = samples("prime-down")[:4]
    data = common.data_proto(tokenizer, rows)
    down = functools.partial(prime_compute_score, sandbox_fusion_url=DOWN)
    reward_tensor = PrimeRewardManager(tokenizer, num_examine=0, compute_score=down)(data)
    assert all(math.isnan(v) for v in common.last_token_rewards(data, reward_tensor))
    data.batch["token_level_scores"] = reward_tensor
    data.batch["token_level_rewards"] = reward_tensor.clone()
    assert mask.install()
    before = mask.stats()["samples_masked"]
    out = ray_trainer.compute_advantage(data, adv_estimator="grpo", num_repeat=2)
    assert out.batch["advantages"].abs().sum() == 0 and out.batch["response_mask"].sum() == 0
    assert bool(out.batch["token_level_scores"].isfinite().all())
    assert mask.stats()["samples_masked"] - before == len(rows)


def test_batch_manager(verl, tokenizer):
    """verl's BatchRewardManager calls compute_score_batch once for the step; the rewards, and every key of
    each answer in reward_extra_info, are default_compute_score's for the same sample."""
    from verl.workers.reward_manager import BatchRewardManager

    rows = samples("batch")
    data = common.data_proto(tokenizer, rows)
    before = rewards.stats()
    manager = BatchRewardManager(tokenizer, num_examine=0, compute_score=compute_score_batch, profile="judgebox")
    out = manager(data, return_dict=True)
    assert rewards.stats()["batches"] - before["batches"] == 1
    assert rewards.stats()["samples"] - before["samples"] == len(rows)
    assert common.last_token_rewards(data, out["reward_tensor"]) == [expected for _, _, _, expected in rows]
    one_by_one = [default_compute_score(s, c, t) for s, c, t, _ in rows]
    extra = out["reward_extra_info"]
    for key in one_by_one[0]:
        assert extra[key] == [answer[key] for answer in one_by_one], key
    assert extra["infra_error"] == [False] * len(rows)


def test_batch_manager_judge_down_then_masked_in_compute_advantage(verl, tokenizer):
    """One prompt's group of three samples, the third judged by a judge that is down: infra_error in
    reward_extra_info (as the trainer puts it into the batch), counted; with judgebox.verl.mask installed,
    verl's compute_advantage gives the two judged samples exactly the advantages of a group without the
    failed one (its 0.0 placeholder would lower the group's mean), and the failed one advantage 0 and no
    tokens in the loss."""
    from verl.trainer.ppo import ray_trainer
    from verl.workers.reward_manager import BatchRewardManager

    right, wrong = samples("mask")[:2]
    rows = [right, wrong, right]
    data = common.data_proto(tokenizer, rows, group=3)
    live = BatchRewardManager(tokenizer, 0, compute_score_batch)(data[0:2], return_dict=True)
    before = rewards.stats()["system_errors"]
    down = BatchRewardManager(tokenizer, 0, compute_score_batch, sandbox_fusion_url=DOWN)
    failed = down(data[2:3], return_dict=True)
    assert failed["reward_extra_info"]["infra_error"] == [True]
    assert rewards.stats()["system_errors"] - before == 1

    def step(batch, reward_tensor, extra):  # what RayPPOTrainer.fit does between the reward and the update
        batch.batch["token_level_scores"] = reward_tensor
        batch.non_tensor_batch.update({k: np.array(v) for k, v in extra.items()})
        batch.batch["token_level_rewards"] = batch.batch["token_level_scores"]
        batch.batch["response_mask"] = ray_trainer.compute_response_mask(batch)
        return batch

    import torch

    tensors = torch.cat([live["reward_tensor"], failed["reward_tensor"]])
    extra = {k: v + failed["reward_extra_info"][k] for k, v in live["reward_extra_info"].items()}
    mixed = step(data, tensors, extra)
    alone = step(common.data_proto(tokenizer, rows[:2]), live["reward_tensor"], live["reward_extra_info"])
    assert mask.install()
    ray_trainer.compute_advantage(alone, adv_estimator="grpo", num_repeat=2)
    out = ray_trainer.compute_advantage(mixed, adv_estimator="grpo", num_repeat=3)
    assert out.batch["advantages"][:2].tolist() == alone.batch["advantages"].tolist()
    assert out.batch["advantages"][0].sum() > 0 > out.batch["advantages"][1].sum()  # right over wrong
    assert out.batch["advantages"][2].abs().sum() == 0 and out.batch["response_mask"][2].sum() == 0
    assert out.batch["response_mask"][:2].sum() == alone.batch["response_mask"].sum()


def test_reward_loop_naive_manager(verl, tokenizer):
    """The reward loop: verl's get_custom_reward_fn loads async_compute_score by pkg:// path with its
    reward_kwargs, NaiveRewardManager sees a coroutine function and awaits one call per sample, started all
    at once as RewardLoopWorker.compute_score_batch does; the calls are judged as one batch."""
    from omegaconf import OmegaConf
    from verl.experimental.reward_loop.reward_manager import NaiveRewardManager
    from verl.trainer.ppo.reward import get_custom_reward_fn

    config = OmegaConf.create({"reward": {"custom_reward_function": {
        "path": "pkg://judgebox.verl", "name": "async_compute_score", "reward_kwargs": {"profile": "judgebox"}}}})
    compute_score = get_custom_reward_fn(config)
    rows = samples("loop")
    data = common.data_proto(tokenizer, rows)

    async def worker():  # RewardLoopWorker.compute_score_batch, with the manager made on the worker's loop
        manager = NaiveRewardManager(config, tokenizer, compute_score)
        assert manager.is_async_reward_score
        return await asyncio.gather(*(manager.run_single(data[i:i + 1]) for i in range(len(data))))

    before = rewards.stats()
    outputs = asyncio.run(worker())
    assert rewards.stats()["samples"] - before["samples"] == len(rows)
    assert rewards.stats()["batches"] - before["batches"] <= 2  # gathered, not one batch per sample
    assert [o["reward_score"] for o in outputs] == [expected for _, _, _, expected in rows]
    assert [o["reward_extra_info"]["infra_error"] for o in outputs] == [False] * len(rows)
    rm_scores = NaiveRewardManager.assemble_rm_scores(data, [o["reward_score"] for o in outputs])
    assert common.last_token_rewards(data, rm_scores) == [expected for _, _, _, expected in rows]


def test_reward_loop_judge_down_is_marked(verl, tokenizer):
    from verl.experimental.reward_loop.reward_manager import NaiveRewardManager

    rows = samples("loop-down")[:2]
    data = common.data_proto(tokenizer, rows)
    down = functools.partial(async_compute_score, sandbox_fusion_url=DOWN)

    async def worker():
        manager = NaiveRewardManager(None, tokenizer, down)
        return await asyncio.gather(*(manager.run_single(data[i:i + 1]) for i in range(len(data))))

    outputs = asyncio.run(worker())
    assert [o["reward_extra_info"]["infra_error"] for o in outputs] == [True, True]
    assert all("API Call Failed" in o["reward_extra_info"]["error"] for o in outputs)


def test_unknown_reward_option_is_refused(verl, tokenizer):
    with pytest.raises(ValueError, match="unknown reward option 'profil'"):
        compute_score_batch(["mbpp"], ["x"], [MBPP[0]["test_cases"]], None, profil="judgebox")


@pytest.mark.slow  # each starts Python with torch and verl, and a judge: 20-70 s on a busy machine
@pytest.mark.parametrize("example", ["verl_naive", "verl_prime", "verl_batch", "verl_reward_loop", "score_batch"])
def test_examples_run(verl, example):
    """Each example, run as a user runs it (verl importable), judges its batch and gets the right rewards."""
    folder = Path(verl.__file__).parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(folder), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-W", "ignore", str(EXAMPLES / f"{example}.py")], env=env,
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "rewards as expected" in done.stdout


@pytest.mark.slow  # a real Ray cluster (one node, in a network namespace of its own: tests/support/raycluster.py)
def test_the_mask_installs_in_ray_workers_through_the_setup_hook(verl, tmp_path_factory):
    """The README's config line: Ray runs judgebox.verl.mask.install in every worker process of the job
    before it runs anything, so the trainer's actor (verl's main_ppo runs fit() in one) computes advantages
    through the mask."""
    from support.raycluster import RayCluster

    folder = str(Path(verl.__file__).parent.parent)
    script = (
        "import json, ray\n"
        "ray.init(runtime_env={'worker_process_setup_hook': 'judgebox.verl.mask.install',\n"
        f"                     'env_vars': {{'PYTHONPATH': {folder!r}}}}})\n"
        "@ray.remote\n"
        "def trainer_side():\n"
        "    from verl.trainer.ppo import ray_trainer\n"
        "    return getattr(ray_trainer.compute_advantage, 'judgebox_masked', False)\n"
        "print('answer:', json.dumps(ray.get(trainer_side.remote())))\n")
    with RayCluster(tmp_path_factory.mktemp("ray"), nodes=1) as cluster:  # short: socket paths fit 107 bytes
        done = cluster.run(sys.executable, "-c", script, timeout=600)
    assert "answer: true" in done.stdout, done.stdout[-3000:] + done.stderr[-3000:]


def test_a_step_of_code_and_math(verl, tokenizer):
    """Code samples are judged in the batch; a math sample goes to verl's own scorer (verl is importable
    here), its answer put in the same keys, so verl's batch manager lines up every key."""
    from verl.workers.reward_manager import BatchRewardManager

    code = samples("mixed")[:2]
    rows = [*code, ("openai/gsm8k", "She pays 3 * 24 = 72 dollars.\n#### 72", "72", 1.0)]
    data = common.data_proto(tokenizer, rows, group=3)
    out = BatchRewardManager(tokenizer, 0, compute_score_batch)(data, return_dict=True)
    assert common.last_token_rewards(data, out["reward_tensor"]) == [1.0, 0.0, 1.0]
    assert {k: len(v) for k, v in out["reward_extra_info"].items()} == dict.fromkeys(out["reward_extra_info"], 3)


def test_concurrent_async_calls_are_one_batch_and_a_cancelled_one_harms_none():
    cases = {"inputs": ["4\n"], "outputs": ["16\n"]}
    right = "```python\nn = int(input())\nprint(n * n)\n```"

    async def main():
        calls = [asyncio.ensure_future(async_compute_score("mbpp", right if i % 2 == 0 else "```python\nprint(0)\n```",
                                                           cases, None)) for i in range(9)]
        await asyncio.sleep(0)
        calls[3].cancel()
        done = await asyncio.gather(*calls, return_exceptions=True)
        return done

    before = rewards.stats()
    done = asyncio.run(main())
    assert isinstance(done[3], asyncio.CancelledError)
    assert [d["score"] for i, d in enumerate(done) if i != 3] == [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    assert rewards.stats()["batches"] - before["batches"] == 1
    assert rewards.stats()["samples"] - before["samples"] == 9
