"""Ray scale-out: the same workload judged by Ray clusters of 1 and 2 nodes and by the embedded judge with 1
and 2 slots (``python bench/scale_ray.py [--quick] [--json PATH]``).

The workload is MBPP's references (assert cases, tests/data), each round's programs made distinct by a
comment so no round is a dedupe hit. Both clusters are real (tests/support/raycluster.py: nodes of one CPU each, in
network namespaces of their own, a driver in each left running between rounds); the rounds are interleaved,
each contender once per round in a rotating order, and figures are medians over rounds.

Reported: cases/s of each, the 2-over-1 ratios, the coordination cost (Ray's ms per case over the embedded
judge's at equal slots), the driver's CPU per case, and a model of a real cluster: a case costs a slot
``run`` ms (the embedded judge with 1 slot), the driver ``driver`` CPU ms, so N nodes of C cores judge
``min(N*C / run, 1 / driver)`` cases per second, and the driver saturates at ``N*C = run / driver`` slots.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from ray_driver import submissions
from raycluster import RayCluster, answer_in

import judgebox
from run import CpuMeter, console, entry, fmt, machine_busy, print_noise


def main() -> int:
    return entry(__doc__, "a short run: 2 rounds of 100 MBPP problems", run)


class RayContender:
    def __init__(self, cluster: RayCluster, spec: dict[str, Any], nodes: int) -> None:
        self.name, self.slots = f"ray, {nodes} node{'s' * (nodes > 1)}", nodes
        self.driver = cluster.start_driver({**spec, "nodes": nodes, "rounds_on_stdin": True})
        answer_in(self.driver.stdout)  # once its actors are ready

    def round(self, number: int) -> dict[str, float]:
        self.driver.stdin.write(f"{number}\n")
        self.driver.stdin.flush()
        return answer_in(self.driver.stdout)

    def close(self) -> None:
        self.driver.stdin.close()
        self.driver.wait(timeout=60)


class EmbeddedContender:
    def __init__(self, spec: dict[str, Any], slots: int) -> None:
        self.name, self.slots, self.spec = f"embedded, {slots} slot{'s' * (slots > 1)}", slots, spec
        self.judge = judgebox.Judge(slots=slots, dedupe=False)

    def round(self, number: int) -> dict[str, float]:
        work = submissions(self.spec, number)
        cpu, begun = time.process_time(), time.monotonic()
        wrong = sum(r.verdict is not judgebox.Verdict.AC for _, r in self.judge.judge_many(work))
        return {"seconds": time.monotonic() - begun, "driver_cpu": time.process_time() - cpu,
                "cases": sum(len(s.cases) for s in work), "wrong": wrong}

    def close(self) -> None:
        self.judge.close()


def run(args: argparse.Namespace, meter: CpuMeter) -> int:
    spec = {"records": "mbpp.jsonl", "cpu_time": 20, "limit": 100 if args.quick else 400}
    rounds = 2 if args.quick else 5
    busy, ours, started = machine_busy(), meter.seconds(), time.monotonic()
    with tempfile.TemporaryDirectory(prefix="jbx-scale-ray-") as folder:
        console.print("starting two Ray clusters (1 and 2 nodes of one CPU each)...")
        with RayCluster(Path(folder, "one"), nodes=1) as one, RayCluster(Path(folder, "two"), nodes=2) as two:
            contenders = [EmbeddedContender(spec, 1), EmbeddedContender(spec, 2), RayContender(one, spec, 1),
                          RayContender(two, spec, 2)]
            try:
                measured = _interleaved(contenders, rounds)
            finally:
                for contender in contenders:
                    contender.close()
    figures = _figures(measured, rounds, spec)
    figures["seconds"] = time.monotonic() - started
    # the clusters are this process's descendants, so in the meter's group: the rest is other processes'
    figures["others_cpu_s"] = None if ours is None else machine_busy() - busy - (meter.seconds() - ours)
    _show(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2))
        console.print(f"figures written to {args.json}")
    return 0 if figures["wrong"] == 0 else 1


def _interleaved(contenders: list, rounds: int) -> dict[str, list[dict[str, float]]]:
    measured: dict[str, list[dict[str, float]]] = {c.name: [] for c in contenders}
    for number in range(1, rounds + 1):  # round 0's programs are the references as they are: not reused here
        order = contenders[number % len(contenders):] + contenders[: number % len(contenders)]
        for contender in order:
            figures = contender.round(number)
            measured[contender.name].append(figures)
            console.print(f"round {number} {contender.name}: {figures['cases'] / figures['seconds']:.0f} cases/s")
    return measured


def _figures(measured: dict[str, list[dict[str, float]]], rounds: int, spec: dict[str, Any]) -> dict[str, Any]:
    def median(name: str, key: str) -> float:
        return statistics.median(r[key] for r in measured[name])

    rate = {name: statistics.median(r["cases"] / r["seconds"] for r in runs) for name, runs in measured.items()}
    e1, e2, r1, r2 = "embedded, 1 slot", "embedded, 2 slots", "ray, 1 node", "ray, 2 nodes"
    cases = measured[r1][0]["cases"]
    run_ms = 1000 / rate[e1]  # a slot's time per case
    driver_ms = 1000 * median(r2, "driver_cpu") / cases  # at this machine's batches (1-CPU nodes: one program)
    key_ms = 1000 * median(r2, "key_cpu") / cases
    batches = median(r2, "batches")
    call_ms = (driver_ms - key_ms) * cases / batches
    overhead = {"1 slot": 1000 / rate[r1] - 1000 / rate[e1], "2 slots": 1000 / rate[r2] - 1000 / rate[e2]}

    def driver_at(cores: int) -> float:  # a node of C slots gets batches of about C cases
        return key_ms + call_ms / max(cores, cases / batches)

    model = {f"{n} nodes x {c} cores": {"as measured": min(n * c * 1000 / run_ms, 1000 / driver_ms),
                                        "batches of C cases": min(n * c * 1000 / run_ms, 1000 / driver_at(c))}
             for n, c in ((4, 16), (16, 32), (64, 32), (256, 64))}
    return {"workload": {**spec, "cases_per_round": cases, "rounds": rounds}, "cases_per_second": rate,
            "ratio_2_over_1": {"embedded": rate[e2] / rate[e1], "ray": rate[r2] / rate[r1]},
            "coordination_ms_per_case": overhead, "run_ms_per_case": run_ms, "driver_cpu_ms_per_case": driver_ms,
            "driver_key_ms_per_case": key_ms, "driver_ms_per_call": call_ms, "cases_per_call": cases / batches,
            "driver_saturates_at_slots": run_ms / driver_ms,
            "driver_saturates_at_slots_32_core_nodes": run_ms / driver_at(32), "model_cases_per_second": model,
            "wrong": sum(r["wrong"] for runs in measured.values() for r in runs)}


def _show(figures: dict[str, Any]) -> None:
    for name, rate in figures["cases_per_second"].items():
        console.print(f"{name:>18}: {fmt(rate, '.0f')} cases/s")
    ratio = figures["ratio_2_over_1"]
    console.print(f"2 over 1: embedded {ratio['embedded']:.2f}x, ray {ratio['ray']:.2f}x")
    for slots, ms in figures["coordination_ms_per_case"].items():
        console.print(f"coordination at {slots}: {ms:+.2f} ms/case (Ray over embedded)")
    console.print(f"a case: {figures['run_ms_per_case']:.1f} ms of a slot, {figures['driver_cpu_ms_per_case']:.2f} ms "
                  f"of driver CPU ({figures['driver_key_ms_per_case']:.2f} keying it, "
                  f"{figures['driver_ms_per_call']:.2f} ms a call of {figures['cases_per_call']:.1f} cases); "
                  f"the driver saturates at about {figures['driver_saturates_at_slots']:.0f} slots, "
                  f"{figures['driver_saturates_at_slots_32_core_nodes']:.0f} with 32-core nodes' batches")
    for shape, rates in figures["model_cases_per_second"].items():
        console.print(f"model, {shape}: {rates['as measured']:,.0f} cases/s as measured, "
                      f"{rates['batches of C cases']:,.0f} with batches of C cases")
    print_noise(figures["others_cpu_s"], figures["seconds"])
    if figures["wrong"]:
        console.print(f"[red]{figures['wrong']} results were not AC: the figures are void[/]")


if __name__ == "__main__":
    sys.exit(main())
