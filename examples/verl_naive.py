"""verl's default (naive) reward manager with judgebox.verl.default_compute_score: one call per sample, each
judged in judgebox's sandbox; every key of judgebox's answer (infra_error included) reaches
reward_extra_info (verl must be importable: pip install verl==0.9.1).

    python examples/verl_naive.py

In a verl config: reward.custom_reward_function.path=pkg://judgebox.verl,
reward.custom_reward_function.name=default_compute_score (`judgebox verl-config` prints the lines).
"""

from __future__ import annotations

import sys

import verl_common as common
from verl.workers.reward_manager import NaiveRewardManager

from judgebox.verl import default_compute_score


def main() -> int:
    rows = common.demo_rows()
    tokenizer = common.tokenizer([completion for _, completion, _, _ in rows])
    data = common.data_proto(tokenizer, rows)
    manager = NaiveRewardManager(tokenizer, num_examine=0, compute_score=default_compute_score)
    out = manager(data, return_dict=True)
    extra = out["reward_extra_info"]
    print("verdicts:", extra["verdict"])
    print("infra_error:", extra["infra_error"])
    return common.report("naive", rows, common.last_token_rewards(data, out["reward_tensor"]))


if __name__ == "__main__":
    sys.exit(main())
