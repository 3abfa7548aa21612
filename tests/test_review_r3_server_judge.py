"""Adversarial review (round 3, issue 11) of the server backend (``judgebox.Judge(backend="server")``), against
a real ``judgebox serve``: it must judge what the embedded judge judges, as the embedded judge does, and a
submission it cannot send is an SE, never an exception in the middle of a batch. A caller without an event
loop of its own (TRL's sync reward function, score_batch_sync, verl's batch manager) runs each call on a
fresh loop; the judge's async client per loop must not outlive it."""

from __future__ import annotations

import gc
import os

import pytest

from conftest import Server
from judgebox import Case, Limits, Verdict, rewards
from judgebox.backends.server import ServerJudge
from special_judges import program


@pytest.fixture(scope="module")
def remote():
    with Server() as server, ServerJudge(server.url) as judge:
        yield judge


def test_an_interactive_problem_is_se_never_raised_nor_judged_without_its_interactor(remote, judge):
    """/judge has no interactor on its wire: json.dumps raised TypeError out of judge_submission, and out of
    judge_many mid-stream. It is an SE now (sent without its interactor, a silent program would pass)."""
    tests = {"inputs": ["777\n"], "outputs": [""], "interactor": program("guess_interactor.py"), "time_limit": 1}
    interactive = judge.submission("pass", tests)
    plain = judge.submission("print(int(input()) * 2)", [Case.stdio("2\n", "4\n")])
    assert judge.judge_submission(interactive).verdict is Verdict.PE  # the embedded judge's verdict
    assert remote.judge_submission(interactive).verdict is Verdict.SE
    assert "interactor" in remote.judge_submission(interactive).message
    assert sorted((i, r.verdict) for i, r in remote.judge_many([interactive, plain, interactive])) == [
        (0, Verdict.SE), (1, Verdict.AC), (2, Verdict.SE)]


def test_the_run_time_limit_reaches_the_server(remote, judge):
    """Held since every field of Limits is on /judge's wire (it was TLE embedded, AC on a server)."""
    submission = judge.submission("import time\ntime.sleep(3)\nprint(1)", [Case.stdio("", "1")],
                                  limits=Limits(cpu_time=1, run_time=1))
    assert judge.judge_submission(submission).verdict is Verdict.TLE
    assert remote.judge_submission(submission).verdict is Verdict.TLE


def test_a_loop_per_call_leaves_no_client_or_connection_behind(remote):
    """Held since the server judge keeps one AsyncClient on a loop of its own (it kept one per caller's loop)."""
    def step(n: int) -> None:
        sample = {"code": f"print(1)\n# {n}", "test_cases": {"inputs": [""], "outputs": ["1"]}}
        (result,) = rewards.score_batch_sync([sample], judge=remote)
        assert result.verdict is Verdict.AC, result

    step(0)
    gc.collect()
    descriptors = len(os.listdir("/proc/self/fd"))
    for n in range(1, 21):
        step(n)
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) <= descriptors + 2, "a connection left open per call"
    assert remote.client._pool.users <= 2, remote.client._pool.users
