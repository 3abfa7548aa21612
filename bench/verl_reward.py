"""verl's code reward four ways on CodeContests, side by side, in one run: judgebox embedded, verl's sandbox path
against a SandboxFusion stand-in and against `judgebox serve`, and verl's local prime_code.

Method. Each sample is a CodeContests record (tests/data/codecontests.jsonl: 300 problems, 9-10 stdin/stdout
cases each) with its first known-correct reference solution as the completion (a ```python fence), data source
"codecontests". Every leg scores every sample as verl 0.9.1's reward loop calls a sync scorer, from a
ThreadPoolExecutor (``--threads``, default 32: a RewardLoopWorker's default executor) mapping over a batch:

- judgebox: ``judgebox.verl.default_compute_score("codecontests", completion, test_cases)`` as a custom reward
  function: the embedded judge, profile judgebox, 10 CPU s and 1024 MB per case, full isolation;
- verl sandbox (SandboxFusion stand-in): verl's own ``sandbox_fusion.compute_score(url, semaphore, 1024,
  completion, test_cases, continuous=True)`` from the verl 0.9.1 wheel (one ``requests.post`` per case, a
  sample's cases at once, under one ``multiprocessing.Manager().Semaphore(64)``), ``url`` the /run_code of
  bench/sandboxfusion_standin.py: SandboxFusion's default Python runner, a fresh interpreter per request with no
  isolation. verl's real setup, the one the 5x target is about;
- verl sandbox on judgebox serve: the same call against a ``judgebox serve`` (one slot per core, self-tested and
  warmed before timing): verl's cost model with judgebox's sandbox doing the runs;
- prime_code: verl's ``prime_code.compute_score(completion, test_cases, continuous=True)`` from the wheel: per
  check a ``multiprocessing.Manager`` and a fork of this process, running the code with no isolation and no memory
  limit (hence only known-correct solutions). Its leftover processes are reaped after every batch (any still
  alive are killed by pid and reported); what its children write to fd 1 is captured and counted.

Batches (``--batch``, default 60, about what one reward worker gets) hold light samples; the 16 heavy ones (the
reference's slowest case took >= 1 s in the dataset's own validation run, ``meta.validation``) get a batch of
their own, where the programs' run time (up to ~9 s a case) swamps every scorer's overhead and trips the other
legs' give-ups (``--mixed``: batches in file order). The legs take turns batch by batch, in rotated order, so
outside load hits all alike. Measured per leg: samples/s (all, light, heavy batches), each call's latency (pool
queueing included), each sample's score (verl's float), cases lost to infrastructure (judgebox's ``infra_error``,
verl's ``api_error``/``sandbox_error``) and to timeouts, and the CPU of every process (servers, sandboxes,
interpreters, forks) from run.py's cpuacct cgroup (needs root). Ratios are judgebox's samples/s over the leg's;
targets are checked on the whole run.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import logging
import multiprocessing
import os
import signal
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.table import Table

import sandboxfusion_standin
from judgebox.verl import default_compute_score, reference
from run import CORES, CpuMeter, Server, console, fmt, machine_busy, print_noise

ROOT = Path(__file__).resolve().parent.parent
WHEELS = ROOT / ".cache" / "verl"
DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "codecontests.jsonl"
DATA_SOURCE = "codecontests"
MEMORY_MB = 1024  # verl's reward.sandbox_fusion.memory_limit_mb default, and judgebox's
MAX_CONCURRENT = 64  # verl's reward.sandbox_fusion.max_concurrent default
HEAVY_SECONDS = 1.0  # a sample is heavy if its slowest case took this long in the dataset's validation run
INFRA_STATUSES = ("api_error", "sandbox_error", "internal_error", "unknown_api_state")
JUDGEBOX, STANDIN, ON_SERVE, PRIME = ("judgebox", "verl sandbox (SandboxFusion stand-in)",
                                     "verl sandbox on judgebox serve", "prime_code")
TARGETS = {STANDIN: 5.0, PRIME: 2.0}  # judgebox's samples/s over the leg's, at least, on the whole run
SELECTIONS: dict[str, Callable[[Batch], bool]] = {"": lambda b: True, "light_": lambda b: not b.heavy,
                                                 "heavy_": lambda b: b.heavy}  # figures over these batches


@dataclass
class Sample:
    id: str
    cases: int
    completion: str
    test_cases: dict[str, Any]
    strict: float  # the dataset's validation run of this solution: verl's exact comparison
    lenient: float  # whitespace and float tolerant
    slowest: float  # that run's slowest case, seconds

    @property
    def heavy(self) -> bool:
        return self.slowest >= HEAVY_SECONDS


@dataclass
class Batch:
    samples: list[int]  # indices into the samples
    heavy: bool  # holds the samples whose reference solution is slow


@dataclass
class Scored:
    score: float  # what verl keeps: a float
    why: str = ""  # a short reason when below 1
    infra: int = 0  # cases lost to the sandbox or the transport, not to the program
    timeouts: int = 0  # verl's sandbox legs: cases scored as timed out


@dataclass
class Leg:
    name: str
    how: str
    isolation: str
    score: Callable[[Sample], Scored]
    forks: bool = False  # prime_code: runs in forks of this process, cleaned up after every batch
    seconds: dict[tuple[int, int], float] = field(default_factory=dict)  # (round, batch) -> wall seconds
    cpu: dict[tuple[int, int], float] = field(default_factory=dict)  # (round, batch) -> CPU s, every process
    latencies: list[float] = field(default_factory=list)  # seconds, every sample of every round
    results: list[dict[int, Scored]] = field(default_factory=list)  # per round: sample index -> result
    logged: Counter[str] = field(default_factory=Counter)  # what verl's sandbox scorer logged
    leaked: int = 0  # prime_code: processes still alive after a batch, killed
    stdout_bytes: int = 0  # prime_code: what its children wrote to fd 1

    def run_batch(self, r: int, b: int, batch: list[int], samples: list[Sample], pool: ThreadPoolExecutor,
                  meter: CpuMeter, cleanup: Callable[[], int]) -> None:
        """Scores the batch; ``r < 0`` is a warm-up, not recorded."""
        latencies = [0.0] * len(batch)

        def one(k: int) -> Scored:
            started = time.perf_counter()
            try:
                return self.score(samples[batch[k]])
            finally:
                latencies[k] = time.perf_counter() - started

        with self.captured_stdout() if self.forks else contextlib.nullcontext():
            cpu0, started = meter.seconds(), time.perf_counter()
            results = list(pool.map(one, range(len(batch))))
            seconds, cpu = time.perf_counter() - started, meter.seconds()
        if self.forks:
            self.leaked += cleanup()
        if r < 0:
            return
        self.seconds[r, b] = seconds
        if cpu0 is not None:
            self.cpu[r, b] = cpu - cpu0
        self.latencies += latencies
        while len(self.results) <= r:
            self.results.append({})
        self.results[r].update(zip(batch, results))

    @contextlib.contextmanager
    def captured_stdout(self) -> Iterator[None]:
        """fd 1 to a temporary file while prime_code runs: its children's ``os.write(1, ...)`` and the like
        bypass its ``sys.stdout`` redirection and would land in the trainer's (here: our) output."""
        sys.stdout.flush()
        saved = os.dup(1)
        with tempfile.TemporaryFile() as sink:
            os.dup2(sink.fileno(), 1)
            try:
                yield
            finally:
                sys.stdout.flush()
                os.dup2(saved, 1)
                os.close(saved)
                self.stdout_bytes += os.fstat(sink.fileno()).st_size

    def per_sample(self, measure: dict[tuple[int, int], float], batches: list[Batch],
                   which: Callable[[Batch], bool] = lambda b: True) -> float | None:
        """Seconds (wall or CPU) per sample over the chosen batches, median over rounds."""
        chosen = [i for i, b in enumerate(batches) if which(b)]
        if not chosen or not measure:
            return None
        size = sum(len(batches[i].samples) for i in chosen)
        return statistics.median(sum(measure[r, i] for i in chosen) / size for r in range(len(self.results)))

    def figures(self, n: int, batches: list[Batch]) -> dict[str, Any]:
        rounds, last = len(self.results), self.results[-1]
        scores = [[self.results[i][k].score for k in range(n)] for i in range(rounds)]
        perfect = [sum(s == 1.0 for s in r) for r in scores]
        speed: dict[str, float | None] = {}
        for kind, which in SELECTIONS.items():
            wall, cpu = self.per_sample(self.seconds, batches, which), self.per_sample(self.cpu, batches, which)
            speed[f"{kind}samples_per_s"] = 1 / wall if wall else None
            speed[f"{kind}cpu_ms_per_sample"] = cpu * 1e3 if cpu else None
        return {"how": self.how, "isolation": self.isolation, "rounds": rounds, **speed,
                "wall_s": statistics.median(sum(s for (r, _), s in self.seconds.items() if r == i)
                                            for i in range(rounds)),
                "batch_wall_s": {f"{r}/{b}": s for (r, b), s in self.seconds.items()},
                "latency_median_s": statistics.median(self.latencies),
                "latency_p90_s": sorted(self.latencies)[int(0.9 * (len(self.latencies) - 1))],
                "mean_score": statistics.fmean(scores[-1]), "mean_score_rounds": [statistics.fmean(r) for r in scores],
                "perfect": perfect[-1], "perfect_rounds": perfect,
                "samples_flipped": sum(any(r[k] != scores[0][k] for r in scores) for k in range(n)),
                "infra_cases": sum(s.infra for s in last.values()),
                "infra_samples": sum(s.infra > 0 for s in last.values()),
                "timeout_cases": sum(s.timeouts for s in last.values()), "verl_logged": dict(self.logged),
                "leaked_processes": self.leaked, "stdout_bytes_leaked": self.stdout_bytes}


