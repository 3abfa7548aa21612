"""An RL step's reward batch, judged against the bound its programs set: what a GRPO step costs judgebox.

Method. 12 light CodeContests problems (tests/data/codecontests.jsonl: the first whose reference passed the
dataset's validation run exactly and took under 1 s a case) x 8 samples, in the shape of a GRPO group: 4 copies
of the reference, a reworded copy (the same program under a docstring: other text, other dedupe key), a wrong
answer, a crash and an endless loop. Each sample is scored as verl's reward loop calls a sync scorer, from a
ThreadPoolExecutor of 32, with a 2 s CPU limit a case (verl's ``timeout``), and every score is checked against
what it must be (1 for the five right samples, 0 for the other three). The legs:

- ``judgebox.verl`` fraction: ``default_compute_score(..., continuous=True, timeout=2)``, every case run;
- ``judgebox.verl`` binary: the same with ``binary=True`` (all or nothing, as DeepCoder/rllm and open-r1 score),
  which stops a sample at its first failure;
- ``judgebox.rewards`` fraction and binary: ``score_batch`` of the whole batch under ``Limits(cpu_time=2)``;
- calibrated: ``judgebox.verl`` fraction on the test data that ``judgebox calibrate`` writes (each problem's
  ``time_limit`` from its reference: 4x its slowest case, at least 1 s), the flat 2 s no longer applying;
- SandboxFusion (``--sandboxfusion URL``, its /run_code): verl 0.9.1's own ``sandbox_fusion.compute_score`` from
  the wheel, ``continuous=True``, ``timeout=2``; skipped with a message without a URL
  (a SandboxFusion server built from its source, started on loopback).

The bound of a leg is what its programs' CPU costs over the cores: each endless loop runs every case it is
given to its limit (its cases x the limit; one case where the reward stops at the first failure), and the
right samples' CPU is measured as the sum of their cases' CPU in the fraction leg. A judge that keeps every slot
busy and charges a case that cannot finish its limit once takes about the bound; the figure is wall / bound.
Dedupe is off (``JUDGEBOX_DEDUPE=0``, as in every benchmark here): each sample is judged.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from judgebox import rewards
from judgebox.judging.judge import Judge
from judgebox.tools.calibrate_data import calibrate_data
from judgebox.types import Limits
from judgebox.verl import default_compute_score, reference
from run import CORES, CpuMeter, console, entry
from verl_reward import DATA, WHEELS, load_samples

PROBLEMS, TIMEOUT, THREADS = 12, 2.0, 32
WRONG = "```python\nimport sys\nsys.stdin.read()\nprint('judgebox: not the answer')\n```"
CRASH = "```python\nimport sys\nsys.stdin.read()\nraise RuntimeError('the sample crashes')\n```"
LOOP = "```python\nwhile True:\n    pass\n```"


@dataclass(frozen=True)
class Sample:
    problem: int
    completion: str
    right: bool  # what its score must be: 1.0 if right, else 0.0
    loops: bool


@dataclass
class Leg:
    name: str
    score: Callable[[list[Sample]], list[float]]  # the batch's scores, in order
    stops_at_first_failure: bool = False
    calibrated: bool = False
    seconds: float = 0.0
    cpu: float | None = None
    exact: int = 0


def make_batch(problems: int) -> tuple[list[dict[str, Any]], list[Sample]]:
    chosen = [s for s in load_samples(None, light_only=True) if s.strict == 1.0][:problems]
    cases = [s.test_cases for s in chosen]
    batch = []
    for p, s in enumerate(chosen):
        code = s.completion.removeprefix("```python\n").removesuffix("\n```")
        reworded = f'```python\n"""Read the input, print the answer."""\n{code}\n```'
        batch += [Sample(p, s.completion, True, False) for _ in range(4)]
        batch += [Sample(p, reworded, True, False), Sample(p, WRONG, False, False), Sample(p, CRASH, False, False),
                  Sample(p, LOOP, False, True)]
    return cases, batch


def calibrated_cases(cases: list[dict[str, Any]], problems: int) -> list[dict[str, Any]]:
    """The problems' test data as ``judgebox calibrate`` writes it (on a judge of its own, before any leg)."""
    with tempfile.TemporaryDirectory() as scratch:
        source, out = Path(scratch) / "data.jsonl", Path(scratch) / "calibrated.jsonl"
        chosen = {s.id for s in load_samples(None, light_only=True) if s.strict == 1.0}
        with DATA.open() as lines, source.open("w") as kept:
            records = [json.loads(line) for line in lines]
            for record in [r for r in records if r["id"] in chosen][:problems]:
                kept.write(json.dumps({k: record[k] for k in ("id", "test_cases", "solutions")}) + "\n")
        with Judge() as judge:
            rows = calibrate_data(source, out, judge)
        if not all(row.calibrated for row in rows):
            raise RuntimeError(f"a reference did not calibrate: {[row.note for row in rows if not row.calibrated]}")
        console.print("calibrated time limits (s): " + ", ".join(f"{row.time_after:g}" for row in rows))
        written = [json.loads(line)["test_cases"] for line in out.read_text().splitlines()]
    assert [{k: v for k, v in w.items() if k not in ("time_limit", "memory_limit")} for w in written] == cases
    return written


def verl_leg(cases: list[dict[str, Any]], pool: ThreadPoolExecutor, binary: bool) -> Callable[[list[Sample]],
                                                                                            list[float]]:
    def one(s: Sample) -> float:
        result = default_compute_score("codecontests", s.completion, cases[s.problem], continuous=True,
                                       timeout=TIMEOUT, binary=binary)
        return -1.0 if result["infra_error"] else float(result["score"])
    return lambda batch: list(pool.map(one, batch))


