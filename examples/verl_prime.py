"""verl's prime reward manager scoring a batch with judgebox.verl.prime_compute_score, then verl's own
compute_advantage with judgebox.verl.mask installed (verl must be importable: pip install verl==0.9.1).

    python examples/verl_prime.py

The prime manager is the trainer's in verl 0.4 to 0.7: ``judgebox verl-config --verl 0.6 --interface prime``
prints its lines (printed here too). verl 0.9.1 still ships the class, which this example runs, but its
trainer scores through the reward loop, which has no prime manager: for verl 0.9 ``--interface prime`` prints
the loop's naive manager with prime_compute_score.
"""

from __future__ import annotations

import sys

import verl_common as common
from verl.trainer.ppo import ray_trainer
from verl.workers.reward_manager import PrimeRewardManager

from judgebox.verl import mask, prime_compute_score
from judgebox.verl.config import overrides


def main() -> int:
    print("\n".join(overrides(verl="0.6", interface="prime")))
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
