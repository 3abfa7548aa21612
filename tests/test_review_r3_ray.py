"""Adversarial review (round 3, issue 11) of the Ray backend: what a caller hands ``judge_many`` must come
back, once each, and one submission the judge cannot send must not take its batch-mates down with it.

A real cluster of one node (tests/raycluster.py), the driver a script run inside its namespace; the
programs are judged in the node's sandbox.
"""

from __future__ import annotations

import json
import sys

import pytest

from raycluster import MARK, RayCluster, answer_in

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
judge = judgebox.Judge(backend="ray", address=os.environ["RAY_ADDRESS"], refresh_seconds=0.5,
                       slots=int(sys.argv[4]) if sys.argv[4] else None)
deadline = time.monotonic() + 60
while sys.argv[3] == "wait" and judge.stats()["actors"] < 1 and time.monotonic() < deadline:
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
print(MARK + json.dumps({"ended": not worker.is_alive(), "seen": seen, "stats": judge.stats()}), flush=True)
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

judge = judgebox.Judge(backend="ray", address=os.environ["RAY_ADDRESS"], refresh_seconds=0.5)
deadline = time.monotonic() + 120
while judge.stats()["actors"] < 2 and time.monotonic() < deadline:
    time.sleep(0.2)
def jobs():
    return [ray.get(m.handle.__ray_call__.remote(lambda actor: actor.judge.pool.jobs_started))
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
first = judgebox.Judge(backend="ray", address=os.environ["RAY_ADDRESS"], refresh_seconds=0.5)
deadline = time.monotonic() + 120
while first.stats()["actors"] < 1 and time.monotonic() < deadline:
    time.sleep(0.2)
second = judgebox.Judge(backend="ray", address=os.environ["RAY_ADDRESS"], refresh_seconds=0.5)
ours = [judgebox.Judge.submission(f"print({n})", [judgebox.Case.stdio("", str(n))]) for n in range(2)]
results = [judge.judge_submission(s) for judge, s in zip((first, second), ours)]
verdicts = [f"{r.verdict}: {r.message[:120]}" for r in results]
print(MARK + json.dumps({"verdicts": verdicts, "second": second.stats()["actors_pending"]}), flush=True)
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

judge = judgebox.Judge(backend="ray", address=os.environ["RAY_ADDRESS"], refresh_seconds=0.5)
deadline = time.monotonic() + 120
while judge.stats()["actors"] < 1 and time.monotonic() < deadline:
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
print(MARK + json.dumps({"threads": [threads, threading.active_count()], "stats": judge.stats()}), flush=True)
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

judge = judgebox.Judge(backend="ray", address=os.environ["RAY_ADDRESS"], refresh_seconds=0.5)
deadline = time.monotonic() + 120
while judge.stats()["actors"] < 1 and time.monotonic() < deadline:
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
judge = judgebox.Judge(backend="ray", refresh_seconds=0.5)
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