def load_samples(limit: int | None, light_only: bool = False) -> list[Sample]:
    samples = []
    with DATA.open() as f:
        for line in f:
            record = json.loads(line)
            validation = record["meta"]["validation"]["solutions"][0]
            samples.append(Sample(record["id"], len(record["test_cases"]["inputs"]),
                                  "```python\n" + record["solutions"][0] + "\n```", record["test_cases"],
                                  validation["strict"], validation["lenient"], validation["max_t"]))
    return [s for s in samples if not (light_only and s.heavy)][:limit]


def make_batches(samples: list[Sample], size: int, mixed: bool) -> list[Batch]:
    """Light samples in batches of ``size``, then the heavy ones in batches of their own; or, ``mixed``, all of
    them in file order."""
    def split(indices: list[int], heavy: bool) -> list[Batch]:
        return [Batch(indices[i:i + size], heavy) for i in range(0, len(indices), size)]

    if mixed:
        return [Batch(b.samples, any(samples[k].heavy for k in b.samples))
                for b in split(list(range(len(samples))), False)]
    return (split([k for k, s in enumerate(samples) if not s.heavy], False)
            + split([k for k, s in enumerate(samples) if s.heavy], True))


class LogCounter(logging.Handler):
    """Counts what verl's sandbox scorer logs (504 retries, failed calls, each with the whole program and
    input), for the leg running now, instead of letting logging's last-resort handler print it all."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.leg: Leg | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self.leg is not None:
            self.leg.logged[record.levelname] += 1
            message = record.getMessage()
            if "(504)" in message and "attempt" in message:
                self.leg.logged["504 retried"] += 1


def forks_of_me() -> set[int]:
    """Live descendants of this process that are forks of it (the same command line, not exec'd): what
    multiprocessing starts, i.e. prime_code's Managers and test children, and verl's semaphore Manager.
    judgebox's zygotes, the servers and the stand-in's interpreters are exec'd, so they are not counted."""
    me = os.getpid()
    with open(f"/proc/{me}/cmdline", "rb") as f:
        cmdline = f.read()
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    stat = f.read()
                parents[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = set(), {me}
    while frontier:
        frontier = {pid for pid, ppid in parents.items() if ppid in frontier} - found
        found |= frontier
    forks = set()
    for pid in found:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f.read() == cmdline:
                    forks.add(pid)
        except OSError:
            continue
    return forks


def make_cleanup(baseline: set[int]) -> Callable[[], int]:
    """After a prime_code batch: collect its Managers (their finalizers shut their server processes down),
    reap its children, then kill, by pid, any fork of this process that is new since ``baseline``."""

    def cleanup() -> int:
        deadline = time.monotonic() + 10
        while True:
            gc.collect()
            multiprocessing.active_children()  # joins the finished ones
            left = forks_of_me() - baseline
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        multiprocessing.active_children()
        if left:
            console.print(f"[red]prime_code left {len(left)} processes behind; killed {sorted(left)}[/]")
        return len(left)

    return cleanup


def make_legs(urls: dict[str, str], semaphore: Any, sandbox_fusion: Any, prime_code: Any) -> list[Leg]:
    def judgebox_score(s: Sample) -> Scored:
        result = default_compute_score(DATA_SOURCE, s.completion, s.test_cases)
        infra = result["infra_error"]
        return Scored(result["score"], result["verdict"] + (f", infra: {result['error']}" if infra else ""),
                      s.cases if infra else 0)

    def sandbox_score(url: str) -> Callable[[Sample], Scored]:
        def score(s: Sample) -> Scored:
            score, metadata = sandbox_fusion.compute_score(url, semaphore, MEMORY_MB, s.completion, s.test_cases,
                                                           continuous=True)
            statuses = Counter(m.get("status", m.get("error", "?")) for m in metadata if isinstance(m, dict))
            return Scored(float(score), ", ".join(f"{k} ×{v}" for k, v in statuses.items() if k != "success"),
                          sum(statuses[k] for k in INFRA_STATUSES), statuses["timeout"])
        return score

    def prime_score(s: Sample) -> Scored:
        result = prime_code.compute_score(s.completion, s.test_cases, continuous=True)
        score, metadata = float(result[0]), result[1]
        if score == 1.0:
            return Scored(score)
        items = metadata if isinstance(metadata, list) else [metadata or {}]
        errors = Counter(str(m.get("error_message") or m.get("error") or m.get("test_case", {}).get("res", "?"))[:70]
                         for m in items if isinstance(m, dict))
        return Scored(score, ", ".join(f"{k} ×{v}" for k, v in errors.most_common(2)))

    return [Leg(JUDGEBOX, "embedded default_compute_score, profile judgebox", "judgebox sandbox", judgebox_score),
            Leg(STANDIN, "verl's sandbox_fusion → SandboxFusion stand-in /run_code, a fresh python3 per case",
                "none (rlimits)", sandbox_score(urls[STANDIN])),
            Leg(ON_SERVE, "verl's sandbox_fusion → judgebox serve /run_code, 1 request per case",
                "judgebox sandbox", sandbox_score(urls[ON_SERVE])),
            Leg(PRIME, "verl's prime_code: Manager + fork per check, in this process", "none", prime_score,
                forks=True)]


def report(legs: list[Leg], samples: list[Sample], batches: list[Batch], args: argparse.Namespace,
           seconds: float, others: float | None) -> dict[str, Any]:
    n, heavy = len(samples), sum(s.heavy for s in samples)
    figures = {leg.name: leg.figures(n, batches) for leg in legs}
    own, ours = legs[0], figures[JUDGEBOX]
    kinds = "mixed batches" if args.mixed else (f"{sum(not b.heavy for b in batches)} light and "
                                                f"{sum(b.heavy for b in batches)} heavy batches")
    table = Table(title=f"verl code reward on {n} CodeContests samples ({sum(s.cases for s in samples)} cases; "
                        f"reference solutions, {heavy} heavy): {ours['rounds']} round(s) of {kinds}, legs "
                        f"interleaved, {args.threads} threads, {CORES} cores, {seconds:.0f} s",
                  caption=f"heavy: the reference's slowest case took ≥ {HEAVY_SECONDS:g} s in the dataset's "
                          "validation run; median/p90 s: one compute_score call, pool queueing included; CPU: ms per "
                          "sample, every process (servers, sandboxes, interpreters, forks); score: mean; infra: "
                          "cases lost to the sandbox or transport; TLE: cases verl scored as timed out")
    for header in ("leg", "samples/s", "light", "heavy", "median s", "p90 s", "CPU ms", "light CPU", "score",
                   "at 1.0", "infra", "TLE"):
        table.add_column(header, justify="left" if header == "leg" else "right", no_wrap=header == "leg")
    for leg in legs:
        f = figures[leg.name]
        table.add_row(leg.name, f"{f['samples_per_s']:.2f}", fmt(f["light_samples_per_s"], ".2f"),
                      fmt(f["heavy_samples_per_s"], ".2f"), f"{f['latency_median_s']:.2f}",
                      f"{f['latency_p90_s']:.1f}", fmt(f["cpu_ms_per_sample"], ".0f"),
                      fmt(f["light_cpu_ms_per_sample"], ".0f"), f"{f['mean_score']:.3f}",
                      "/".join(map(str, f["perfect_rounds"])), str(f["infra_cases"]),
                      str(f["timeout_cases"]) if leg.name in (STANDIN, ON_SERVE) else "—")
    console.print(table)

    ratios = Table(title="judgebox is this many times faster (judgebox ÷ leg, samples/s)",
                   caption="by CPU: the leg's CPU per sample ÷ judgebox's; light: all light batches together, "
                           "the median of per-batch ratios, and by CPU; heavy: unequal work, see below; target: on "
                           "the whole run (against verl on judgebox serve: none, shown for transparency)")
    columns = {"whole run": "speedup", "by CPU": "speedup_by_cpu", "light": "light_speedup",
               "light, batch median": "light_speedup_batch_median", "light, by CPU": "light_speedup_by_cpu",
               "heavy": "heavy_speedup", "heavy, by CPU": "heavy_speedup_by_cpu"}
    for header in ("than", *columns, "target"):
        ratios.add_column(header, justify="left" if header == "than" else "right", no_wrap=header == "than")
    met = {True: "[green]met[/]", False: "[red]NOT met[/]"}
    for leg in legs[1:]:
        f = figures[leg.name]
        for kind in SELECTIONS:
            rate, ours_rate = f[f"{kind}samples_per_s"], ours[f"{kind}samples_per_s"]
            cpu, ours_cpu = f[f"{kind}cpu_ms_per_sample"], ours[f"{kind}cpu_ms_per_sample"]
            f[f"{kind}speedup"] = ours_rate / rate if ours_rate and rate else None
            f[f"{kind}speedup_by_cpu"] = cpu / ours_cpu if cpu and ours_cpu else None
        light = [k for k in leg.seconds if not batches[k[1]].heavy]
        f["light_speedup_batch_median"] = (statistics.median(leg.seconds[k] / own.seconds[k] for k in light)
                                           if light else None)
        f["target"] = TARGETS.get(leg.name)
        f["target_met"] = None if f["target"] is None else f["speedup"] >= f["target"]
        ratios.add_row(leg.name, *(fmt(f[key], ".2f", "×") for key in columns.values()),
                       "—" if f["target"] is None else f"≥{f['target']:g}× {met[f['target_met']]}")
    console.print(ratios)
    console.print(f"Isolation: judgebox and verl sandbox on judgebox serve run every program in judgebox's sandbox "
                  f"(10 CPU s, 1024 MB per case); the SandboxFusion stand-in runs `{sandboxfusion_standin.PYTHON} "
                  "<file>` through bash as this user, as SandboxFusion's default `isolation: none` does (1024 MB as "
                  "RLIMIT_AS/DATA/STACK, 10 s of wall clock); prime_code runs it in a fork of the reward process "
                  "itself: no isolation, no memory limit, 6 s for the whole suite, then 10 s per case.")

    strict, lenient = sum(s.strict == 1.0 for s in samples), sum(s.lenient == 1.0 for s in samples)
    console.print("Score 1.0: " + ", ".join(f"{leg.name} {figures[leg.name]['perfect']}" for leg in legs)
                  + f" of {n} (last round); the dataset's own validation run of these solutions: {strict} with verl's "
                  f"exact comparison, {lenient} with a whitespace- and float-tolerant one.")
    for leg in legs:
        f = figures[leg.name]
        notes = [f"{f['infra_cases']} cases of {f['infra_samples']} samples lost to infrastructure"
                 if f["infra_cases"] else "",
                 f"{f['samples_flipped']} samples scored differently between rounds" if f["samples_flipped"] else "",
                 f"{f['leaked_processes']} leftover processes killed" if f["leaked_processes"] else "",
                 f"its children wrote {f['stdout_bytes_leaked']} bytes to the reward process's stdout"
                 if f["stdout_bytes_leaked"] else "",
                 "verl logged " + ", ".join(f"{v} {k}" for k, v in leg.logged.most_common()) if leg.logged else ""]
        if any(notes):
            console.print(f"[yellow]{leg.name}: {'; '.join(filter(None, notes))}[/]")
    last = {leg.name: [leg.results[-1][k] for k in range(n)] for leg in legs}
    for other in (leg.name for leg in legs[1:]):
        higher = [k for k in range(n) if last[JUDGEBOX][k].score > last[other][k].score]
        lower = [k for k in range(n) if last[JUDGEBOX][k].score < last[other][k].score]
        figures[other].update(judgebox_higher=len(higher), judgebox_lower=[samples[k].id for k in lower])
        console.print(f"judgebox vs {other}: judgebox scores higher on {len(higher)} samples, lower on {len(lower)}"
                      + (":" if lower else "."))
        for k in lower[: args.show]:
            console.print(f"  {samples[k].id}: judgebox {last[JUDGEBOX][k].score:.2f} ({last[JUDGEBOX][k].why}), "
                          f"{other} {last[other][k].score:.2f} ({last[other][k].why})")
    heavy_ids = [k for k in range(n) if samples[k].heavy]
    if heavy_ids:
        for leg in legs:
            figures[leg.name].update(
                heavy_perfect=sum(last[leg.name][k].score == 1.0 for k in heavy_ids),
                heavy_infra_cases=sum(last[leg.name][k].infra for k in heavy_ids),
                heavy_timeout_cases=sum(last[leg.name][k].timeouts for k in heavy_ids))
        console.print(f"Heavy samples, score 1.0 (of {heavy}): " + ", ".join(
            f"{leg.name} {figures[leg.name]['heavy_perfect']}"
            + "".join(f" ({figures[leg.name][key]} cases {what})" for key, what in (
                ("heavy_infra_cases", "lost to infrastructure"), ("heavy_timeout_cases", "timed out"))
                if figures[leg.name][key]) for leg in legs)
            + ". A leg that gives up on a slow case (a wall-clock TLE under overload; 504 → api_error; prime_code's "
            "6 s suite budget) finishes its batch sooner by running less.")
    below = [k for k in range(n) if last[JUDGEBOX][k].score < 1.0]
    console.print(f"judgebox below 1.0 on {len(below)} samples: "
                  + ", ".join(f"{v} {c}" for v, c in Counter(last[JUDGEBOX][k].why for k in below).most_common()))
    print_noise(others, seconds)
    return {"samples": n, "heavy_samples": heavy, "batches": [{"size": len(b.samples), "heavy": b.heavy}
                                                              for b in batches],
            "threads": args.threads, "rounds": ours["rounds"], "cores": CORES, "seconds": seconds,
            "others_cpu_s": others, "dataset_strict_perfect": strict, "dataset_lenient_perfect": lenient,
            "standin_python": sandboxfusion_standin.PYTHON, "legs": figures,
            "per_sample": [{"id": s.id, "heavy": s.heavy, "strict": s.strict, "lenient": s.lenient,
                            **{leg: {"score": last[leg][k].score, "why": last[leg][k].why} for leg in last}}
                           for k, s in enumerate(samples)]}


def main() -> int:
    """run.py's command line (``--quick``, ``--json PATH``, a CPU meter made before anything starts) and this
    benchmark's own options."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a ~1 min run: 60 light samples, batches of 30, 3 rounds")
    parser.add_argument("--json", metavar="PATH", help="also write the figures (and every sample's scores) as JSON")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N samples (default: all 300)")
    parser.add_argument("--threads", type=int, default=32, help="samples scored at once by each leg (default 32)")
    parser.add_argument("--batch", type=int, default=60, help="samples per batch; legs take turns per batch (60)")
    parser.add_argument("--mixed", action="store_true", help="batches in file order, heavy samples not set apart")
    parser.add_argument("--light", action="store_true", help="leave the 16 heavy samples out")
    parser.add_argument("--rounds", type=int, help="passes over the samples (default 1, --quick 3)")
    parser.add_argument("--show", type=int, default=10, help="samples listed where judgebox scores lower (10)")
    args = parser.parse_args()
    if args.quick:
        args.limit, args.batch = args.limit or 60, min(args.batch, 30)
    args.rounds = args.rounds or (3 if args.quick else 1)
    meter = CpuMeter()  # before the judge and the servers start, so that they are inside its cgroup
    try:
        return run(args, meter)
    finally:
        meter.close()


def run(args: argparse.Namespace, meter: CpuMeter) -> int:
    samples = load_samples(args.limit, light_only=args.quick or args.light)
    batches = make_batches(samples, args.batch, args.mixed)
    wheel = reference.find_wheel(WHEELS)
    if wheel is None:
        console.print(f"[red]no verl 0.9.1 wheel in {WHEELS}: run scripts/setup.sh --test (make setup-test)[/]")
        return 1
    sandbox_fusion, prime_code = reference.load(wheel)
    log = LogCounter()
    verl_log = logging.getLogger(sandbox_fusion.__name__.split(".")[0])
    verl_log.addHandler(log)
    verl_log.setLevel(logging.WARNING)  # as under verl's default logging: its per-case INFO lines are not built
    verl_log.propagate = False
    manager = multiprocessing.Manager()  # verl's: one per reward worker, made before any scoring
    semaphore = manager.Semaphore(MAX_CONCURRENT)
    with contextlib.ExitStack() as stack:
        stack.callback(manager.shutdown)
        # One trainer's server, as such a deployment runs it: verl's SandboxFusion requests declare no caller
        serve = Server("judgebox serve", [sys.executable, "-m", "judgebox.tools.cli", "serve", "--share-caches",
                                          "--log-level", "warning"])
        stack.callback(serve.close)
        health = serve.self_tested()
        standin = Server("the SandboxFusion stand-in", [sys.executable, sandboxfusion_standin.__file__])
        stack.callback(standin.close)
        legs = make_legs({STANDIN: standin.url + "/run_code", ON_SERVE: serve.url + "/run_code"}, semaphore,
                         sandbox_fusion, prime_code)
        console.print(f"{wheel.name}; judgebox serve on {serve.url}: {health['status']}, {health['slots']} slots; "
                      f"SandboxFusion stand-in on {standin.url}, running {sandboxfusion_standin.PYTHON}; "
                      f"{len(samples)} samples, {sum(s.cases for s in samples)} cases "
                      f"({sum(s.heavy for s in samples)} samples heavy); batches of {args.batch}, each leg maps "
                      f"ThreadPoolExecutor({args.threads}) over a batch")
        if meter.path is None:
            console.print("[yellow]no cgroup v1 cpuacct group of our own (needs root): CPU is not reported[/]")
        with ThreadPoolExecutor(args.threads) as pool:
            warm = [k for k, s in enumerate(samples) if not s.heavy][: 2 * CORES]
            cleanup = make_cleanup(set())
            for leg in sorted(legs, key=lambda leg: leg.forks):  # warm-up, not timed: the judge, connections, paths
                if leg.forks:  # taken now: verl's semaphore Manager is the only fork of us
                    cleanup = make_cleanup(forks_of_me())
                log.leg = leg
                leg.run_batch(-1, -1, warm, samples, pool, meter, cleanup)
                leg.logged.clear()
            started, busy0, cpu0, turn = time.perf_counter(), machine_busy(), meter.seconds(), 0
            for r in range(args.rounds):
                for b, batch in enumerate(batches):
                    for leg in legs[turn % len(legs):] + legs[: turn % len(legs)]:
                        log.leg = leg
                        leg.run_batch(r, b, batch.samples, samples, pool, meter, cleanup)
                    turn += 1
                    console.print(f"round {r + 1}/{args.rounds}, batch {b + 1}/{len(batches)} "
                                  f"({len(batch.samples)}{' heavy' if batch.heavy else ''} samples): "
                                  + ", ".join(f"{leg.name} {leg.seconds[r, b]:.1f} s" for leg in legs)
                                  + f"; {time.perf_counter() - started:.0f} s")
            seconds, busy, cpu = time.perf_counter() - started, machine_busy() - busy0, meter.seconds()
    figures = report(legs, samples, batches, args, seconds, None if cpu is None else max(0.0, busy - (cpu - cpu0)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**figures, "wheel": wheel.name, "server_health": health}, f, indent=2)
        console.print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
