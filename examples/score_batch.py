"""judgebox.rewards.score_batch: a batch of samples judged at once in the embedded sandbox, and their rewards
(None: the judge failed, no reward for that sample). No trainer needed.

    .venv/bin/python examples/score_batch.py
"""

from __future__ import annotations

import sys

from verl_common import demo_rows

from judgebox import rewards


def main() -> int:
    rows = demo_rows()
    samples = [{"completion": completion, "test_cases": cases} for _, completion, cases, _ in rows]
    no_python = "In JavaScript:\n```js\nconsole.log(1)\n```"  # no Python block: no program to run
    samples.append({"completion": no_python, "test_cases": rows[0][2]})
    results = rewards.score_batch_sync(samples)
    for result in results:
        print(f"  {result.verdict!s:3} {result.passed}/{result.total} reward={rewards.reward(result)}"
              f"{'  (no code)' if rewards.no_code(result) else ''}")
    print("stats:", rewards.stats())
    got = [rewards.reward(r) for r in results]
    ok = got == [e for _, _, _, e in rows] + [0.0] and rewards.no_code(results[-1])
    print(f"score_batch: {len(samples)} samples, rewards {'as expected' if ok else 'NOT as expected'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
