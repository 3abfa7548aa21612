"""Per-slot cgroups: the memory, process-count and CPU accounting of one worker slot, on v1, v2 or both.

Each slot's zygote lives in its own group(s) and every run inherits them, which costs nothing per run
(attaching a process to a group costs about 10 ms after idle on this kind of machine). ``layout`` says
which hierarchy serves each need, ``v1``/``v2`` make the groups; the zygote's per-run reads and writes
of their files are ``inside/accounting.py``'s.
"""

from __future__ import annotations

from judgebox.sandbox.cgroups import common, v1, v2
from judgebox.sandbox.cgroups.layout import NEEDS, Layout, describe, detect

# v1 groups with no limits, only so that a run sees groups of its own for every controller a runtime reads:
# the JVM sizes its heap from the memory group and refuses container support unless it also finds its cpu
# and cpuset groups (and the sandbox's root shows a run its own groups only).
V1_VISIBLE_ONLY = ("cpu", "cpuset")
SANDBOX_ROOT = "/sys/fs/cgroup"  # where a run sees its groups (what runtimes read)

__all__ = ["Layout", "SlotCgroups", "detect"]


class SlotCgroups:
    """Creates (and on close removes) one slot's groups, each need in the hierarchy that serves it.

    For the zygote: ``accounting`` (need -> [hierarchy, group]), ``groups`` (every group it joins) and
    ``view`` (path in the sandbox's root -> group bound there). ``hierarchy`` describes the choice;
    ``problems`` say why a need went unserved.
    """

    def __init__(self, name: str, mode: str) -> None:
        self.accounting: dict[str, list] = {}
        self.groups: list[str] = []
        self.view: dict[str, str] = {}
        self._v2_group: str | None = None
        layout = detect(mode)
        placement = {need: layout.hierarchy(need) for need in NEEDS}
        self.problems = [layout.unavailable(need) for need, where in placement.items() if where is None]
        if mode != "root" and placement["memory"] != 2:
            # Unprivileged, cgroups are worth their setup only with memory (Java, Node and Go need it);
            # without it the address-space limit and LanguageUnavailable stand, as they always have.
            placement = dict.fromkeys(NEEDS)
        on_v2 = [need for need, where in placement.items() if where == 2]
        if on_v2:
            self._make_v2(layout, name, on_v2, protected_zygote=mode == "root" and may_lower_oom_score())
        self._make_v1(layout, name, [need for need, where in placement.items() if where == 1],
                      visible=mode == "root")
        self._view_v2()
        self.hierarchy = describe({need: version for need, (version, _) in self.accounting.items()})

    def _make_v2(self, layout: Layout, name: str, needs: list[str], protected_zygote: bool) -> None:
        assert layout.v2_group is not None
        wanted = tuple(c for c in v2.WANTED if c in layout.v2_controllers and (c in needs or c in v2.VISIBLE))
        self.problems += v2.enable(layout.v2_group, wanted)
        passed_on = v2.controllers(layout.v2_group, "cgroup.subtree_control")
        try:
            # Without protection from the OOM killer (oom_score_adj -1000) a group kill would take the zygote
            # too; unprotected, the runs' own score of 1000 still makes them the OOM killer's first choice.
            path = v2.create(layout.v2_group, name, memory="memory" in passed_on,
                             group_oom=protected_zygote)
        except OSError as exc:
            self.problems.append(f"cgroup v2: cannot create {name} in {layout.v2_group}: {exc.strerror}")
            return
        self._v2_group = path
        self.groups.append(path)
        for need in needs:
            if need == "cpu" or need in passed_on:
                self.accounting[need] = [2, path]

    def _view_v2(self) -> None:
        # (a method: mypy would hold __init__'s `self._v2_group = None` and call the binding unreachable)
        if self._v2_group is not None:  # alone: the root runtimes read; beside v1 groups: where hybrid hosts put it
            hybrid = any(path != self._v2_group for path in self.groups)
            self.view[SANDBOX_ROOT + "/unified" if hybrid else SANDBOX_ROOT] = self._v2_group

    def _make_v1(self, layout: Layout, name: str, needs: list[str], visible: bool) -> None:
        wanted = [NEEDS[need] for need in needs] + [c for c in V1_VISIBLE_ONLY if visible and c in layout.v1_parents]
        for controller in wanted:
            try:
                path = v1.create(layout.v1_parents[controller], controller, name)
            except OSError as exc:
                if controller not in V1_VISIBLE_ONLY:
                    self.problems.append(f"{controller}: cannot create its group: {exc.strerror}")
                continue
            self.groups.append(path)
            self.view[f"{SANDBOX_ROOT}/{controller}"] = path
            need = next((n for n, c in NEEDS.items() if c == controller), None)
            if need is not None:
                self.accounting[need] = [1, path]

    def close(self) -> None:
        for path in self.groups:
            common.remove_group(path, kill=path == self._v2_group)
        self.groups, self.accounting, self.view, self._v2_group = [], {}, {}, None


def may_lower_oom_score() -> bool:
    """Whether this process (and so the zygote it starts) may set oom_score_adj -1000: CAP_SYS_RESOURCE,
    which root lacks in a container started with the default capabilities."""
    with open("/proc/self/status") as f:
        effective = next(int(line.split()[1], 16) for line in f if line.startswith("CapEff:"))
    return bool(effective >> 24 & 1)  # CAP_SYS_RESOURCE
