"""The driver of tests/backends/test_ray.py and bench/scale_ray.py, run inside the Ray cluster's namespace
(tests/support/raycluster.py): reads a JSON spec on stdin, judges a dataset's references with
``judgebox.connect("ray://")``, prints its answer as one marked JSON line.

Spec: ``records`` (a file of tests/data), ``limit`` (first N records), ``cpu_time``, ``nodes`` (actors to
wait for before judging), ``after`` (results before the action) and ``action``: ``"kill_actor"``
(SIGKILL one actor's process), ``"close"`` (close the judge), ``{"kill": pid}`` (SIGKILL that process:
a raylet) or ``{"run": [command]}`` (started in the background: a node joining). ``repeat``: judge the
list that many times, each round's programs differing by a comment. ``rounds_on_stdin``: the
benchmark's mode (:func:`serve_rounds`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from raycluster import MARK

import judgebox
from judgebox import Limits
from judgebox.judging.dedupe import submission_key

DATA = Path(__file__).resolve().parents[1] / "data"


def answer(figures: dict) -> None:
    print(MARK + json.dumps(figures), flush=True)


def submissions(spec: dict, round_: int = 0) -> list[judgebox.Submission]:
    """The references; each round's programs differ by a comment, so no round is a dedupe hit of another."""
    lines = (DATA / spec["records"]).read_text().splitlines()[: spec.get("limit")]
    limits = Limits(cpu_time=spec.get("cpu_time", 20))
    return [judgebox.Judge.submission(f"{code}\n# round {round_}" if round_ else code, record["test_cases"],
                                      limits=limits)
            for record in map(json.loads, lines) for code in record["solutions"]]


def wait_for_actors(judge, count: int, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while judge.stats().extra["actors"] < count:
        if time.monotonic() > deadline:
            raise SystemExit(f"only {judge.stats().extra['actors']} of {count} actors started: {judge.stats()}")
        time.sleep(0.2)


def act(judge, action) -> subprocess.Popen | None:
    if action == "close":
        judge.close()
    elif action == "kill_actor":
        pid = min(node["pid"] for node in judge.stats().extra["nodes"].values() if node.get("pid"))
        os.kill(pid, signal.SIGKILL)
    elif "kill" in action:
        os.kill(action["kill"], signal.SIGKILL)
    elif "run" in action:
        return subprocess.Popen(action["run"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return None


def serve_rounds(judge, spec: dict) -> None:
    """The benchmark's mode: a JSON line when ready, then per round number read, that round's figures."""
    answer({"ready": judge.stats().extra["actors"]})
    for line in sys.stdin:
        work = submissions(spec, int(line))
        cpu = time.process_time()
        for submission in work:  # what keying costs the driver, apart from the calls (the model's split)
            submission_key(submission)
        key_cpu, batches = time.process_time() - cpu, judge.stats().extra["batches"]
        cpu, begun = time.process_time(), time.monotonic()
        wrong = sum(r.verdict is not judgebox.Verdict.AC for _, r in judge.judge_many(work))
        answer({"seconds": time.monotonic() - begun, "driver_cpu": time.process_time() - cpu, "key_cpu": key_cpu,
                "batches": judge.stats().extra["batches"] - batches, "cases": sum(len(s.cases) for s in work),
                "wrong": wrong})


def main() -> None:
    spec = json.loads(sys.stdin.readline())
    with judgebox.connect("ray://" + os.environ["RAY_ADDRESS"], slots=spec.get("slots"),
                        refresh_seconds=spec.get("refresh_seconds", 1.0)) as judge:
        wait_for_actors(judge, spec.get("nodes", 1))
        if spec.get("rounds_on_stdin"):
            return serve_rounds(judge, spec)
        first_nodes = sorted(judge.stats().extra["nodes"])
        started, rounds, joining = time.monotonic(), [], None
        for round_ in range(spec.get("repeat", 1)):
            work = submissions(spec, round_)
            results: dict[int, judgebox.JudgeResult] = {}
            begun = time.monotonic()
            for index, result in judge.judge_many(work):
                results[index] = result
                if round_ == 0 and len(results) == spec.get("after"):
                    joining = act(judge, spec["action"])
            rounds.append(time.monotonic() - begun)
        if joining is not None:
            joining.wait(timeout=120)
        answer({
            "results": [[str(r.verdict), [str(c.verdict) for c in r.cases], r.score, r.message]
                        for _, r in sorted(results.items())],
            "submissions": len(work), "cases": sum(len(s.cases) for s in work), "seconds": time.monotonic() - started,
            "rounds": rounds, "first_nodes": first_nodes, "stats": judge.stats().extra})


if __name__ == "__main__":
    main()