def rewards_leg(cases: list[dict[str, Any]], binary: bool) -> Callable[[list[Sample]], list[float]]:
    def score(batch: list[Sample]) -> list[float]:
        samples = [{"completion": s.completion, "test_cases": cases[s.problem]} for s in batch]
        results = rewards.score_batch_sync(samples, limits=Limits(cpu_time=TIMEOUT), binary=binary)
        return [-1.0 if (value := rewards.reward(r, binary=binary)) is None else value for r in results]
    return score


def sandboxfusion_leg(url: str, cases: list[dict[str, Any]], pool: ThreadPoolExecutor) -> Callable[[list[Sample]],
                                                                                              list[float]]:
    sandbox_fusion, _ = reference.load(reference.find_wheel(WHEELS))
    import multiprocessing

    semaphore = multiprocessing.Manager().Semaphore(64)

    def one(s: Sample) -> float:
        score, _ = sandbox_fusion.compute_score(url, semaphore, 1024, s.completion, cases[s.problem],
                                                continuous=True, timeout=TIMEOUT)
        return float(score)
    return lambda batch: list(pool.map(one, batch))


def bound(leg: Leg, batch: list[Sample], cases: list[dict[str, Any]], right_cpu: float) -> float:
    """Seconds the leg's programs need at the least on this machine's cores (see the module's docstring)."""
    loops = 0.0
    for s in (s for s in batch if s.loops):
        limit = cases[s.problem].get("time_limit", TIMEOUT)
        loops += limit * (1 if leg.stops_at_first_failure else len(cases[s.problem]["inputs"]))
    return (loops + right_cpu) / CORES


def right_cpu(cases: list[dict[str, Any]], batch: list[Sample]) -> float:
    """The CPU seconds the right samples' cases take, measured once on a judge of its own."""
    with Judge() as judge:
        async def all_of() -> list[Any]:
            return await asyncio.gather(*(judge.judge_async(s.completion.removeprefix("```python\n")
                                                            .removesuffix("\n```"), cases[s.problem])
                                          for s in batch if s.right))
        return sum(r.cpu_time for r in asyncio.run(all_of()))


def run(args: argparse.Namespace, meter: CpuMeter) -> int:
    problems = 4 if args.quick else PROBLEMS
    cases, batch = make_batch(problems)
    calibrated = calibrated_cases(cases, problems)
    url = os.environ.get("JUDGEBOX_BENCH_SANDBOXFUSION")
    with ThreadPoolExecutor(THREADS) as pool:
        legs = [Leg("judgebox.verl fraction", verl_leg(cases, pool, False)),
                Leg("judgebox.verl binary", verl_leg(cases, pool, True), stops_at_first_failure=True),
                Leg("judgebox.rewards fraction", rewards_leg(cases, False)),
                Leg("judgebox.rewards binary", rewards_leg(cases, True), stops_at_first_failure=True),
                Leg("judgebox.verl fraction, calibrated", verl_leg(calibrated, pool, False), calibrated=True)]
        if url:
            legs.append(Leg("SandboxFusion (verl's sandbox_fusion)", sandboxfusion_leg(url, cases, pool)))
        else:
            console.print("[yellow]SandboxFusion leg skipped: set JUDGEBOX_BENCH_SANDBOXFUSION to its /run_code URL "
                          "(a SandboxFusion server on loopback)[/]")
        needed = right_cpu(cases, batch)
        legs[0].score(batch[:CORES * 2])  # warm-up, not timed: the judge and its slots
        for leg in legs:
            cpu0, started = meter.seconds(), time.perf_counter()
            scores = leg.score(batch)
            leg.seconds, cpu1 = time.perf_counter() - started, meter.seconds()
            leg.cpu = None if cpu0 is None or cpu1 is None else cpu1 - cpu0
            leg.exact = sum(score == (1.0 if s.right else 0.0) for s, score in zip(batch, scores))
            console.print(f"{leg.name}: {leg.seconds:.1f} s, {leg.exact}/{len(batch)} scores exact, mean "
                          f"{statistics.fmean(scores):.3f}")
    table = Table(title=f"an RL batch: {problems} CodeContests problems x 8 samples, {CORES} cores, "
                        f"{TIMEOUT:g} s CPU a case (calibrated: each problem's own)")
    # CPU / needed: the machine's CPU over what the bound's programs need, which outside load does not inflate
    for column in ("leg", "wall s", "bound s", "wall / bound", "CPU s", "CPU / needed", "scores exact"):
        table.add_column(column, justify="left" if column == "leg" else "right")
    figures = []
    for leg in legs:
        least = bound(leg, batch, calibrated if leg.calibrated else cases, needed)
        cpu_ratio = None if leg.cpu is None else leg.cpu / (least * CORES)
        figures.append({"leg": leg.name, "seconds": leg.seconds, "bound": least, "ratio": leg.seconds / least,
                        "cpu": leg.cpu, "cpu_ratio": cpu_ratio, "exact": leg.exact, "samples": len(batch)})
        table.add_row(leg.name, f"{leg.seconds:.1f}", f"{least:.1f}", f"{leg.seconds / least:.2f}x",
                      "—" if leg.cpu is None else f"{leg.cpu:.1f}", "—" if cpu_ratio is None else f"{cpu_ratio:.2f}x",
                      f"{leg.exact}/{len(batch)}")
    console.print(table)
    if args.json:
        Path(args.json).write_text(json.dumps({"legs": figures, "right_cpu": needed}, indent=2))
    judged = [f for f in figures if not f["leg"].startswith("SandboxFusion")]
    return 0 if all(f["exact"] == f["samples"] for f in judged) else 1


if __name__ == "__main__":
    sys.exit(entry(__doc__, "4 problems instead of 12", run))
