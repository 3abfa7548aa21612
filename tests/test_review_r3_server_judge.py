"""Adversarial review (round 3, issue 11) of the server backend (``judgebox.Judge(backend="server")``): a
caller without an event loop of its own (TRL's sync reward function, score_batch_sync, verl's batch manager)
runs each call on a fresh loop; the judge's async client per loop must not outlive it."""

from __future__ import annotations

import gc
import os

import pytest

from conftest import Server
from judgebox import rewards
from judgebox.backends.server import ServerJudge


@pytest.mark.xfail(strict=True, reason="known gap: ServerJudge keeps an AsyncClient per event loop in a "
                   "WeakKeyDictionary whose values hold their loop, so none is ever dropped or closed: every "
                   "score_batch_sync call (TRL's sync reward function, once a step) leaves a client, a pool user "
                   "and a connection open")
def test_a_loop_per_call_leaves_no_client_or_connection_behind():
    with Server() as server, ServerJudge(server.url) as judge:
        def step(n: int) -> None:
            sample = {"code": f"print(1)\n# {n}", "test_cases": {"inputs": [""], "outputs": ["1"]}}
            (result,) = rewards.score_batch_sync([sample], judge=judge)
            assert result.verdict.name == "AC", result

        step(0)
        gc.collect()
        descriptors = len(os.listdir("/proc/self/fd"))
        for n in range(1, 21):
            step(n)
        gc.collect()
        assert len(os.listdir("/proc/self/fd")) <= descriptors + 2, "a connection left open per call"
        assert judge.client._pool.users <= 2, judge.client._pool.users
