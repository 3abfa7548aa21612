"""verl's batch reward manager with judgebox.verl.compute_score_batch: the whole step judged as one batch;
every key of judgebox's answer (infra_error included) reaches reward_extra_info (verl must be importable:
pip install verl==0.9.1).

    python examples/verl_batch.py

The batch manager is the trainer's in verl 0.4 to 0.7: ``judgebox verl-config --verl 0.6 --interface batch``
prints its lines (printed here too). verl 0.9.1 still ships the class, which this example runs, but its
trainer scores through the reward loop, which has no batch manager: for verl 0.9 ``--interface batch`` prints
the reward loop's config (examples/verl_reward_loop.py).
"""

from __future__ import annotations

import sys

import verl_common as common
from verl.workers.reward_manager import BatchRewardManager

from judgebox import rewards
from judgebox.verl import compute_score_batch
from judgebox.verl.config import overrides


def main() -> int:
    print("\n".join(overrides(verl="0.6", interface="batch")))
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
