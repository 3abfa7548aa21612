"""What a training worker's first import of judgebox costs: each statement timed in a fresh interpreter.

    python bench/cold_imports.py [--rounds 15] [--baseline OTHER/src]

Each round runs every statement once in a new interpreter (``sys.executable``, importing this checkout's
``src``, or ``--baseline``'s beside it, in turns), so outside load falls on every statement alike. A
statement's figures are the medians over rounds of its wall time and of its process's CPU time (the
steadier figure on a shared machine). The interpreter's own start is not counted: only the statement.
``python -X importtime -c "import judgebox.verl"`` shows which modules the time goes to.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

STATEMENTS = (
    "import judgebox",
    "import judgebox.verl",
    "import judgebox.verl; judgebox.verl.default_compute_score",  # what verl's loader does
    "import judgebox.trl",
    "import judgebox.openrlhf",
    "import judgebox.rewards",
)
TIMED = ("import time; wall, cpu = time.perf_counter(), time.process_time(); {statement}; "
         "print((time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000)")


def timed(statement: str, src: Path) -> tuple[float, float]:
    """(wall ms, CPU ms) of ``statement`` in a fresh interpreter importing judgebox from ``src``."""
    done = subprocess.run([sys.executable, "-c", TIMED.format(statement=statement)], capture_output=True,
                          text=True, check=True, env={**os.environ, "PYTHONPATH": str(src)})
    wall, cpu = done.stdout.split()
    return float(wall), float(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--baseline", type=Path, help="another checkout's src folder, timed beside this one")
    args = parser.parse_args()
    sides = {"this": Path(__file__).resolve().parent.parent / "src"}
    if args.baseline is not None:
        sides["baseline"] = args.baseline.resolve()
    figures: dict[tuple[str, str], list[tuple[float, float]]] = {(s, t): [] for s in sides for t in STATEMENTS}
    for _ in range(args.rounds):
        for statement in STATEMENTS:
            for side, src in sides.items():
                figures[side, statement].append(timed(statement, src))
    for statement in STATEMENTS:
        shown = []
        for side in sides:
            walls, cpus = zip(*figures[side, statement])
            shown.append(f"{side} {statistics.median(walls):5.0f} ms wall, {statistics.median(cpus):4.0f} ms CPU")
        print(f"{statement:58s} " + "   ".join(shown))


if __name__ == "__main__":
    main()
