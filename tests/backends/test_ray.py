"""The Ray backend on a real Ray cluster (tests/support/raycluster.py: nodes of one CPU each in a network namespace
of the test's own, the driver tests/support/ray_driver.py run there too), judging MBPP's references in the sandbox."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

from judgebox import Case, Limits
from support.data import load_dataset
from support.raycluster import MARK, RayCluster, answer_in

MBPP = {"records": "mbpp.jsonl", "cpu_time": 20}  # mbpp/123 needs about 5.5 s of CPU
MBPP_FILE = Path(__file__).resolve().parents[1] / "data" / "mbpp.jsonl"


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory):  # a short folder: Ray's socket paths under it must fit in 107 bytes
    with RayCluster(tmp_path_factory.mktemp("ray"), nodes=2) as cluster:
        yield cluster


def _all_accepted(answer: dict, count: int) -> None:
    """Every submission came back once, each an AC scoring 1 (the references are right)."""
    assert answer["submissions"] == count and len(answer["results"]) == count
    assert [r for r in answer["results"] if r[0] != "AC" or r[2] != 1.0] == []
    assert answer["stats"]["se"] == 0


# -- no cluster needed ------------------------------------------------------------------------------------

def test_import_judgebox_does_not_import_ray():
    code = "import sys, judgebox; judgebox.Judge; import judgebox.verl; print('ray' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True
                          ).stdout.strip() == "False"


def test_missing_ray_names_the_extra():
    code = ("import sys; sys.modules['ray'] = None\nimport judgebox\n"
            "try:\n    judgebox.connect('ray://')\nexcept ImportError as exc:\n    print(type(exc).__name__, exc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("RayUnavailable") and "judgebox[ray]" in out


def test_score_with_no_ray_cluster_says_so(tmp_path):
    """No cluster to join: exit status 2 (nothing could be judged) and the reason, not a traceback."""
    environment = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    environment["RAY_TMPDIR"] = str(tmp_path)  # where "auto" would look for a running cluster: none there
    done = subprocess.run([str(Path(sys.executable).with_name("judgebox")), "score", str(MBPP_FILE), "--limit", "1",
                           "--backend", "ray"], capture_output=True, text=True, env=environment, timeout=120)
    assert done.returncode == 2 and "no Ray cluster to join" in done.stderr, done.stderr[-2000:]
    assert "Traceback" not in done.stderr


def test_submissions_and_results_cross_processes_intact(judge):
    submission = judge.submission("def f(x):\n    return x + 1\n", [Case.call("f", [1], 2), Case.stdio("", "")],
                                  limits=Limits(cpu_time=3), checker={"name": "float", "epsilon": 1e-3})
    result = judge.judge_submission(submission)
    assert pickle.loads(pickle.dumps(submission)) == submission
    assert pickle.loads(pickle.dumps(result)) == result


# -- on a cluster ----------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_ray_judges_mbpp_as_the_embedded_judge_does(two_nodes, judge):
    answer = two_nodes.run_driver({**MBPP, "nodes": 2})
    submissions = [judge.submission(code, r["test_cases"], limits=Limits(cpu_time=20))
                   for r in load_dataset("mbpp.jsonl") for code in r["solutions"]]
    local = dict(judge.judge_many(submissions))
    assert [[str(r.verdict), [str(c.verdict) for c in r.cases], r.score] for _, r in sorted(local.items())] == \
        [row[:3] for row in answer["results"]]
    _all_accepted(answer, 974)
    nodes = answer["stats"]["nodes"]
    assert len(nodes) == 2 and all(node["cases_judged"] > 0 for node in nodes.values()), nodes  # both worked


@pytest.mark.slow
@pytest.mark.timeout(1200)
@pytest.mark.parametrize("preset", ["judgebox", "verl"])  # verl's rules go through /run_code requests
def test_judgebox_score_backend_ray(two_nodes, preset):
    """``judgebox score --backend ray`` (the verl transport ``ray://``) judges on the cluster, all right."""
    done = two_nodes.run(str(Path(sys.executable).with_name("judgebox")), "score", str(MBPP_FILE), "--limit", "30",
                         "--backend", "ray", "--preset", preset, "--json")
    assert done.returncode == 0, done.stderr[-4000:]
    summary, _ = json.JSONDecoder().raw_decode(done.stdout[done.stdout.index("{\n"):])
    right = summary["kinds"]["right"]
    assert (right["judged"], right["passed"], right["judge_failures"]) == (30, 30, 0), right


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_a_killed_actor_s_work_is_retried(two_nodes):
    answer = two_nodes.run_driver({**MBPP, "limit": 400, "nodes": 2, "after": 50, "action": "kill_actor"})
    _all_accepted(answer, 400)
    stats = answer["stats"]
    assert stats["retries"] >= 1 and stats["actors_lost"] >= 1, stats
    assert stats["actors_started"] >= 3, stats  # the killed one restarted on its node, still alive


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_closing_mid_run_answers_every_submission(two_nodes):
    """What was queued or in flight when the judge closed comes back SE, saying so; nothing hangs."""
    answer = two_nodes.run_driver({**MBPP, "limit": 200, "nodes": 2, "after": 10, "action": "close"})
    assert len(answer["results"]) == 200
    closed = [r for r in answer["results"] if r[0] == "SE"]
    assert closed and all("closed" in r[3] for r in closed), closed[:3]
    assert {r[0] for r in answer["results"]} == {"AC", "SE"}


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_a_killed_node_s_work_is_retried(tmp_path_factory):
    with RayCluster(tmp_path_factory.mktemp("ray"), nodes=2) as cluster:
        raylet = cluster.raylets[1]
        answer = cluster.run_driver({**MBPP, "limit": 400, "nodes": 2, "after": 50, "action": {"kill": raylet}})
    _all_accepted(answer, 400)
    stats = answer["stats"]
    assert stats["retries"] >= 1 and stats["actors_lost"] >= 1, stats
    assert stats["actors"] == 1, stats  # the node that left has no actor


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_a_node_that_joins_gets_an_actor_and_work(tmp_path_factory):
    with RayCluster(tmp_path_factory.mktemp("ray"), nodes=1) as cluster:
        answer = cluster.run_driver({**MBPP, "limit": 300, "repeat": 6, "nodes": 1, "after": 1,
                                     "action": {"run": cluster.node_command()}})
    _all_accepted(answer, 300)
    joined = {node: v for node, v in answer["stats"]["nodes"].items() if node not in answer["first_nodes"]}
    assert len(joined) == 1 and next(iter(joined.values()))["cases_judged"] > 0, answer["stats"]


# Attacks on the Ray backend: what a caller hands ``judge_many`` must come
# back, once each, and one submission the judge cannot send must not take its batch-mates down with it.
#
# A real cluster of one node (tests/support/raycluster.py), the driver a script run inside its namespace; the
# programs are judged in the node's sandbox.

# The driver: submissions given to judge_many on a thread of its own, so a stream that never ends is
# reported as such (and the process left with os._exit) instead of hanging the test.
DRIVER = """
import json, os, sys, threading, time
import judgebox
from judgebox import Case, Limits, Submission

items = []
for kind in json.loads(sys.argv[1]):
    if kind == "good":
        n = len(items)
        items.append(judgebox.Judge.submission(f"print({n})", [Case.stdio("", str(n))], limits=Limits(cpu_time=2)))
    elif kind == "not_a_submission":
        items.append({"code": "print(1)", "cases": [{"stdin": "", "expected_output": "1"}]})
    elif kind == "unpicklable":  # Unkeyable too, so the cache lets it through to an actor
        items.append(Submission("def f(x):\\n    return x\\n", (Case.call("f", [1], threading.Lock()),)))
judge = judgebox.connect("ray://" + os.environ["RAY_ADDRESS"], refresh_seconds=0.5,
                       slots=int(sys.argv[4]) if sys.argv[4] else None)
deadline = time.monotonic() + 60
while sys.argv[3] == "wait" and judge.stats().extra["actors"] < 1 and time.monotonic() < deadline:
    time.sleep(0.2)
seen = []
def consume():
    try:
        for index, result in judge.judge_many(items):
            seen.append([index, str(result.verdict), result.message[:200]])
    except BaseException as exc:
        seen.append(["raised", type(exc).__name__, str(exc)[:200]])
worker = threading.Thread(target=consume, daemon=True)
worker.start()
worker.join(float(sys.argv[2]))
print(MARK + json.dumps({"ended": not worker.is_alive(), "seen": seen, "stats": judge.stats().extra}), flush=True)
os._exit(0)
""".replace("MARK", repr(MARK))


class FourCpuNode(RayCluster):
    """Nodes of four logical CPUs: an actor of four slots, so submissions share batches."""

    def _node_options(self) -> list[str]:
        return ["--num-cpus=4", *super()._node_options()[1:]]


@pytest.fixture(scope="module")
def one_node(tmp_path_factory):
    with FourCpuNode(tmp_path_factory.mktemp("ray"), nodes=1) as cluster:
        yield cluster


def _answer(cluster: RayCluster, script: str, *argv: str, timeout: float = 600) -> dict:
    """The answer line of ``script`` run as a driver inside the cluster's namespace."""
    done = cluster.run(sys.executable, "-c", script, *argv, timeout=timeout)
    assert done.returncode == 0, done.stderr[-4000:]
    return answer_in(done.stdout.splitlines())


def _drive(cluster: RayCluster, kinds: list[str], wait: float = 120, ready_first: bool = True,
           slots: int | None = None) -> dict:
    """``kinds`` given to judge_many (after the node's actor is ready, or before: then they queue and go
    in batches of its slots' size); the stream's lines within ``wait`` seconds."""
    return _answer(cluster, DRIVER, json.dumps(kinds), str(wait), "wait" if ready_first else "queue",
                   str(slots or ""), timeout=wait + 300)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_record_that_is_not_a_submission_is_an_se_not_a_hang(one_node):
    """judge_many answers a record that is not a Submission with an SE of its own, as the local judge
    does, and the others are judged (it was keyed, queued and failed on in the dispatcher at first)."""
    answer = _drive(one_node, ["good", "not_a_submission", "good"])
    assert answer["ended"], answer
    by_index = {index: (verdict, message) for index, verdict, message in answer["seen"]}
    assert sorted(by_index) == [0, 1, 2], answer
    assert by_index[1][0] == "SE" and "Submission" in by_index[1][1], by_index
    assert by_index[0][0] == by_index[2][0] == "AC", by_index


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_submission_that_cannot_be_sent_fails_alone(one_node):
    """A submission that cannot be pickled for its actor fails its batch's call; it alone is SE, its
    batch-mates (queued before the actor was ready, so sent in batches) are judged."""
    kinds = ["good"] * 12 + ["unpicklable"] + ["good"] * 12
    answer = _drive(one_node, kinds, ready_first=False)
    assert answer["stats"]["batches"] < len(kinds), answer["stats"]  # some went together
    assert answer["ended"], answer
    verdicts = {index: verdict for index, verdict, _ in answer["seen"]}
    assert sorted(verdicts) == list(range(len(kinds))), answer
    assert verdicts.pop(12) == "SE"
    assert set(verdicts.values()) == {"AC"}, answer


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_more_slots_than_the_node_has_cpus_still_judges(tmp_path_factory):
    """``slots=2`` on nodes of one CPU: the actor asked Ray for two CPUs, which no node has, so it was never
    placed; after two minutes every submission was SE (and every later one after two more)."""
    with RayCluster(tmp_path_factory.mktemp("ray"), nodes=1) as cluster:
        answer = _drive(cluster, ["good", "good"], wait=60, slots=2)
    assert answer["ended"], answer["stats"]
    assert sorted((index, verdict) for index, verdict, _ in answer["seen"]) == [(0, "AC"), (1, "AC")], answer
    assert answer["stats"]["slots"] == 2, answer["stats"]


# The verl profiles over ray:// send SandboxFusion /run_code requests: many at once, from reward threads.
RUN_CODE_DRIVER = """
import json, os, threading, time
from concurrent.futures import ThreadPoolExecutor
import ray, judgebox

judge = judgebox.connect("ray://" + os.environ["RAY_ADDRESS"], refresh_seconds=0.5)
deadline = time.monotonic() + 120
while judge.stats().extra["actors"] < 2 and time.monotonic() < deadline:
    time.sleep(0.2)
def jobs():
    return [ray.get(m.handle.__ray_call__.remote(lambda actor: actor.judge._pool.jobs_started))
            for m in list(judge._members.values())]
before = jobs()
body = {"code": "import time\\ntime.sleep(0.5)\\nprint(1)", "language": "python"}
with ThreadPoolExecutor(12) as threads:
    replies = list(threads.map(lambda _: judge.run_code([body])[0], range(24)))
after = jobs()
print(MARK + json.dumps({"ok": sum(r[0] is not None and r[0]["status"] == "Success" for r in replies),
                         "per_node": [b - a for a, b in zip(before, after)]}), flush=True)
os._exit(0)
""".replace("MARK", repr(MARK))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_run_code_requests_are_spread_over_the_nodes(tmp_path_factory):
    """_run_code picked the least loaded actor by the cases of judge batches in flight, which run_code
    requests do not count: with no batches, every request went to the same node, the others idle."""
    with RayCluster(tmp_path_factory.mktemp("ray"), nodes=2) as cluster:
        answer = _answer(cluster, RUN_CODE_DRIVER)
    assert answer["ok"] == 24, answer
    assert len(answer["per_node"]) == 2 and min(answer["per_node"]) > 0, answer


# Two Ray judges on one cluster: two processes of one trainer (verl's reward workers each hold the
# process-wide one of ray://), or a user's own beside it. The second one's verdict, within a short stall.
TWO_JUDGES_DRIVER = """
import json, os, time
import judgebox
import judgebox.backends.ray as ray_backend

ray_backend.STALL_SECONDS = 20.0  # the stall that ends in SE, shortened for the test
first = judgebox.connect("ray://" + os.environ["RAY_ADDRESS"], refresh_seconds=0.5)
deadline = time.monotonic() + 120
while first.stats().extra["actors"] < 1 and time.monotonic() < deadline:
    time.sleep(0.2)
second = judgebox.connect("ray://" + os.environ["RAY_ADDRESS"], refresh_seconds=0.5)
ours = [judgebox.Judge.submission(f"print({n})", [judgebox.Case.stdio("", str(n))]) for n in range(2)]
results = [judge.judge_submission(s) for judge, s in zip((first, second), ours)]
verdicts = [f"{r.verdict}: {r.message[:120]}" for r in results]
print(MARK + json.dumps({"verdicts": verdicts, "second": second.stats().extra["actors_pending"]}), flush=True)
os._exit(0)
""".replace("MARK", repr(MARK))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_second_ray_judge_on_the_cluster_judges_too(tmp_path_factory):
    """Each RayJudge placed an actor of its own on every node, reserving the node's CPUs: a second judge on
    the cluster (another reward worker process) had none placed and its submissions were SE after the
    stall. The node actors are shared by name since fb9affd."""
    with RayCluster(tmp_path_factory.mktemp("ray"), nodes=1) as cluster:
        answer = _answer(cluster, TWO_JUDGES_DRIVER)
    assert [v.split(":")[0] for v in answer["verdicts"]] == ["AC", "AC"], answer


LEAK_DRIVER = """
import asyncio, json, os, threading, time
import judgebox

judge = judgebox.connect("ray://" + os.environ["RAY_ADDRESS"], refresh_seconds=0.5)
deadline = time.monotonic() + 120
while judge.stats().extra["actors"] < 1 and time.monotonic() < deadline:
    time.sleep(0.2)
def submission(n):
    return judgebox.Judge.submission(f"print({n})", [judgebox.Case.stdio("", str(n))])
def round_(first):
    for n in range(first, first + 40):
        assert judge.judge_submission(submission(n)).verdict is judgebox.Verdict.AC
    async def cancelled(n):  # a caller that gives up on its call
        task = asyncio.ensure_future(judge.judge_submission_async(submission(n)))
        await asyncio.sleep(0.01)
        task.cancel()
    for n in range(first + 40, first + 50):
        asyncio.run(cancelled(n))
    assert all(v is judgebox.Verdict.AC for _, r in judge.judge_many(submission(n) for n in range(first, first + 60))
               for v in [r.verdict])
round_(0)
threads = threading.active_count()
for k in range(1, 4):
    round_(1000 * k)
time.sleep(1)
print(MARK + json.dumps({"threads": [threads, threading.active_count()], "stats": judge.stats().extra}), flush=True)
os._exit(0)
""".replace("MARK", repr(MARK))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_driver_keeps_no_thread_per_call(one_node):
    """Calls that finish, calls cancelled by their caller and judge_many streams leave no thread behind on
    the driver (held)."""
    answer = _answer(one_node, LEAK_DRIVER)
    before, after = answer["threads"]
    assert after <= before, answer
    assert answer["stats"]["se"] == 0 and answer["stats"]["queued"] == 0, answer["stats"]


ISOLATION_DRIVER = """
import json, os, time
import judgebox

judge = judgebox.connect("ray://" + os.environ["RAY_ADDRESS"], refresh_seconds=0.5)
deadline = time.monotonic() + 120
while judge.stats().extra["actors"] < 1 and time.monotonic() < deadline:
    time.sleep(0.2)
print(MARK + json.dumps({"isolation": judge.isolation()}, default=str), flush=True)
os._exit(0)
""".replace("MARK", repr(MARK))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_node_actor_sandboxes_as_the_embedded_judge_does(one_node, judge):
    """Programs on a node run in the sandbox of that node's actor, a Ray worker process: its isolation
    layers are the embedded judge's, none missing (held)."""
    (layers,) = _answer(one_node, ISOLATION_DRIVER)["isolation"].values()
    assert layers == json.loads(json.dumps(judge.isolation(), default=str))


# A cluster where other Ray work holds some of a node's CPUs (a trainer's own workers, on every node of a
# verl run): the judge's actor asks for all of them.
BUSY_NODE_DRIVER = """
import json, os, time
import ray, judgebox
import judgebox.backends.ray as ray_backend

ray_backend.STALL_SECONDS = 20.0  # the stall that ends in SE, shortened for the test
ray.init(address=os.environ["RAY_ADDRESS"], logging_level="WARNING")

@ray.remote(num_cpus=1)
class TrainerWorker:
    def ping(self):
        return 1

worker = TrainerWorker.remote()
ray.get(worker.ping.remote())
judge = judgebox.connect("ray://", refresh_seconds=0.5)
result = judge.judge_submission(judgebox.Judge.submission("print(1)", [judgebox.Case.stdio("", "1")]))
print(MARK + json.dumps({"verdict": str(result.verdict), "message": result.message[:200]}), flush=True)
os._exit(0)
""".replace("MARK", repr(MARK))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_node_where_other_ray_work_holds_a_cpu_still_judges(tmp_path_factory):
    """A node actor asked Ray for the node's total CPUs, so on a node where other Ray work held one it was
    never placed, and every submission was SE after the stall (fixed by 08a7f33: it reserves none)."""
    with FourCpuNode(tmp_path_factory.mktemp("ray"), nodes=1) as cluster:
        answer = _answer(cluster, BUSY_NODE_DRIVER)
    assert answer["verdict"] == "AC", answer
