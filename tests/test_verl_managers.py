"""judgebox's functions for verl's reward interfaces, each driven by verl 0.9.1's own code from its wheel: the
prime and batch reward managers, the reward loop's NaiveRewardManager (async), and verl's compute_advantage
with judgebox.verl.mask; every program judged in the embedded sandbox on MBPP and CodeContests items.

verl is extracted from its wheel onto sys.path for this module only and taken off again afterwards (other
tests rely on verl not being importable); its dependencies (torch, transformers, tensordict...) are in .venv.
"""

from __future__ import annotations

import asyncio
import functools
import math
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from conftest import free_port, load_dataset
from judgebox import rewards
from judgebox.verl import async_compute_score, compute_score_batch, default_compute_score, mask, prime_compute_score
from judgebox.verl.reference import find_wheel

WHEEL_DIR = Path(__file__).resolve().parent.parent / ".cache" / "verl"
MBPP = load_dataset("mbpp.jsonl")[:3]
CODECONTESTS = [r for r in load_dataset("codecontests.jsonl") if r["meta"]["reference_ok_lenient"]][:1]
DOWN = f"judgebox://127.0.0.1:{free_port()}"  # nothing listens there: every request to it fails


@pytest.fixture(scope="module")
def verl(tmp_path_factory):
    """verl 0.9.1 importable, for this module only."""
    wheel = find_wheel(WHEEL_DIR)
    if wheel is None:
        pytest.fail(f"verl's wheel is not in {WHEEL_DIR}: run scripts/setup.sh")
    folder = tmp_path_factory.mktemp("verl")
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(folder, [m for m in archive.namelist() if m.startswith("verl/")])
    sys.path.insert(0, str(folder))
    import verl as package

    yield package
    sys.path.remove(str(folder))
    for name in [n for n in sys.modules if n == "verl" or n.startswith("verl.")]:
        del sys.modules[name]


@pytest.fixture(scope="module")
def tokenizer(verl):
    """A real byte-level BPE tokenizer (it decodes any text exactly), trained here on a few lines: no hub."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    texts = [r["solutions"][0] for r in MBPP + CODECONTESTS]  # any other text decodes too, in more tokens
    raw.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=400, special_tokens=["<pad>"],
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="<pad>")


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


def data_proto(tokenizer, rows, group: int = 2):
    """A batch as verl's trainer hands it to a reward manager: left-padded prompts, right-padded responses,
    their attention mask, and the dataset's columns (data_source, reward_model.ground_truth, extra_info, uid)."""
    import torch
    from verl import DataProto

    pad = tokenizer.pad_token_id
    prompts = [tokenizer.encode(f"Problem {i}: write the program.") for i in range(len(rows))]
    responses = [tokenizer.encode(completion) for _, completion, _, _ in rows]
    p, r = max(map(len, prompts)), max(map(len, responses))
    prompt_ids = torch.tensor([[pad] * (p - len(x)) + x for x in prompts])
    response_ids = torch.tensor([x + [pad] * (r - len(x)) for x in responses])
    attention = torch.tensor([[0] * (p - len(a)) + [1] * len(a) + [1] * len(b) + [0] * (r - len(b))
                              for a, b in zip(prompts, responses)])
    return DataProto.from_dict(
        tensors={"prompts": prompt_ids, "responses": response_ids, "attention_mask": attention,
                 "input_ids": torch.cat([prompt_ids, response_ids], dim=1)},
        non_tensors={"data_source": np.array([s for s, _, _, _ in rows], dtype=object),
                     "reward_model": np.array([{"ground_truth": t, "style": "rule"} for _, _, t, _ in rows],
                                              dtype=object),
                     "extra_info": np.array([{"index": i} for i in range(len(rows))], dtype=object),
                     "uid": np.array([f"prompt-{i // group}" for i in range(len(rows))], dtype=object)})


def last_token_rewards(data, reward_tensor) -> list[float]:
    prompt_length = data.batch["prompts"].shape[-1]
    lengths = data.batch["attention_mask"][:, prompt_length:].sum(dim=-1)
    return [float(reward_tensor[i, lengths[i] - 1]) for i in range(len(data))]


def test_prime_manager(verl, tokenizer):
    """verl's PrimeRewardManager: judgebox's dict answer makes it drop the whole batch to 0 (its KeyError: 0,
    caught); prime_compute_score gives each sample its reward."""
    from verl.workers.reward_manager import PrimeRewardManager

    rows = samples("prime")
    data = data_proto(tokenizer, rows)
    crashed = PrimeRewardManager(tokenizer, num_examine=0, compute_score=default_compute_score)(data)
    assert last_token_rewards(data, crashed) == [0.0] * len(rows)  # the rights too: the bug being fixed
    data = data_proto(tokenizer, rows)
    scored = PrimeRewardManager(tokenizer, num_examine=0, compute_score=prime_compute_score)(data)
    assert last_token_rewards(data, scored) == [expected for _, _, _, expected in rows]
    assert data.batch["acc"].tolist() == [expected for _, _, _, expected in rows]


def test_prime_manager_judge_down_is_no_reward_then_masked(verl, tokenizer):
    """An SE under prime: NaN in the reward tensor (prime keeps only a number; a raise or None would be its
    0.0), and judgebox.verl.mask takes the sample out of verl's compute_advantage."""
    from verl.trainer.ppo import ray_trainer
    from verl.workers.reward_manager import PrimeRewardManager

    rows = samples("prime-down")[:4]
    data = data_proto(tokenizer, rows)
    down = functools.partial(prime_compute_score, sandbox_fusion_url=DOWN)
    reward_tensor = PrimeRewardManager(tokenizer, num_examine=0, compute_score=down)(data)
    assert all(math.isnan(v) for v in last_token_rewards(data, reward_tensor))
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
    data = data_proto(tokenizer, rows)
    before = rewards.stats()
    manager = BatchRewardManager(tokenizer, num_examine=0, compute_score=compute_score_batch, profile="judgebox")
    out = manager(data, return_dict=True)
    assert rewards.stats()["batches"] - before["batches"] == 1
    assert rewards.stats()["samples"] - before["samples"] == len(rows)
    assert last_token_rewards(data, out["reward_tensor"]) == [expected for _, _, _, expected in rows]
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
    data = data_proto(tokenizer, rows, group=3)
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
    alone = step(data_proto(tokenizer, rows[:2]), live["reward_tensor"], live["reward_extra_info"])
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
    data = data_proto(tokenizer, rows)

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
    assert last_token_rewards(data, rm_scores) == [expected for _, _, _, expected in rows]


def test_reward_loop_judge_down_is_marked(verl, tokenizer):
    from verl.experimental.reward_loop.reward_manager import NaiveRewardManager

    rows = samples("loop-down")[:2]
    data = data_proto(tokenizer, rows)
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
