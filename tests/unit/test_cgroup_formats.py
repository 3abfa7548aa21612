"""cgroups' formats on synthetic files: the accounting file names, CPU usage in v1's nanoseconds and v2's
usage_usec, OOM kill counts of both versions, and how a layout is described (tests/sandbox/test_cgroups.py runs
the mechanics on this machine's real cgroups)."""

from __future__ import annotations

import os
import time

import pytest

from judgebox.sandbox.cgroups import layout, v1, v2
from judgebox.sandbox.inside.accounting import FILES, cpu_usage_ns, oom_kills, page_cache


def test_describe_names_each_need_where_the_hierarchies_mix():
    assert layout.describe({"memory": 1, "pids": 1, "cpu": 1}) == "v1"
    assert layout.describe({"memory": 2, "pids": 2, "cpu": 2}) == "v2"
    assert layout.describe({}) == "none"
    assert layout.describe({"memory": 1, "pids": 2, "cpu": 1}) == "hybrid (memory: v1, pids: v2, cpu: v1)"
    assert layout.describe({"memory": 1, "cpu": 2}) == "hybrid (memory: v1, pids: none, cpu: v2)"
    assert layout.describe({"cpu": 2}) == "v2 (memory: none, pids: none)"


def test_accounting_file_names_are_the_kernels():
    """Names as the kernel's cgroup-v1 and cgroup-v2 documentation gives them; v2 memory is unavailable
    here (no memory controller on this machine's cgroup2), so these names are checked against the docs."""
    assert FILES[("memory", 2)] == {"usage": "memory.current", "peak": "memory.peak", "limit": "memory.max",
                                    "events": "memory.events", "stat": "memory.stat"}
    assert FILES[("cpu", 2)] == {"usage": "cpu.stat"}
    on_v1 = v1.parents()
    for (need, hierarchy), files in FILES.items():
        controller = layout.NEEDS[need]
        if hierarchy == 1 and controller in on_v1 and os.geteuid() == 0:  # a root group has no limits: a child
            folder = v1.create(on_v1[controller], controller, f"judgebox-{os.getpid()}-{time.monotonic_ns()}")
            try:
                assert all(os.path.exists(os.path.join(folder, name)) for name in files.values()), need
            finally:
                os.rmdir(folder)
    if v2.delegated_group():
        assert os.path.exists(os.path.join(v2.delegated_group(), "cpu.stat"))


def test_oom_kills_count_both_versions_lines():
    v1_oom_control = b"oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"
    v2_events = b"low 0\nhigh 0\nmax 12\noom 2\noom_kill 2\noom_group_kill 1\n"
    assert (oom_kills(v1_oom_control), oom_kills(v2_events), oom_kills(b"oom 4\n")) == (3, 3, 0)


def test_cpu_usage_reads_nanoseconds_on_v1_and_usage_usec_on_v2():
    stat = b"usage_usec 1500\nuser_usec 1000\nsystem_usec 500\nnr_periods 0\n"
    assert (cpu_usage_ns(b"123456\n", 1), cpu_usage_ns(stat, 2)) == (123456, 1_500_000)
    with pytest.raises(ValueError):
        cpu_usage_ns(b"user_usec 1000\n", 2)


def test_page_cache_is_the_file_lru_lists_of_either_version():
    """v1's memory.stat also has hierarchical ``total_`` lines, v2's has ``file`` (which holds shmem, not
    reclaimable without swap): only the two file LRU lists count."""
    v1_stat = (b"cache 79474688\nrss 6389760\nshmem 0\ninactive_file 30896128\nactive_file 48578560\n"
               b"total_inactive_file 30896128\ntotal_active_file 48578560\n")
    v2_stat = b"anon 6000000\nfile 90000000\nshmem 10000000\nactive_file 50000000\ninactive_file 30000000\n"
    assert (page_cache(v1_stat), page_cache(v2_stat), page_cache(b"anon 5\n")) == (79474688, 80000000, 0)
