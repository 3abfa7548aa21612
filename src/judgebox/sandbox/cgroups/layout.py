"""Which cgroup hierarchy serves each of a slot's needs on this machine: v1, v2, or each where it lives.

A controller sits in exactly one hierarchy: a v1 hierarchy while one is mounted for it, else the unified
(v2) one. Hybrid hosts mix them (memory on v1 beside pids on v2, say), so the choice is made per need.
CPU usage needs no controller on v2: ``cpu.stat``'s ``usage_usec`` is the cgroup core's own accounting.
"""

from __future__ import annotations

from dataclasses import dataclass

from judgebox.sandbox.cgroups import v1, v2

NEEDS = {"memory": "memory", "pids": "pids", "cpu": "cpuacct"}  # accounting need -> its v1 controller


@dataclass(frozen=True)
class Layout:
    v1_parents: dict[str, str]  # v1 controller -> the group slot groups go under
    v2_group: str | None  # the v2 group slot groups go under
    v2_controllers: frozenset[str]  # what that group has to pass on

    def hierarchy(self, need: str) -> int | None:
        """1 or 2 for the hierarchy that serves ``need``, None when neither can."""
        if NEEDS[need] in self.v1_parents:
            return 1
        if self.v2_group is not None and (need == "cpu" or need in self.v2_controllers):
            return 2
        return None

    def unavailable(self, need: str) -> str:
        """Why ``need`` has no hierarchy."""
        if self.v2_group is None:
            return f"{need}: no cgroup v1 hierarchy for {NEEDS[need]} and no cgroup v2 group of ours"
        return f"{need}: no cgroup v1 hierarchy for {NEEDS[need]}, and not in {self.v2_group}/cgroup.controllers"


def detect(mode: str) -> Layout:
    """The layout as seen by this process. Unprivileged, only a delegated v2 subtree can be ours."""
    group = v2.delegated_group()
    if mode != "root" and group is not None and not v2.writable(group):
        group = None
    return Layout(v1_parents=v1.parents() if mode == "root" else {}, v2_group=group,
                  v2_controllers=v2.controllers(group) if group else frozenset())


def describe(placement: dict[str, int]) -> str:
    """"v1", "v2", "none", "v2 (memory: none, pids: none)" or "hybrid (memory: v1, pids: v2, cpu: v1)"."""
    versions = set(placement.values())
    if not versions:
        return "none"
    unserved = [f"{need}: none" for need in NEEDS if need not in placement]
    if len(versions) == 1:
        return f"v{versions.pop()}" + (f" ({', '.join(unserved)})" if unserved else "")
    return "hybrid (" + ", ".join(f"{need}: v{placement[need]}" if need in placement else f"{need}: none"
                                  for need in NEEDS) + ")"
