"""verl 0.9's asynchronous reward loop with judgebox.verl.async_compute_score, as ``judgebox verl-config
--interface reward-loop`` configures it: verl's own loader makes the loop's naive manager from those lines, which
awaits one call per sample, all started at once as verl's RewardLoopWorker does, and judgebox judges the calls
as one batch (verl must be importable: pip install verl==0.9.1).

    python examples/verl_reward_loop.py
"""

from __future__ import annotations

import sys

import verl_common as common

from judgebox import rewards


def main() -> int:
    rows = common.demo_rows()
    tokenizer = common.tokenizer([completion for _, completion, _, _ in rows])
    outputs = common.reward_loop("reward-loop", tokenizer, common.data_proto(tokenizer, rows))
    print("infra_error:", [o["reward_extra_info"]["infra_error"] for o in outputs])
    print("judgebox.rewards.stats():", rewards.stats())
    return common.report("reward loop", rows, [o["reward_score"] for o in outputs])


if __name__ == "__main__":
    sys.exit(main())
