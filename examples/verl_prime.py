"""verl's prime reward manager scoring a batch with judgebox.verl.prime_compute_score, then verl's own
compute_advantage with judgebox.verl.mask installed (verl must be importable: pip install verl==0.9.1).

    python examples/verl_prime.py

In a verl config: reward_model.reward_manager=prime, reward.custom_reward_function.path=pkg://judgebox.verl,
reward.custom_reward_function.name=prime_compute_score.
"""

from __future__ import annotations

import sys

import verl_common as common
from verl.trainer.ppo import ray_trainer
from verl.workers.reward_manager import PrimeRewardManager

from judgebox.verl import mask, prime_compute_score


def main() -> int:
    rows = common.demo_rows()
    tokenizer = common.tokenizer([completion for _, completion, _, _ in rows])
    data = common.data_proto(tokenizer, rows)
    # prime runs prime_compute_score in its own pool of processes, each judging in a sandbox of its own
    reward_tensor = PrimeRewardManager(tokenizer, num_examine=0, compute_score=prime_compute_score)(data)
    status = common.report("prime", rows, common.last_token_rewards(data, reward_tensor))
    # what the trainer does next; a NaN reward (the judge failed) would be taken out of the update here
    mask.install()
    data.batch["token_level_scores"] = data.batch["token_level_rewards"] = reward_tensor
    data = ray_trainer.compute_advantage(data, adv_estimator="grpo", num_repeat=2)
    print("advantages per sample:", [round(float(a.sum()), 3) for a in data.batch["advantages"]])
    return status


if __name__ == "__main__":
    sys.exit(main())
