"""Judge each distinct program once: a GRPO-shaped batch judged with dedupe on and off, in interleaved rounds.

Workload. P prompts (the first MBPP problems of tests/data/mbpp.jsonl with a reference solution; 32, or 8 with
``--quick``) x 16 samples, as one GRPO step judges them. Each group of 16 is drawn (seeded) from a model of
how a policy's samples repeat, not from a measurement: no public GRPO run reports its rate of byte-identical
extracted programs, so the shape is stated here and its knobs are the constants below. A group holds 3 to
12 distinct programs (uniform, ``DISTINCT``); their counts follow Zipf's law (the k-th most common is
drawn with weight 1/k; every drawn program at least once). The most common one is the reference solution
itself in 60% of groups (a prompt the policy solves), else one of the wrong programs. The pool of programs
per prompt: the reference, the reference reformatted (an added comment or blank lines: a distinct program,
the same behaviour, as sampled completions differ), the entry point returning None (WA), the entry point
returning its first argument (WA), and the reference exiting first (RE); so a group mixes right and wrong.

Method. The same batch goes through ``Judge.judge_many`` (everything submitted at once, results as they end)
with a fresh :class:`judgebox.judging.dedupe.ResultCache` (dedupe on) and with ``dedupe=None`` (off), the two taking
turns, the order alternating round by round. Checked: every round's results are identical per sample (verdict,
every case's verdict, score) whichever way they were judged; with dedupe on, the judgements that ran equal the
number of distinct submissions (cache misses) and the pool's jobs equal those submissions' cases; with dedupe
off, every submission's cases ran. Reported per mode: wall seconds per round (median), programs run, sandbox
runs, CPU seconds of the whole process tree (run.py's cpuacct group; needs root), and the off/on ratios.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from rich.table import Table

from judgebox import Judge, Submission
from judgebox.judging.dedupe import ResultCache, submission_key
from run import CORES, CpuMeter, WrongResult, console, entry, fmt, machine_busy, print_noise

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "mbpp.jsonl"
GROUP = 16  # samples per prompt (GRPO's n / rollout.n)
DISTINCT = (3, 12)  # distinct programs per group, uniform in this range
SOLVED = 0.6  # share of groups whose most common program is the reference
SEED = 11


def main() -> int:
    return entry(__doc__, "8 prompts, 2 rounds (one each way)", run)


def _entry_point(reference: str, first_assert: str) -> str:
    """The function the problem's asserts call: one the reference defines."""
    defined = {node.name for node in ast.walk(ast.parse(reference)) if isinstance(node, ast.FunctionDef)}
    return next(node.func.id for node in ast.walk(ast.parse(first_assert))
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in defined)


def _programs(problem: dict) -> tuple[list[str], list[str]]:
    """A prompt's right programs (the reference first) and wrong ones."""
    reference = problem["solutions"][0]
    name = _entry_point(reference, problem["test_cases"]["assert_case"][0])
    right = [reference, reference + "\n# checked against the examples\n", "\n\n" + reference + "\n\n"]
    wrong = [f"{reference}\n\ndef {name}(*args, **kwargs):\n    return None\n",
             f"{reference}\n\ndef {name}(*args, **kwargs):\n    return args[0] if args else 0\n",
             "raise SystemExit(1)\n" + reference]
    return right, wrong


def _group(rng: random.Random, right: list[str], wrong: list[str]) -> list[str]:
    """16 samples of one prompt: a few distinct programs, Zipf-distributed counts, each drawn at least once."""
    pool = right + wrong
    distinct = rng.randint(*DISTINCT)
    head = right[0] if rng.random() < SOLVED else rng.choice(wrong)
    others = [p for p in pool if p != head]
    rng.shuffle(others)
    chosen = [head, *others]
    while len(chosen) < distinct:  # more distinct programs than the pool holds: reformatted copies of its own
        chosen.append(f"{rng.choice(pool)}\n# sample {len(chosen)}\n")
    chosen = chosen[:distinct]
    weights = [1 / rank for rank in range(1, len(chosen) + 1)]
    samples = chosen + rng.choices(chosen, weights, k=GROUP - len(chosen))
    rng.shuffle(samples)
    return samples


def workload(judge: Judge, prompts: int) -> list[Submission]:
    rng = random.Random(SEED)
    problems = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    problems = [p for p in problems if p["solutions"] and p["test_cases"].get("assert_case")][:prompts]
    batch = []
    for problem in problems:
        right, wrong = _programs(problem)
        batch += [judge.submission(code, problem["test_cases"]) for code in _group(rng, right, wrong)]
    return batch


def _signature(result: Any) -> tuple:
    return result.verdict.value, tuple(case.verdict.value for case in result.cases), result.score


def _round(judge: Judge, batch: list[Submission], dedupe: bool, meter: CpuMeter) -> dict[str, Any]:
    judge.dedupe = ResultCache() if dedupe else None
    jobs, cpu, started = judge.stats().jobs_started, meter.seconds(), time.monotonic()
    results = dict(judge.judge_many(batch))
    seconds = time.monotonic() - started
    spent = meter.seconds()
    stats = judge.dedupe.stats() if judge.dedupe is not None else None
    return {"dedupe": dedupe, "seconds": seconds, "runs": judge.stats().jobs_started - jobs,
            "programs": stats["misses"] if stats else len(batch), "stats": stats,
            "cpu_s": spent - cpu if spent is not None and cpu is not None else None,
            "signatures": [_signature(results[i]) for i in range(len(batch))]}


