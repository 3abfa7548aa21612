"""cgroups on this machine, for real: the layout judgebox detects, the v2 mechanics on the real cgroup2
mount (discovery, the leaf move, subtree_control, cgroup.procs, cgroup.kill, cgroup.events, rmdir), CPU
accounting from a real v2 group beside v1's, and the accounting files' formats.

This machine is hybrid: the v1 hierarchies hold memory, pids, cpu, cpuacct and cpuset, and the cgroup2
mount has only hugetlb, so no test here can give a v2 group memory or pids (test_cgroups_moved.py moves
pids over when the machine allows). CPU usage needs no controller on v2: cpu.stat's usage_usec is the
cgroup core's, in every group.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from judgebox.sandbox import cgroups
from judgebox.sandbox.cgroups import common, layout, v1, v2
from judgebox.sandbox.inside.accounting import CgroupAccounting

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="making cgroups needs root")


def proc_cgroups() -> dict[str, tuple[int, int]]:
    """/proc/cgroups: controller -> (v1 hierarchy id, 0 when on v2 or unused; number of groups)."""
    with open("/proc/cgroups") as f:
        rows = [line.split() for line in f if not line.startswith("#")]
    return {name: (int(hierarchy), int(count)) for name, hierarchy, count, _ in rows}


def cgroup2_mount() -> str | None:
    return next((point for point, _, fstype, _ in common.cgroup_mounts() if fstype == "cgroup2"), None)


@pytest.fixture
def v2_group():
    """A fresh group under the v2 group this process is in, removed with everything in it afterwards."""
    if os.geteuid() != 0:
        pytest.skip("making cgroups needs root")
    parent = v2.delegated_group()
    if parent is None:
        pytest.skip("no cgroup2 mount that this process is in")
    path = os.path.join(parent, f"judgebox-test-{os.getpid()}-{time.monotonic_ns()}")
    os.mkdir(path)
    yield path
    for folder, _, _ in os.walk(path, topdown=False):  # a group goes only once its children have
        common.remove_group(folder, kill=True)
    assert not os.path.exists(path)


def start_in(group: str, *argv: str) -> subprocess.Popen:
    """A process of ours that joins ``group`` before it execs."""
    def join() -> None:
        with open(os.path.join(group, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))
    return subprocess.Popen(argv or ("sleep", "60"), preexec_fn=join)


def procs(group: str) -> list[int]:
    with open(os.path.join(group, "cgroup.procs")) as f:
        return [int(pid) for pid in f.read().split()]


def populated(group: str) -> bool:
    with open(os.path.join(group, "cgroup.events")) as f:
        return dict(line.split() for line in f)["populated"] == "1"


# -- the layout --------------------------------------------------------------------------------------------


@needs_root
def test_slot_groups_on_this_machine_are_v1_and_removed_on_close():
    """memory is on v1 here (hundreds of the machine's own groups), so a slot is v1 throughout."""
    assert proc_cgroups()["memory"][0] != 0
    slot = cgroups.SlotCgroups(f"judgebox-{os.getpid()}-{time.monotonic_ns()}", "root")
    try:
        assert slot.problems == [] and slot.hierarchy == "v1"
        assert {need: version for need, (version, _) in slot.accounting.items()} == {"memory": 1, "pids": 1, "cpu": 1}
        assert set(slot.view) == {f"/sys/fs/cgroup/{c}" for c in ("memory", "pids", "cpuacct", "cpu", "cpuset")}
        assert sorted(slot.groups) == sorted(slot.view.values()) and all(os.path.isdir(g) for g in slot.groups)
        with open(os.path.join(slot.view["/sys/fs/cgroup/cpuset"], "cpuset.cpus")) as f:
            assert f.read().strip()  # inherited, or no process could join it
    finally:
        groups = list(slot.groups)
        slot.close()
    assert not any(os.path.exists(g) for g in groups)


@needs_root
def test_the_isolation_report_and_health_say_which_hierarchy_serves_what():
    from fastapi.testclient import TestClient

    import judgebox
    from judgebox.server.app import create_app

    expected = layout.describe({need: where for need in layout.NEEDS
                                if (where := cgroups.detect("root").hierarchy(need)) is not None})
    assert judgebox.isolation_report()["layers"]["cgroup_hierarchy"] == expected
    with judgebox.Judge(slots=1) as judge, TestClient(create_app(judge=judge)) as client:
        assert client.get("/health").json()["isolation"]["cgroup_hierarchy"] == expected


# -- v2 mechanics on the real cgroup2 mount ------------------------------------------------------------

def test_delegated_group_follows_proc_self_cgroup_and_skips_the_leaf(v2_group):
    """A process in a group finds that group; one in its judgebox-judge leaf finds the group itself."""
    leaf = os.path.join(v2_group, v2.LEAF)
    os.mkdir(leaf)
    script = "from judgebox.sandbox.cgroups import v2; print(v2.delegated_group())"
    found = {}
    for group in (v2_group, leaf):
        child = subprocess.run([sys.executable, "-c", f"import os\nopen({group + '/cgroup.procs'!r}, 'w')"
                                f".write(str(os.getpid()))\n{script}"], capture_output=True, text=True, check=True)
        found[group] = child.stdout.strip()
    assert found == {v2_group: v2_group, leaf: v2_group}


def test_a_group_outside_our_cgroup_namespace_is_not_ours(v2_group):
    """A cgroup namespace rooted at one group, the process then moved to a sibling: /proc/self/cgroup says
    /../sibling, and that is no group judgebox may make slot groups in."""
    for name in ("a", "b"):
        os.mkdir(os.path.join(v2_group, name))
    script = "from judgebox.sandbox.cgroups import v2; print(v2.own_path(), v2.delegated_group())"
    inner = f"echo $$ > {v2_group}/b/cgroup.procs && exec {sys.executable} -c '{script}'"
    outer = f"echo $$ > {v2_group}/a/cgroup.procs && exec unshare --cgroup sh -c \"{inner}\""
    child = subprocess.run(["sh", "-c", outer], capture_output=True, text=True, check=True)
    assert child.stdout.split() == ["/../b", "None"]


def test_enabling_a_controller_moves_the_groups_processes_into_a_leaf(v2_group):
    """The no-internal-processes rule, for real: with a process in the group the kernel refuses to pass a
    controller on (EBUSY); enable() moves the process to judgebox-judge and then succeeds. hugetlb is the
    one controller this machine's cgroup2 has, and it serves as any other would."""
    parent = os.path.dirname(v2_group)
    if "hugetlb" not in v2.controllers(parent):
        pytest.skip("the cgroup2 mount has no controller to enable")
    enabled_above = "hugetlb" in v2.controllers(parent, "cgroup.subtree_control")
    if not enabled_above:
        assert v2.enable(parent, ("hugetlb",)) == []
    sleeper = start_in(v2_group)
    try:
        assert "hugetlb" in v2.controllers(v2_group)
        with pytest.raises(OSError) as refused:
            with open(os.path.join(v2_group, "cgroup.subtree_control"), "w") as f:
                f.write("+hugetlb")
        assert refused.value.errno == 16  # EBUSY
        assert v2.enable(v2_group, ("hugetlb",)) == []
        assert procs(v2_group) == [] and procs(os.path.join(v2_group, v2.LEAF)) == [sleeper.pid]
        assert "hugetlb" in v2.controllers(v2_group, "cgroup.subtree_control")
        assert v2.enable(v2_group, ("hugetlb",)) == []  # already enabled: nothing to do
    finally:
        sleeper.kill()
        sleeper.wait()
        with open(os.path.join(v2_group, "cgroup.subtree_control"), "w") as f:
            f.write("-hugetlb")
        os.rmdir(os.path.join(v2_group, v2.LEAF))
        if not enabled_above:
            with open(os.path.join(parent, "cgroup.subtree_control"), "w") as f:
                f.write("-hugetlb")
    assert "hugetlb" not in v2.controllers(parent, "cgroup.subtree_control") or enabled_above


def test_a_slot_group_is_killed_and_removed_with_its_processes(v2_group):
    path = v2.create(v2_group, "judgebox-1-0", memory=False, group_oom=False)
    sleeper = start_in(path, "sh", "-c", "sleep 60 & sleep 60")
    try:
        while len(procs(path)) < 2:  # until the shell has forked
            time.sleep(0.01)
        assert populated(path)
        common.remove_group(path, kill=True)
        assert not os.path.exists(path)
        assert sleeper.wait(timeout=10) == -signal.SIGKILL
    finally:
        sleeper.kill()
        sleeper.wait()


def test_stale_slot_groups_of_dead_judges_are_killed_and_removed(v2_group):
    dead = subprocess.Popen(["true"])
    dead.wait()  # a judge pid that no longer runs
    stale, live = (os.path.join(v2_group, f"judgebox-{pid}-0") for pid in (dead.pid, os.getpid()))
    os.mkdir(stale)
    os.mkdir(live)
    leftover = start_in(stale)
    try:
        created = v2.create(v2_group, f"judgebox-{os.getpid()}-1", memory=False, group_oom=False)
        assert not os.path.exists(stale) and leftover.wait(timeout=10) == -signal.SIGKILL
        assert os.path.isdir(live) and os.path.isdir(created)  # ours, alive
    finally:
        leftover.kill()
        leftover.wait()
    for group in (live, created):
        os.rmdir(group)


def test_cpu_accounting_from_a_v2_group_agrees_with_v1_cpuacct(v2_group):
    """One process in a v2 group and a v1 cpuacct group at once: both accounting paths see its CPU."""
    if "cpuacct" not in v1.mounts():
        pytest.skip("no v1 cpuacct hierarchy to compare with")
    v1_group = v1.create(v1.parents()["cpuacct"], "cpuacct", f"judgebox-{os.getpid()}-{time.monotonic_ns()}")
    try:
        v2_accounting = CgroupAccounting({"cpu": [2, v2_group]})
        v1_accounting = CgroupAccounting({"cpu": [1, v1_group]})
        assert (v2_accounting.cpu_ns(), v1_accounting.cpu_ns()) == (0, 0)
        burner = (f"import os, time\nfor g in {[v2_group, v1_group]!r}:\n"
                  "    open(g + '/cgroup.procs', 'w').write(str(os.getpid()))\n"
                  "joined = time.process_time()\nwhile time.process_time() < joined + 0.5: pass\n")
        child = subprocess.run([sys.executable, "-c", burner], check=True)
        assert child.returncode == 0
        on_v2, on_v1 = v2_accounting.cpu_ns(), v1_accounting.cpu_ns()
        assert on_v2 >= 0.5e9 and on_v1 >= 0.5e9
        assert abs(on_v2 - on_v1) < 0.05 * on_v1  # the same CPU, in microseconds and in nanoseconds
    finally:
        common.remove_group(v1_group, kill=False)


# -- the accounting files --------------------------------------------------------------------------------


# -- a judge whose mount namespace has fewer v1 hierarchies: CPU (and the sandbox's view) on v2 ----------

JUDGE_SCRIPT = r'''
import json, sys
import judgebox
from judgebox import Case, Limits, SandboxConfig
from judgebox.sandbox.config import NAMESPACE_LAYERS
from judgebox.sandbox.slot import Command
required = NAMESPACE_LAYERS | {"uid_switch", *sys.argv[1].split(",")}
seen = {}
with judgebox.Judge(SandboxConfig(required=frozenset(required)), slots=1) as judge:
    slot = judge._pool.slots[0]
    seen["hierarchy"] = judge.isolation()["cgroup_hierarchy"]
    seen["accounting"] = {need: version for need, (version, _) in slot._cgroups.accounting.items()}
    seen["groups"] = list(slot._cgroups.groups)
    look = ("ls /sys/fs/cgroup; echo; cat /proc/self/cgroup; echo; grep cgroup2 /proc/self/mountinfo | cut -d' ' -f4,5;"
            " echo; head -1 /sys/fs/cgroup/cpu.stat /sys/fs/cgroup/unified/cpu.stat 2>/dev/null | grep usage_usec")
    seen["view"] = judge._pool.submit(Command(("/bin/sh", "-c", look)), b"", Limits()).result().stdout.decode()
    # two processes burning 0.4 s of CPU each: only a group's accounting sees the child's
    burn = ("import os, time\npid = os.fork()\nstart = time.process_time()\n"
            "while time.process_time() < start + 0.4: pass\nif not pid: os._exit(0)\nos.waitpid(pid, 0)\n"
            "print('done')")
    case = judge.judge(burn, [Case.stdio("", "done")], limits=Limits(cpu_time=5)).cases[0]
    seen["burn"] = [str(case.verdict), case.cpu_time]
    seen["busy_loop"] = str(judge.judge("while True: pass", [Case.stdio("", "")], limits=Limits(cpu_time=0.5)).verdict)
seen["left"] = [g for g in seen["groups"] if __import__("os").path.exists(g)]
print(json.dumps(seen))
'''


def judge_without_v1(controllers: list[str], required: list[str]) -> dict:
    """A fresh judge in a private mount namespace with the named v1 hierarchies unmounted there only:
    to that judge (as in a container that mounts them not) those controllers are not on v1. The
    machine's own mounts are untouched."""
    if os.geteuid() != 0 or v2.delegated_group() is None:
        pytest.skip("needs root and a cgroup2 mount that this process is in")
    mounts = v1.mounts()
    points = sorted({mounts[c] for c in controllers if c in mounts})
    unmount = "".join(f"umount {point} && " for point in points)
    run = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c",
                          unmount + 'exec "$@"', "sh", sys.executable, "-c", JUDGE_SCRIPT, ",".join(required)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


@needs_root
def test_cpu_on_v2_beside_memory_and_pids_on_v1():
    """Hybrid for real: cpuacct's v1 hierarchy out of the judge's sight, CPU comes from the slot's v2
    group (cpu.stat), which runs see at /sys/fs/cgroup/unified beside their v1 groups."""
    seen = judge_without_v1(["cpuacct"], ["cgroup_memory", "cgroup_pids", "cgroup_cpu"])
    assert seen["hierarchy"] == "hybrid (memory: v1, pids: v1, cpu: v2)"
    assert seen["accounting"] == {"memory": 1, "pids": 1, "cpu": 2} and seen["left"] == []
    listing, proc_cgroup, mounts, usage = seen["view"].split("\n\n")
    assert sorted(listing.split()) == ["cpu", "cpuset", "memory", "pids", "unified"]
    assert "0::/" in proc_cgroup.split() and mounts.split() == ["/", "/sys/fs/cgroup/unified"]
    assert usage.strip().startswith("/sys/fs/cgroup/unified/cpu.stat") or usage.split()[0] == "usage_usec"
    verdict, cpu = seen["burn"]
    assert verdict == "AC" and cpu >= 0.8  # both processes' CPU, from the v2 group
    assert seen["busy_loop"] == "TLE"


@needs_root
def test_a_v2_only_slot_is_seen_at_sys_fs_cgroup():
    """No v1 hierarchy at all in the judge's sight: the slot is one v2 group (CPU from cpu.stat; this
    machine's cgroup2 has no memory or pids controller, so those layers are not required here), bound at
    /sys/fs/cgroup itself, where runtimes read a v2 group's files."""
    seen = judge_without_v1(list(v1.ALL), ["cgroup_cpu"])
    assert seen["hierarchy"] == "v2 (memory: none, pids: none)" and seen["accounting"] == {"cpu": 2}
    listing, proc_cgroup, mounts, usage = seen["view"].split("\n\n")
    assert {"cgroup.procs", "cpu.stat", "cgroup.events"} <= set(listing.split())
    assert "0::/" in proc_cgroup.split() and mounts.split() == ["/", "/sys/fs/cgroup"]
    assert usage.split()[0] == "usage_usec"
    verdict, cpu = seen["burn"]
    assert verdict == "AC" and cpu >= 0.8
    assert seen["busy_loop"] == "TLE" and seen["left"] == []


def test_group_oom_kill_is_chosen_only_where_the_zygote_can_be_spared():
    """memory.oom.group kills every process of the group but those at oom_score_adj -1000, so it is set
    only where the zygote can go there: the capability check agrees with what the kernel allows."""
    attempt = ("try:\n    with open('/proc/self/oom_score_adj', 'w') as f: f.write('-1000')\n    print(True)\n"
               "except PermissionError:\n    print(False)")
    allowed = subprocess.run([sys.executable, "-c", attempt], capture_output=True, text=True, check=True).stdout
    assert cgroups.may_lower_oom_score() is (allowed.strip() == "True")


@needs_root
def test_layout_puts_each_need_where_proc_cgroups_says_its_controller_lives():
    found = cgroups.detect("root")
    listed = proc_cgroups()
    for need, controller in layout.NEEDS.items():
        on_v1 = listed[controller][0] != 0 and controller in v1.mounts()
        if on_v1:
            assert found.hierarchy(need) == 1, need
        elif need == "cpu" and found.v2_group is not None:
            assert found.hierarchy(need) == 2
        else:
            assert found.hierarchy(need) == (2 if controller in found.v2_controllers else None), need
    if cgroup2_mount() is not None:
        with open(os.path.join(found.v2_group, "cgroup.controllers")) as f:
            assert found.v2_controllers == frozenset(f.read().split())
