"""verl's asynchronous reward loop with judgebox.verl.async_compute_score: verl loads the function from its
config (pkg:// path and reward_kwargs), its NaiveRewardManager awaits one call per sample, all started at
once as verl's RewardLoopWorker does, and judgebox judges the calls as one batch (verl must be importable:
pip install verl==0.9.1).

    python examples/verl_reward_loop.py
"""

from __future__ import annotations

import asyncio
import sys

import verl_common as common
from omegaconf import OmegaConf
from verl.experimental.reward_loop.reward_manager import NaiveRewardManager
from verl.trainer.ppo.reward import get_custom_reward_fn

from judgebox import rewards

CONFIG = OmegaConf.create({"reward": {"custom_reward_function": {
    "path": "pkg://judgebox.verl", "name": "async_compute_score", "reward_kwargs": {"profile": "judgebox"}}}})


async def worker(tokenizer, data):
    """verl's RewardLoopWorker.compute_score_batch: one task per sample, gathered."""
    manager = NaiveRewardManager(CONFIG, tokenizer, get_custom_reward_fn(CONFIG))
    return await asyncio.gather(*(manager.run_single(data[i:i + 1]) for i in range(len(data))))


def main() -> int:
    rows = common.demo_rows()
    tokenizer = common.tokenizer([completion for _, completion, _, _ in rows])
    data = common.data_proto(tokenizer, rows)
    outputs = asyncio.run(worker(tokenizer, data))
    print("infra_error:", [o["reward_extra_info"]["infra_error"] for o in outputs])
    print("judgebox.rewards.stats():", rewards.stats())
    return common.report("reward loop", rows, [o["reward_score"] for o in outputs])


if __name__ == "__main__":
    sys.exit(main())
