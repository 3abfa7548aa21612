"""verl 0.9's trainer with judgebox.verl.default_compute_score, as ``judgebox verl-config`` configures it: verl's
own loader makes the reward loop's naive manager from those lines, which calls the function once per sample,
each judged in judgebox's sandbox; every key of judgebox's answer (infra_error included) reaches
reward_extra_info (verl must be importable: pip install verl==0.9.1).

    python examples/verl_naive.py
"""

from __future__ import annotations

import sys

import verl_common as common


def main() -> int:
    rows = common.demo_rows()
    tokenizer = common.tokenizer([completion for _, completion, _, _ in rows])
    outputs = common.reward_loop("naive", tokenizer, common.data_proto(tokenizer, rows))
    print("verdicts:", [o["reward_extra_info"]["verdict"] for o in outputs])
    print("infra_error:", [o["reward_extra_info"]["infra_error"] for o in outputs])
    return common.report("naive", rows, [o["reward_score"] for o in outputs])


if __name__ == "__main__":
    sys.exit(main())
