"""The Ray backend on a real Ray cluster (tests/raycluster.py: nodes of one CPU each in a network namespace
of the test's own, the driver tests/ray_driver.py run there too), judging MBPP's references in the sandbox."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import judgebox
from conftest import load_dataset
from judgebox import Case, InvalidInput, Limits
from raycluster import RayCluster

MBPP = {"records": "mbpp.jsonl", "cpu_time": 20}  # mbpp/123 needs about 5.5 s of CPU
MBPP_FILE = Path(__file__).with_name("data") / "mbpp.jsonl"


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
            "try:\n    judgebox.Judge(backend='ray')\nexcept ImportError as exc:\n    print(type(exc).__name__, exc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.startswith("RayUnavailable") and "judgebox[ray]" in out


def test_an_unknown_backend_is_refused():
    with pytest.raises(InvalidInput, match="'local', 'server' or 'ray'"):
        judgebox.Judge(backend="spark")
    with pytest.raises(InvalidInput, match="address= is for backend='server' or 'ray'"):
        judgebox.Judge(address="127.0.0.1:6379")


@pytest.mark.parametrize("options", [{"slots": 0}, {"slots": True}, {"attempts": 0}, {"attempts": 1.5}])
def test_bad_ray_options_are_refused_before_joining_a_cluster(options):
    with pytest.raises(InvalidInput, match="positive whole number"):
        judgebox.Judge(backend="ray", **options)


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