def run(args: argparse.Namespace, meter: CpuMeter) -> int:
    prompts = 8 if args.quick else 32
    pairs = 1 if args.quick else 3
    busy_before, started = machine_busy(), time.monotonic()
    with Judge() as judge:
        batch = workload(judge, prompts)
        distinct = {submission_key(s): s for s in batch}
        distinct_runs = sum(len(s.cases) for s in distinct.values())
        console.print(f"{len(batch)} samples ({prompts} prompts x {GROUP}), {len(distinct)} distinct programs "
                      f"({100 * (1 - len(distinct) / len(batch)):.0f}% repeats), {distinct_runs} distinct runs "
                      f"of {sum(len(s.cases) for s in batch)}; {pairs} pairs of rounds on {CORES} cores")
        list(judge.judge_many(batch[:GROUP]))  # warm the slots
        rounds = []
        for pair in range(pairs):
            for dedupe in ((True, False) if pair % 2 == 0 else (False, True)):
                rounds.append(_round(judge, batch, dedupe, meter))
    try:
        figures = _figures(rounds, batch, len(distinct), distinct_runs)
    except WrongResult as exc:
        console.print(f"[red]the benchmark is void: {exc}[/]")
        return 1
    seconds = time.monotonic() - started
    spent = sum(r["cpu_s"] for r in rounds) if all(r["cpu_s"] is not None for r in rounds) else None
    figures.update(workload={"prompts": prompts, "group": GROUP, "distinct_per_group": list(DISTINCT),
                             "solved_share": SOLVED, "seed": SEED, "samples": len(batch),
                             "distinct": len(distinct), "repeat_share": 1 - len(distinct) / len(batch)},
                   rounds_per_mode=pairs, seconds=seconds)
    _show(figures)
    others = machine_busy() - busy_before - spent if spent is not None else None
    print_noise(others, seconds)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
        console.print(f"figures written to {args.json}")
    return 0


def _figures(rounds: list[dict], batch: list[Submission], distinct: int, distinct_runs: int) -> dict[str, Any]:
    reference = rounds[0]["signatures"]
    for r in rounds:
        if r["signatures"] != reference:
            wrong = next(i for i, (a, b) in enumerate(zip(r["signatures"], reference)) if a != b)
            raise WrongResult(f"sample {wrong} judged {r['signatures'][wrong]} with dedupe "
                              f"{'on' if r['dedupe'] else 'off'}, {reference[wrong]} in the first round")
        expected = (distinct, distinct_runs) if r["dedupe"] else (len(batch), sum(len(s.cases) for s in batch))
        if (r["programs"], r["runs"]) != expected:
            raise WrongResult(f"dedupe {'on' if r['dedupe'] else 'off'}: {r['programs']} programs judged and "
                              f"{r['runs']} runs, expected {expected[0]} and {expected[1]}")
    modes = {}
    for dedupe, name in ((True, "on"), (False, "off")):
        mine = [r for r in rounds if r["dedupe"] is dedupe]
        cpu = [r["cpu_s"] for r in mine if r["cpu_s"] is not None]
        modes[name] = {"seconds": statistics.median(r["seconds"] for r in mine),
                       "seconds_rounds": [round(r["seconds"], 2) for r in mine],
                       "programs_judged": mine[0]["programs"], "runs": mine[0]["runs"],
                       "cpu_s": statistics.median(cpu) if cpu else None,
                       "samples_per_s": len(batch) / statistics.median(r["seconds"] for r in mine),
                       "cache": mine[0]["stats"]}
    on, off = modes["on"], modes["off"]
    verdicts: dict[str, int] = {}
    for signature in reference:
        verdicts[signature[0]] = verdicts.get(signature[0], 0) + 1
    return {"modes": modes, "verdicts": verdicts, "speedup": off["seconds"] / on["seconds"],
            "runs_ratio": off["runs"] / on["runs"],
            "cpu_ratio": off["cpu_s"] / on["cpu_s"] if on["cpu_s"] and off["cpu_s"] else None}


def _show(figures: dict[str, Any]) -> None:
    table = Table(title=f"GRPO-shaped batch: {figures['workload']['samples']} samples, "
                        f"{figures['rounds_per_mode']} rounds each way, {figures['seconds']:.0f} s")
    for header in ("dedupe", "programs judged", "sandbox runs", "wall s (median)", "samples/s", "CPU s", "rounds"):
        table.add_column(header, justify="left" if header == "dedupe" else "right")
    for name, mode in figures["modes"].items():
        table.add_row(name, str(mode["programs_judged"]), str(mode["runs"]), f"{mode['seconds']:.2f}",
                      f"{mode['samples_per_s']:.0f}", fmt(mode["cpu_s"], ".1f"),
                      " ".join(f"{s:.2f}" for s in mode["seconds_rounds"]))
    console.print(table)
    cache = figures["modes"]["on"]["cache"]
    console.print(f"verdicts {figures['verdicts']}, identical both ways; dedupe on: {cache['misses']} judged, "
                  f"{cache['shared_in_flight']} shared in flight, {cache['hits']} hits")
    console.print(f"off/on: wall {figures['speedup']:.2f}x, runs {figures['runs_ratio']:.2f}x, "
                  f"CPU {fmt(figures['cpu_ratio'], '.2f', 'x')}")


if __name__ == "__main__":
    sys.exit(main())
