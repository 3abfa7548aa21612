"""What the examples/verl_*.py scripts share: a few problems of judgebox's bundled sample (MBPP and
CodeContests, right solutions and known-wrong model completions) as the batch verl's trainer hands a reward
manager, with a real tokenizer built offline (a byte-level BPE: it decodes any text exactly; no hub)."""

from __future__ import annotations

import json
import shlex
from importlib import resources
from pathlib import Path
from typing import Any

Row = tuple[str, str, Any, float]  # data source, completion, test cases (verl's ground truth), expected reward


def demo_rows() -> list[Row]:
    """Two samples per problem: the reference solution and a wrong program (the sample's known-wrong model
    completion for HumanEval, a program that prints nothing useful for MBPP and CodeContests)."""
    text = resources.files("judgebox").joinpath("samples/demo.jsonl").read_text()
    records = {r["id"]: r for r in map(json.loads, filter(str.strip, text.splitlines()))}
    rows: list[Row] = []
    for key, wrong in (("HumanEval/19", None), ("HumanEval/32", None), ("mbpp/2", "def similar_elements(a, b):\n"
                       "    return ()"), ("codecontests/1143_c_queen_2410", "print('no idea')")):
        record = records[key]
        source = key.split("/")[0].lower()
        rows.append((source, fenced(record["solutions"][0]), record["test_cases"], 1.0))
        rows.append((source, fenced(wrong or record["wrong_solutions"][0]), record["test_cases"], 0.0))
    return rows


def override_args(lines: list[str]) -> list[str]:
    """The arguments a shell passes to verl's trainer for the lines ``judgebox verl-config`` prints
    (:func:`judgebox.verl.config.overrides`): comments left out, each line one argument, unquoted."""
    return [arg for line in lines if not line.startswith("#") for arg in shlex.split(line.removesuffix(" \\"))]


def trainer_config(args: list[str]) -> Any:
    """The config verl's trainer (``python -m verl.trainer.main_ppo ARGS``) runs with: its own ppo_trainer.yaml,
    composed by Hydra with ``args`` as the command line's overrides."""
    import verl
    from hydra import compose, initialize_config_dir

    with initialize_config_dir(str(Path(verl.__file__).parent / "trainer" / "config"), version_base=None):
        return compose("ppo_trainer", overrides=args)


def reward_loop(interface: str, tokenizer: Any, data: Any) -> list[dict[str, Any]]:
    """Each sample's answer as verl 0.9's trainer gets it for ``judgebox verl-config --interface interface``:
    its config from those lines, its reward manager made by its own loader (RewardLoopWorker's), one
    ``run_single`` per sample, all started at once (RewardLoopWorker.compute_score_batch)."""
    import asyncio

    from verl.trainer.ppo.reward import load_reward_manager

    from judgebox.verl.config import overrides

    lines = overrides(interface=interface)
    print("\n".join(lines))
    config = trainer_config(override_args(lines))

    async def worker() -> list[dict[str, Any]]:  # the manager made on the worker's event loop
        manager = load_reward_manager(config, tokenizer)
        return await asyncio.gather(*(manager.run_single(data[i:i + 1]) for i in range(len(data))))

    return asyncio.run(worker())


def fenced(code: str) -> str:
    return f"Here is my solution.\n```python\n{code}\n```"


def tokenizer(texts: list[str]) -> Any:
    """A transformers tokenizer (PreTrainedTokenizerFast) trained here on ``texts``, with a ``<pad>`` token."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    raw = Tokenizer(models.BPE())
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    raw.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=400, special_tokens=["<pad>"],
                                                       initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    return PreTrainedTokenizerFast(tokenizer_object=raw, pad_token="<pad>")


def data_proto(tokenizer: Any, rows: list[Row], group: int = 2) -> Any:
    """The batch as verl's trainer builds it: left-padded prompts, right-padded responses, their attention
    mask, and the dataset's columns (data_source, reward_model.ground_truth, extra_info, and the uid that
    groups a prompt's samples for GRPO)."""
    import numpy as np
    import torch
    from verl import DataProto

    pad = tokenizer.pad_token_id
    prompts = [tokenizer.encode(f"Problem {i // group}: write the program.") for i in range(len(rows))]
    responses = [tokenizer.encode(completion) for _, completion, _, _ in rows]
    p, r = max(map(len, prompts)), max(map(len, responses))
    prompt_ids = torch.tensor([[pad] * (p - len(x)) + x for x in prompts])
    response_ids = torch.tensor([x + [pad] * (r - len(x)) for x in responses])
    attention = torch.tensor([[0] * (p - len(a)) + [1] * (len(a) + len(b)) + [0] * (r - len(b))
                              for a, b in zip(prompts, responses)])
    return DataProto.from_dict(
        tensors={"prompts": prompt_ids, "responses": response_ids, "attention_mask": attention,
                 "input_ids": torch.cat([prompt_ids, response_ids], dim=1)},
        non_tensors={"data_source": np.array([s for s, _, _, _ in rows], dtype=object),
                     "reward_model": np.array([{"ground_truth": t, "style": "rule"} for _, _, t, _ in rows],
                                              dtype=object),
                     "extra_info": np.array([{"index": i} for i in range(len(rows))], dtype=object),
                     "uid": np.array([f"prompt-{i // group}" for i in range(len(rows))], dtype=object)})


def last_token_rewards(data: Any, reward_tensor: Any) -> list[float]:
    """Each sample's reward: verl puts it at the response's last valid token."""
    prompt_length = data.batch["prompts"].shape[-1]
    lengths = data.batch["attention_mask"][:, prompt_length:].sum(dim=-1)
    return [float(reward_tensor[i, lengths[i] - 1]) for i in range(len(data))]


def report(name: str, rows: list[Row], got: list[Any]) -> int:
    """Print each sample's reward beside what it should be; the exit status: 0 when all are as expected."""
    for (source, _, _, expected), value in zip(rows, got):
        print(f"  {source:13} expected {expected:.1f}  got {value}")
    ok = [float(v) for v in got] == [e for _, _, _, e in rows]
    print(f"{name}: {len(rows)} samples, rewards {'as expected' if ok else 'NOT as expected'}")
    return 0 if ok else 1
