"""verl's batch reward manager with judgebox.verl.compute_score_batch: the whole step judged as one batch;
every key of judgebox's answer (infra_error included) reaches reward_extra_info (verl must be importable:
pip install verl==0.9.1).

    python examples/verl_batch.py

In a verl config: reward_model.reward_manager=batch, reward.custom_reward_function.path=pkg://judgebox.verl,
reward.custom_reward_function.name=compute_score_batch.
"""

from __future__ import annotations

import sys

import verl_common as common
from verl.workers.reward_manager import BatchRewardManager

from judgebox import rewards
from judgebox.verl import compute_score_batch


def main() -> int:
    rows = common.demo_rows()
    tokenizer = common.tokenizer([completion for _, completion, _, _ in rows])
    data = common.data_proto(tokenizer, rows)
    manager = BatchRewardManager(tokenizer, num_examine=0, compute_score=compute_score_batch, profile="judgebox")
    out = manager(data, return_dict=True)
    extra = out["reward_extra_info"]
    print("verdicts:", extra["verdict"])
    print("infra_error:", extra["infra_error"], "| judgebox.rewards.stats():", rewards.stats())
    return common.report("batch", rows, common.last_token_rewards(data, out["reward_tensor"]))


if __name__ == "__main__":
    sys.exit(main())
