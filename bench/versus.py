"""judgebox against another revision of itself: per-case overhead side by side, in one run.

    python bench/versus.py --baseline REV [--candidate REV]    # the candidate defaults to HEAD

Method. Each side is a child process that imports its own judgebox from a git worktree of its revision
(both made alike in a temporary folder and removed afterwards, so neither side has the other's paths) and
keeps one ``Judge()`` with full isolation. The parent drives both in interleaved rounds
(the order rotated each round, so outside load on this shared machine hits both alike): in each round each
side judges the trivial a+b program one case at a time, ``--cases`` times, and reports the wall time of
every call. Reported: median and p90 per side and their ratio. Both sides' answers are checked (AC).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, sys, time
import judgebox
from judgebox import Case
judge = judgebox.Judge()
code = "a, b = map(int, input().split())\\nprint(a + b)"
case = [Case.stdio("2 3\\n", "5\\n")]
print("ready", flush=True)
for line in sys.stdin:
    times = []
    for _ in range(int(line)):
        started = time.perf_counter()
        verdict = judge.judge(code, case).verdict
        times.append(time.perf_counter() - started)
        assert verdict is judgebox.Verdict.AC, verdict
    print(json.dumps(times), flush=True)
"""


def side(src: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               text=True, cwd=src.parent,  # every round's identical case runs: no result cache
                               env={**os.environ, "PYTHONPATH": str(src), "JUDGEBOX_DEDUPE": "0"})
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    return process


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="the git revision to compare against")
    parser.add_argument("--candidate", default="HEAD", help="the git revision measured (commit your change first)")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--cases", type=int, default=50, help="cases per side per round")
    args = parser.parse_args()
    revisions = {f"candidate {args.candidate}": args.candidate, f"baseline {args.baseline}": args.baseline}
    folders = {name: Path(tempfile.mkdtemp(prefix="judgebox-versus-")) for name in revisions}
    for name, revision in revisions.items():
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(folders[name]), revision],
                       check=True, capture_output=True)
    sides = {}
    try:
        sides = {name: side(folders[name] / "src") for name in revisions}
        times: dict[str, list[float]] = {name: [] for name in sides}
        names = list(sides)
        for round_ in range(args.rounds):
            for name in names[round_ % 2:] + names[:round_ % 2]:
                process = sides[name]
                assert process.stdin is not None and process.stdout is not None
                process.stdin.write(f"{args.cases}\n")
                process.stdin.flush()
                times[name] += json.loads(process.stdout.readline())
        figures = {name: (statistics.median(t) * 1000, statistics.quantiles(t, n=10)[-1] * 1000)
                   for name, t in times.items()}
        for name, (median, p90) in figures.items():
            print(f"{name:30} median {median:6.2f} ms   p90 {p90:6.2f} ms   ({len(times[name])} cases)")
        (this, _), (base, _) = figures.values()
        print(f"candidate / baseline (median): {this / base:.3f}")
    finally:
        for process in sides.values():
            process.kill()
        for folder in folders.values():
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)], capture_output=True)
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
