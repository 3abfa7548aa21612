"""judgebox against a fresh interpreter per case: per-case latency and throughput, side by side, in one run.

Method
------
Every contender runs the same trivial stdin->stdout program (read two ints, print their sum) on the same
cases, and every answer is checked: each judgebox case must be AC, each baseline's stdout must be the sum.
A wrong or missing answer aborts the benchmark (exit 1).

Contenders:

- judgebox: embedded ``judgebox.Judge()`` with full isolation (every required layer is checked and printed);
  one warm zygote per core, each case a fork of it.
- a fresh ``python3`` per case, the cost model of SandboxFusion and verl today: ``subprocess.run`` with the
  case's stdin and no isolation. Once with the ``python3`` found on PATH (pyenv's shim here), once with
  Debian's ``/usr/bin/python3 -I -S``, the cheapest fresh interpreter on this machine.
- that Debian interpreter under ``bwrap --unshare-all``, a fresh sandbox per case (if bubblewrap is installed).

Measurements:

- latency: one case at a time, sequentially; the wall time of the whole call (``judge.judge(code, [case])``,
  or ``subprocess.run`` plus the comparison). Median and p90 over all rounds.
- throughput: many cases in flight. judgebox: one submission of N cases (all slots busy) and, separately,
  many concurrent submissions of 10 cases each from a thread pool. Baselines: a thread pool with one worker
  per core. cases/s is the median over rounds. The ratios divide judgebox's one-submission figure.

The machine is shared and noisy, so the contenders are interleaved: each round runs every contender once,
in a rotated order, so a burst of outside load hits all of them alike. Absolute figures move by about 20%
from run to run; the ratios are steadier.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from rich.console import Console
from rich.table import Table

import judgebox
from judgebox import Case, Verdict

CODE = "a, b = map(int, input().split())\nprint(a + b)\n"
TARGET_LATENCY_MS = 3.0  # median per-case overhead (the latency of a trivial program)
TARGET_SPEEDUP = 4.0  # judgebox throughput over the fresh interpreter's
SUBMISSION_CASES = 10  # cases per submission in judgebox's "many submissions" mode
SUBMITTERS = 16  # threads submitting them
DEBIAN_PYTHON = "/usr/bin/python3"
CORES = os.cpu_count() or 1
console = Console(width=None if sys.stdout.isatty() else 120)


class WrongResult(Exception):
    """A contender gave a wrong answer: its figures would be worthless."""


@dataclass
class Contender:
    name: str
    isolation: str
    one: Callable[[Case], None] | None  # judge one case (checks the answer); None: no latency row
    many: Callable[[list[Case]], None]  # judge many cases at once (checks every answer)
    n_latency: int  # cases per round, sequentially
    n_throughput: int  # cases per round, in flight together
    concurrency: str
    latencies: list[float] = field(default_factory=list)  # seconds
    rates: list[float] = field(default_factory=list)  # cases/s, one per round
    inner: list[float] = field(default_factory=list)  # judgebox: CaseResult.wall_time (fork to reap), seconds

    def run_round(self, cases: list[Case]) -> None:
        if self.one is not None:
            for case in cases[: self.n_latency]:
                started = time.perf_counter()
                self.one(case)
                self.latencies.append(time.perf_counter() - started)
        batch = cases[: self.n_throughput]
        started = time.perf_counter()
        self.many(batch)
        self.rates.append(len(batch) / (time.perf_counter() - started))

    def figures(self) -> dict[str, float | int | str | None]:
        ms = sorted(x * 1e3 for x in self.latencies)
        return {"isolation": self.isolation, "concurrency": self.concurrency,
                "latency_median_ms": statistics.median(ms) if ms else None,
                "latency_p90_ms": ms[int(0.9 * (len(ms) - 1))] if ms else None, "latency_n": len(ms),
                "cases_per_s": statistics.median(self.rates), "cases_per_s_rounds": [round(r, 1) for r in self.rates]}


def judgebox_contenders(judge: judgebox.Judge, scale: float) -> list[Contender]:
    slots = len(judge.pool.slots)

    def check(cases: list[Case]) -> judgebox.JudgeResult:
        result = judge.judge(CODE, cases)
        if result.verdict is not Verdict.AC or result.passed != len(cases):
            bad = next((c for c in result.cases if c.verdict is not Verdict.AC), None)
            raise WrongResult(f"judgebox: {result.verdict.value} {result.message} {bad}")
        return result

    def concurrent(cases: list[Case]) -> None:
        chunks = [cases[i:i + SUBMISSION_CASES] for i in range(0, len(cases), SUBMISSION_CASES)]
        with ThreadPoolExecutor(SUBMITTERS) as pool:
            list(pool.map(check, chunks))

    def one(case: Case) -> None:
        ours.inner.append(check([case]).cases[0].wall_time)

    ours = Contender("judgebox, 1 submission", "full", one, check, n(150, scale), n(500, scale),
                     f"all, {slots} slots")
    return [ours, Contender("judgebox, many submissions", "full", None, concurrent, 0, n(500, scale),
                            f"{SUBMITTERS} threads × {SUBMISSION_CASES} cases, {slots} slots")]


def fresh_contender(name: str, isolation: str, argv: list[str], n_latency: int, n_throughput: int) -> Contender:
    def one(case: Case) -> None:
        done = subprocess.run([*argv, CODE], input=case.stdin, capture_output=True, timeout=30, check=False)
        if done.returncode != 0 or done.stdout.split() != (case.expected_output or "").encode().split():
            raise WrongResult(f"{name}: exit {done.returncode}, stdout {done.stdout[:200]!r}, "
                              f"stderr {done.stderr[-500:]!r}")

    def many(cases: list[Case]) -> None:
        with ThreadPoolExecutor(CORES) as pool:
            list(pool.map(one, cases))

    return Contender(name, isolation, one, many, n_latency, n_throughput, f"{CORES} threads")


def n(count: int, scale: float) -> int:
    return max(4, round(count * scale))


def _version(python: str) -> str:
    done = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True,
                          text=True, check=False)
    return done.stdout.strip() or "?"


def make_cases(count: int) -> list[Case]:
    rng = random.Random(1)
    pairs = [(rng.randint(-10**9, 10**9), rng.randint(-10**9, 10**9)) for _ in range(count)]
    return [Case.stdio(f"{a} {b}\n", f"{a + b}\n") for a, b in pairs]


def print_report(contenders: list[Contender], layers: dict[str, object], rounds: int, seconds: float) -> dict:
    figures = {c.name: c.figures() for c in contenders}
    ours, pool_mode = contenders[0], contenders[1]
    ours_rate = statistics.median(ours.rates)
    table = Table(title=f"Trivial a+b program, {rounds} interleaved rounds, {CORES} cores, {seconds:.0f} s")
    for header in ("contender", "isolation", "median ms", "p90 ms", "n", "cases/s", "concurrency",
                   "judgebox ÷ this"):
        table.add_column(header, justify="left" if header in ("contender", "isolation") else "right")
    for c in contenders:
        f = figures[c.name]
        ratio = ours_rate / f["cases_per_s"]
        f["judgebox_throughput_ratio"] = ratio
        lat = (f"{f['latency_median_ms']:.2f}", f"{f['latency_p90_ms']:.2f}", str(f["latency_n"])) if c.one else \
            ("—", "—", "—")
        table.add_row(c.name, c.isolation, *lat, f"{f['cases_per_s']:.0f}", c.concurrency,
                      "—" if c in (ours, pool_mode) else f"{ratio:.1f}×")
    console.print(table)

    baselines = [c for c in contenders[2:] if c.isolation == "none"]
    cheapest = max(baselines, key=lambda c: statistics.median(c.rates))
    latency = figures[ours.name]["latency_median_ms"]
    speedup = ours_rate / statistics.median(cheapest.rates)
    targets = {"median_latency_ms": latency, "latency_target_ms": TARGET_LATENCY_MS,
               "latency_met": latency <= TARGET_LATENCY_MS, "speedup_vs_cheapest_fresh": speedup,
               "cheapest_fresh": cheapest.name, "speedup_target": TARGET_SPEEDUP,
               "speedup_met": speedup >= TARGET_SPEEDUP}
    verdict = {True: "[green]met[/]", False: "[red]NOT met[/]"}
    console.print(f"Target: median per-case overhead ≤ {TARGET_LATENCY_MS:g} ms: judgebox {latency:.2f} ms "
                  f"→ {verdict[targets['latency_met']]}")
    console.print(f"Target: throughput ≥ {TARGET_SPEEDUP:g}× a fresh interpreter's (the cheapest, "
                  f"{cheapest.name}): {ours_rate:.0f} vs {statistics.median(cheapest.rates):.0f} cases/s = "
                  f"{speedup:.1f}× → {verdict[targets['speedup_met']]}")
    for c in baselines:
        if c is not cheapest:
            console.print(f"  (against {c.name}: {ours_rate / statistics.median(c.rates):.1f}×)")
    inside = statistics.median(ours.inner) * 1e3
    console.print(f"Of judgebox's {latency:.2f} ms per case, the zygote's fork→reap of the run is {inside:.2f} ms "
                  "(CaseResult.wall_time); the rest is the request, the socket round trip and the reply.")
    targets["zygote_run_wall_median_ms"] = inside
    return {"rounds": rounds, "cores": CORES, "seconds": seconds, "isolation": layers, "contenders": figures,
            "targets": targets}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a ~15 s run with fewer rounds and cases")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    parser.add_argument("--rounds", type=int, help="interleaved rounds (default 5, or 2 with --quick)")
    args = parser.parse_args()
    rounds, scale = (args.rounds or 3, 0.4) if args.quick else (args.rounds or 5, 1.0)

    started = time.perf_counter()
    with judgebox.Judge() as judge:
        layers = judge.isolation()
        missing = sorted(name for name in judge.config.required_layers if not layers.get(name))
        console.print(f"judgebox isolation ({judge.config.mode} mode, Python {judge.pool.slots[0].python_version} "
                      f"in the sandbox): " + ", ".join(f"{k}={v}" for k, v in layers.items()))
        if missing:
            console.print(f"[red]missing isolation layers: {', '.join(missing)}[/]")
            return 1
        contenders = judgebox_contenders(judge, scale)
        path_python = shutil.which("python3") or "python3"
        console.print(f"python3 on PATH: {path_python} (Python {_version(path_python)})")
        contenders.append(fresh_contender("fresh python3 on PATH", "none", [path_python, "-c"],
                                          n(20, scale), n(80, scale)))
        contenders.append(fresh_contender(f"fresh {DEBIAN_PYTHON} -I -S", "none", [DEBIAN_PYTHON, "-I", "-S", "-c"],
                                          n(60, scale), n(300, scale)))
        bwrap = shutil.which("bwrap")
        if bwrap:
            contenders.append(fresh_contender(
                f"bwrap + fresh {DEBIAN_PYTHON} -I -S", "bwrap",
                [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
                 "--unshare-all", "--die-with-parent", "--cap-drop", "ALL", DEBIAN_PYTHON, "-I", "-S", "-c"],
                n(40, scale), n(200, scale)))
        else:
            console.print("[yellow]bubblewrap is not installed: the bwrap row is skipped "
                          "(apt-get install bubblewrap to add it)[/]")
        cases = make_cases(max(c.n_throughput for c in contenders))
        try:
            for c in contenders:  # warm-up, not measured: page cache, pyenv's shim, the zygotes' code cache
                c.many(cases[:2 * CORES])
            for r in range(rounds):
                for c in contenders[r % len(contenders):] + contenders[: r % len(contenders)]:
                    c.run_round(cases)
                console.print(f"round {r + 1}/{rounds} done, {time.perf_counter() - started:.0f} s")
        except WrongResult as exc:
            console.print(f"[red]wrong result, the benchmark is void: {exc}[/]")
            return 1
    report = print_report(contenders, layers, rounds, time.perf_counter() - started)
    report["python_on_path"] = path_python
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=2)
        console.print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
