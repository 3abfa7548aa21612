"""A hybrid layout for real: the pids controller handed from its v1 hierarchy to cgroup v2 for one test,
then given back, with a fresh judge in a subprocess using it (memory and CPU stay on v1).

A v1 controller moves to v2 only when its hierarchy has no group but its root and is mounted nowhere
(then the kernel frees it and it shows in cgroup.controllers); mounting v1 again takes it back once v2
no longer passes it on. The test checks all of that first and skips when the machine is busy: another
judge's slot groups (this session's own judge fixture among them), a mount of the hierarchy in another
mount namespace (a live sandbox), another test holding the move, not root. Whatever happens meanwhile,
the controller is given back and the v1 mount restored with its options; the test fails loudly if not.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from judgebox.sandbox.cgroups import common, v2

CONTROLLER = "pids"
LOCK = "/run/lock/judgebox-cgroup-move.lock"


def group_count(controller: str) -> tuple[int, int]:
    """(v1 hierarchy id, groups) from /proc/cgroups."""
    with open("/proc/cgroups") as f:
        for line in f:
            fields = line.split()
            if fields[0] == controller:
                return int(fields[1]), int(fields[2])
    raise LookupError(controller)


def v1_mount(controller: str) -> tuple[str, str, str] | None:
    """(mount point, source, per-mount options) of this namespace's v1 mount of ``controller``."""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            pre, _, post = line.partition(" - ")
            fields, post_fields = pre.split(), post.split()
            if post_fields[0] == "cgroup" and controller in post_fields[-1].split(","):
                return fields[4], post_fields[1], fields[5]
    return None


def mounted_in_other_namespaces(controller: str) -> list[int]:
    """Pids whose mount namespace (not ours) mounts the controller's v1 hierarchy."""
    ours, seen, found = os.readlink("/proc/self/ns/mnt"), set(), []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            namespace = os.readlink(entry / "ns/mnt")
            if namespace == ours or namespace in seen:
                continue
            seen.add(namespace)
            text = (entry / "mountinfo").read_text()
        except OSError:  # exited, or a kernel thread
            continue
        if any(" - cgroup " in line and controller in line.rsplit(" ", 1)[-1].split(",")
               for line in text.splitlines()):
            found.append(int(entry.name))
    return found


def _until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@contextmanager
def moved_to_v2(controller: str):
    """The controller on v2 (listed in the v2 root's cgroup.controllers) for the block's length."""
    if os.geteuid() != 0:
        pytest.skip("moving a controller needs root")
    root = next((point for point, mount_root, fstype, _ in common.cgroup_mounts()
                 if fstype == "cgroup2" and mount_root == "/"), None)
    mount = v1_mount(controller)
    if root is None or mount is None:
        pytest.skip(f"needs the cgroup2 root mounted and {controller} on a v1 hierarchy")
    lock = open(LOCK, "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        pytest.skip("another test is moving a controller")
    try:
        hierarchy, groups = group_count(controller)
        others = mounted_in_other_namespaces(controller)
        if hierarchy == 0 or groups != 1 or others:
            pytest.skip(f"{controller}'s v1 hierarchy is in use ({groups} groups; mounted by pids {others[:5]}): "
                        "another judge lives on this machine")
        point, source, options = mount
        unmounted = subprocess.run(["umount", point], capture_output=True, text=True, check=False)
        if unmounted.returncode != 0:  # a judge started meanwhile and holds its files open: nothing changed
            pytest.skip(f"{controller}'s v1 mount is in use: {unmounted.stderr.strip()}")
        try:
            if not _until(lambda: controller in v2.controllers(root), 5):
                pytest.skip(f"{controller} did not move to cgroup v2 (a group or mount appeared meanwhile)")
            yield root
        finally:
            _give_back(controller, root, point, source, options)
    finally:
        lock.close()


def _give_back(controller: str, root: str, point: str, source: str, options: str) -> None:
    def handed_back() -> bool:
        if controller in v2.controllers(root, "cgroup.subtree_control"):
            try:
                with open(os.path.join(root, "cgroup.subtree_control"), "w") as f:
                    f.write(f"-{controller}")
            except OSError:  # a child still passes it on: a judge is closing its slots
                return False
        remount = subprocess.run(["mount", "-t", "cgroup", "-o", f"{options},{controller}", source, point],
                                 capture_output=True, check=False)
        return remount.returncode == 0 or v1_mount(controller) is not None
    restored = _until(handed_back, 60) and v1_mount(controller) == (point, source, options)
    if not restored or group_count(controller)[0] == 0:
        pytest.fail(f"{controller} could not be given back to cgroup v1: the machine is left with it on v2; "
                    f"write -{controller} to {root}/cgroup.subtree_control and run "
                    f"`mount -t cgroup -o {options},{controller} {source} {point}`")


SCRIPT = r'''
import json, os
import judgebox
from judgebox import Case, Limits
from judgebox.sandbox.slot import Command
report = judgebox.isolation_report()
seen = {}
with judgebox.Judge(slots=1) as judge:
    slot = judge._pool.slots[0]
    v2_groups = [g for g in slot._cgroups.groups if g.startswith(ROOT + "/")]
    seen["v2_groups"] = v2_groups
    limits = Limits(processes=16, cpu_time=1, wall_time=3, memory_mb=512)
    view = judge._pool.submit(Command(("/bin/sh", "-c", "cat /sys/fs/cgroup/unified/pids.max; ls /sys/fs/cgroup")),
                             b"", limits).result()
    seen["view"] = view.stdout.decode()
    with open(v2_groups[0] + "/pids.max") as f:
        seen["pids_max_outside"] = f.read().strip()
    seen["fork_bomb"] = str(judge.judge("import os\nwhile True:\n    os.fork()", [Case.stdio("", "")],
                                        limits=limits).verdict)
    with open(v2_groups[0] + "/pids.events") as f:
        seen["pids_events"] = f.read()
    seen["honest"] = str(judge.judge("print(6 * 7)", [Case.stdio("", "42")]).verdict)
    java = judge._pool.submit(Command(("/bin/sh", "-c", "java -XshowSettings:system -version 2>&1")), b"",
                             Limits(memory_mb=512, cpu_time=20)).result()
    seen["java"] = java.stdout.decode()
seen["left"] = [g for g in v2_groups if os.path.exists(g)]
print(json.dumps({"report": report, "seen": seen}))
'''


@pytest.mark.slow
def test_pids_on_v2_beside_memory_and_cpu_on_v1():
    with moved_to_v2(CONTROLLER) as root:
        run = subprocess.run([sys.executable, "-c", SCRIPT.replace("ROOT", repr(root))], capture_output=True,
                             text=True, timeout=180, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.splitlines()[-1])
    report, seen = result["report"], result["seen"]
    assert report["ok"] and report["layers"]["cgroup_hierarchy"] == "hybrid (memory: v1, pids: v2, cpu: v1)"
    assert len(seen["v2_groups"]) == 1 and seen["left"] == []
    assert seen["pids_max_outside"] == "18"  # processes + 2, written by the zygote into the v2 group
    pids_max, *listing = seen["view"].split()
    assert pids_max == "18" and sorted(listing) == ["cpu", "cpuacct", "cpuset", "memory", "unified"]
    assert seen["fork_bomb"] in ("RE", "TLE")
    assert int(dict(line.split() for line in seen["pids_events"].splitlines())["max"]) > 0  # pids.max refused forks
    assert seen["honest"] == "AC"
    assert "Memory Limit: Unlimited" not in seen["java"] and "Memory Limit:" in seen["java"], seen["java"]
