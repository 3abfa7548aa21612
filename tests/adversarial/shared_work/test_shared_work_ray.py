"""The Ray backend's node actors are shared by name by every driver of the cluster: each driver's work is its
own caller's there (judgebox.callers), so no driver is handed another's cached judgement or build.

A real cluster of one node (tests/support/raycluster.py), the drivers scripts run inside its namespace.
"""

from __future__ import annotations

import sys

import pytest

from support.raycluster import MARK, RayCluster, answer_in

pytestmark = pytest.mark.slow

# One driver: the same clock-and-noise program judged twice (the second a hit of this driver's cache), and
# one C++ program run through /run_code's path (ray:// in judgebox.verl), whose build the node caches.
DRIVER = """
import json, os, sys, time
import judgebox
from judgebox import Case, Limits

judge = judgebox.connect("ray://" + os.environ["RAY_ADDRESS"], refresh_seconds=0.5)
deadline = time.monotonic() + 120
while judge.stats().extra["actors"] < 1 and time.monotonic() < deadline:
    time.sleep(0.2)
code = "import os, time\\nprint(time.time_ns(), os.urandom(8).hex())\\n# " + sys.argv[1]
submission = judge.submission(code, [Case.stdio("", "x")], limits=Limits(cpu_time=2))
outputs = [judge.judge_submission(submission).cases[0].stdout for _ in range(2)]
print(MARK + json.dumps({"outputs": outputs}), flush=True)
os._exit(0)
""".replace("MARK", repr(MARK))


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    with RayCluster(tmp_path_factory.mktemp("ray"), nodes=1) as running:
        yield running


def _outputs(cluster: RayCluster, tag: str) -> list[str]:
    done = cluster.run(sys.executable, "-c", DRIVER, tag, timeout=600)
    assert done.returncode == 0, done.stderr[-4000:]
    return answer_in(done.stdout.splitlines())["outputs"]


def test_a_driver_never_gets_another_drivers_cached_output(cluster):
    first = _outputs(cluster, "one program")
    second = _outputs(cluster, "one program")
    assert first[0] == first[1], "a driver's own repeat is judged once"
    assert second[0] != first[0], "the second driver was handed the first one's output from the shared actor"
