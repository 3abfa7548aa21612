"""cgroup v1: one hierarchy per controller, so a slot has one group in each controller's hierarchy."""

from __future__ import annotations

import os

from judgebox.sandbox.cgroups import common

ALL = ("memory", "pids", "cpuacct", "cpu", "cpuset")


def mounts() -> dict[str, str]:
    """Mount points of the v1 hierarchies of the controllers judgebox uses, by controller."""
    found: dict[str, str] = {}
    for mount_point, _root, fstype, options in common.cgroup_mounts():
        if fstype != "cgroup":
            continue
        for controller in ALL:
            if controller in options:
                found.setdefault(controller, mount_point)
    return found


def own_groups() -> dict[str, str]:
    """This process's v1 group path in each hierarchy, by controller."""
    groups: dict[str, str] = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            hierarchy, names, path = line.rstrip("\n").split(":", 2)
            if hierarchy != "0":
                for name in names.split(","):
                    groups[name] = path
    return groups


def parents() -> dict[str, str]:
    """Where slot groups go in each mounted controller's hierarchy: under the group judgebox runs in, so
    they nest inside whatever limits the host already imposes."""
    groups = own_groups()
    return {controller: os.path.join(mount_point, groups.get(controller, "/").lstrip("/"))
            for controller, mount_point in mounts().items()}


def create(parent: str, controller: str, name: str) -> str:
    """Make the slot's group in one controller's hierarchy (raises OSError)."""
    common.remove_stale_groups(parent, kill=False)
    path = os.path.join(parent, name)
    os.makedirs(path, exist_ok=True)
    if controller == "cpuset":
        _inherit_cpuset(parent, path)
    return path


def _inherit_cpuset(parent: str, path: str) -> None:
    """A new cpuset group has no CPUs or memory nodes, and no process can join it until it has: the parent's."""
    for name in ("cpuset.cpus", "cpuset.mems"):
        with open(os.path.join(path, name), "r+") as mine:
            if not mine.read().strip():
                with open(os.path.join(parent, name)) as theirs:
                    mine.write(theirs.read())
