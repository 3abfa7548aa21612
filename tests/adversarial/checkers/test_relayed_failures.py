"""A failure a wrong program relays through the problem's own checker or interactor is WA (reward 0), never
SE (a masked sample, "no reward"); and one sample never withholds another's reward at /openrlhf/reward.

The attacks: a testlib checker that validates the participant's value with ``ensuref``, or testlib's
"participant beats the jury" idiom (``quitf(_fail, ...)`` for an answer better than the jury's), exits
with FAIL on a wrong output; an interactor that ``ensuref``s the solution's queries does the same. Each is
a real testlib program (``testlib.h`` from ``$JUDGEBOX_TESTLIB`` or the repository's copy; skipped
without it), judged through every entry point a trainer uses: ``Judge.judge``, :mod:`judgebox.rewards`,
verl's ``default_compute_score`` and ``prime_compute_score`` (and :mod:`judgebox.verl.mask`, which must
not drop the sample), TRL's reward function, and OpenRLHF's own request code (its wheel) against a real
``judgebox serve`` on loopback. SE stays for what the judge itself saw fail: a checker that fails on the
jury's answer too, an interactor that does not compile, a judge that judged nothing.
"""

from __future__ import annotations

import asyncio
import math
import os
from types import SimpleNamespace

import pytest

import judgebox
import judgebox.verl
from judgebox import Verdict, openrlhf, rewards
from judgebox.sandbox.config import SandboxConfig
from judgebox.trl import reward_function
from judgebox.wire.schemas import RewardModelRequest
from support.openrlhf import _chat, _metric, _rollout
from support.server import Server
from support.special_judges import BINARY_SEARCH, find_testlib

# Print 2n. The checker validates the participant's value with ensuref (testlib's FAIL when it does not hold).
ENSUREF_CHECKER = r"""
#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long n = inf.readLong();
    long long jury = ans.readLong();
    long long got = ouf.readLong();
    ensuref(0 <= got && got <= 2 * n, "the participant's value %lld is outside [0, 2n]", got);
    if (got != jury) quitf(_wa, "expected %lld, found %lld", jury, got);
    quitf(_ok, "%lld", got);
}
"""
# The largest even number up to n. An answer better than the jury's is testlib's FAIL (the jury is wrong);
# the checker forgets the bound, so a wrong answer above n "beats the jury".
BEAT_THE_JURY_CHECKER = r"""
#include "testlib.h"
int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    inf.readInt();
    int jury = ans.readInt();
    int got = ouf.readInt();
    if (got % 2 != 0) quitf(_wa, "%d is odd", got);
    if (got < jury) quitf(_wa, "%d is not the largest: %d is larger", got, jury);
    if (got > jury) quitf(_fail, "participant's answer %d is better than jury's %d", got, jury);
    quitf(_ok, "%d", got);
}
"""
# Guess the number in [1, 10^6] ("? x" answered <, > or =; "! x" ends): the queries are ensuref'd.
ENSUREF_INTERACTOR = r"""
#include "testlib.h"
#include <string>
int main(int argc, char* argv[]) {
    registerInteraction(argc, argv);
    int secret = inf.readInt(1, 1000000, "secret");
    for (int asked = 0; asked < 25; asked++) {
        std::string what = ouf.readToken();
        long long x = ouf.readLong();
        ensuref(1 <= x && x <= 1000000, "the query %lld is outside [1, 10^6]", x);
        if (what == "!") {
            if (x == secret) quitf(_ok, "guessed in %d questions", asked);
            quitf(_wa, "guessed %lld, the number was %d", x, secret);
        }
        std::cout << (secret < x ? "<" : secret > x ? ">" : "=") << std::endl;
    }
    quitf(_wa, "too many questions");
}
"""


def _checked(code: str, inputs: list[str], outputs: list[str]) -> dict:
    return {"inputs": inputs, "outputs": outputs, "checker": {"language": "cpp", "code": code}, "time_limit": 2}


ENSUREF = _checked(ENSUREF_CHECKER, ["5\n", "7\n"], ["10\n", "14\n"])
BEAT = _checked(BEAT_THE_JURY_CHECKER, ["9\n", "10\n"], ["8\n", "10\n"])
BROKEN_CASE = _checked(ENSUREF_CHECKER, ["5\n"], ["-4\n"])  # the jury's answer fails the checker's ensuref
# (problem, a right program, a wrong one that reaches the checker's FAIL)
ATTACKS = {"ensuref": (ENSUREF, "print(2 * int(input()))", "print(-1)"),
           "beat-the-jury": (BEAT, "n = int(input())\nprint(n - n % 2)", "print(10**6)")}


def fenced(code: str) -> str:
    return f"My answer:\n```python\n{code}\n```"


@pytest.fixture(scope="module")
def testlib_folder() -> str:
    try:
        return find_testlib()
    except FileNotFoundError as exc:
        pytest.skip(f"testlib.h is not here: {exc}")


@pytest.fixture(scope="module")
def testlib_judge(testlib_folder):
    with judgebox.Judge(SandboxConfig(testlib=testlib_folder), slots=2) as judge:
        yield judge


@pytest.fixture
def default_is_testlib_judge(testlib_judge, monkeypatch):
    """The process-wide judge that verl's embedded paths (default_compute_score, prime) use."""
    import judgebox.judging.judge

    monkeypatch.setattr(judgebox.judging.judge, "_default", testlib_judge)
    monkeypatch.setattr(judgebox.judging.judge, "_default_pid", os.getpid())


@pytest.fixture(scope="module")
def testlib_server(testlib_folder):
    with Server("--workers", "2", env={"JUDGEBOX_TESTLIB": testlib_folder}) as running:
        yield running


# -- checkers through Judge.judge and judgebox.rewards ---------------------------------------------------

@pytest.mark.slow  # compiles testlib checkers (about 15 s each)
@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_a_relayed_checker_fail_is_wa_through_judge(testlib_judge, attack):
    data, right, wrong = ATTACKS[attack]
    assert testlib_judge.judge(right, data).verdict is Verdict.AC
    result = testlib_judge.judge(wrong, data)
    assert [c.verdict for c in result.cases] == [Verdict.WA, Verdict.WA], [c.message for c in result.cases]
    assert "FAIL" in result.cases[0].message and "to blame" in result.cases[0].message
    assert result.score == 0.0


@pytest.mark.slow
def test_a_right_answer_beating_a_wrong_jury_scores_zero_not_masked(testlib_judge):
    """The documented cost of the rule: the jury says 6 for 9, the right 8 beats it: WA, not SE."""
    data = _checked(BEAT_THE_JURY_CHECKER, ["9\n", "10\n"], ["6\n", "10\n"])
    result = testlib_judge.judge("n = int(input())\nprint(n - n % 2)", data)
    assert [c.verdict for c in result.cases] == [Verdict.WA, Verdict.AC]


@pytest.mark.slow
def test_a_checker_failing_on_the_jury_answer_too_is_se(testlib_judge):
    result = testlib_judge.judge("print(-4)", BROKEN_CASE)
    assert result.verdict is Verdict.SE and "checker is broken" in result.cases[0].message
    assert testlib_judge.judge("print(3)", BROKEN_CASE).verdict is Verdict.WA  # the checker judged it


@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_a_relayed_checker_fail_is_reward_zero_through_rewards(testlib_judge, attack):
    data, right, wrong = ATTACKS[attack]
    samples = [{"completion": fenced(wrong), "test_cases": data}, {"code": right, "test_cases": data}]
    before = rewards.stats()["system_errors"]
    results = rewards.score_batch_sync(samples, judge=testlib_judge)
    assert [r.verdict for r in results] == [Verdict.WA, Verdict.AC]
    assert [rewards.reward(r) for r in results] == [0.0, 1.0]
    assert not any(rewards.is_system_error(r) for r in results)
    assert rewards.stats()["system_errors"] == before


# -- verl: default_compute_score, prime, and the mask ----------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_a_relayed_checker_fail_is_zero_and_unmasked_through_verl(default_is_testlib_judge, attack):
    import torch

    from judgebox.verl.mask import failed_samples

    data, right, wrong = ATTACKS[attack]
    bad = judgebox.verl.default_compute_score("codecontests", fenced(wrong), data)
    good = judgebox.verl.default_compute_score("codecontests", fenced(right), data)
    assert (bad["score"], bad["verdict"], bad["infra_error"]) == (0.0, "WA", False), bad
    assert (good["score"], good["verdict"], good["infra_error"]) == (1.0, "AC", False), good
    primed = [judgebox.verl.prime_compute_score("codecontests", fenced(code), data) for code in (wrong, right)]
    assert primed == [0.0, 1.0] and all(math.isfinite(p) for p in primed)

    class Batch(SimpleNamespace):  # what verl.mask reads of a DataProto
        def __len__(self) -> int:
            return len(self.non_tensor_batch["infra_error"])

    batch = Batch(non_tensor_batch={"infra_error": [bad["infra_error"], good["infra_error"]]},
                  batch={"token_level_scores": torch.tensor([[0.0, bad["score"]], [0.0, primed[1]]])})
    assert not failed_samples(batch).any()  # neither sample is taken out of the update


# -- TRL ---------------------------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_a_relayed_checker_fail_is_zero_through_trl(testlib_judge, attack):
    data, right, wrong = ATTACKS[attack]
    logged = {}
    scored = reward_function(judge=testlib_judge)(
        prompts=["p", "p"], completions=[fenced(wrong), [{"role": "assistant", "content": fenced(right)}]],
        test_cases=[data, data], log_metric=logged.__setitem__)
    assert scored == [0.0, 1.0]  # a 0 TRL learns from, not None (no advantage)
    assert logged["judgebox/no_reward"] == 0.0


# -- an interactor that ensuref's the solution's queries -------------------------------------------------

@pytest.mark.slow
def test_a_relayed_interactor_fail_is_wa_and_a_broken_build_se(testlib_judge):
    guess = {"inputs": ["777\n"], "outputs": [""], "time_limit": 2,
             "interactor": {"language": "cpp", "code": ENSUREF_INTERACTOR}}
    assert testlib_judge.judge(BINARY_SEARCH, guess).verdict is Verdict.AC
    out_of_range = "print('? 0', flush=True)\ninput()\n"
    result = testlib_judge.judge(out_of_range, guess)
    assert result.verdict is Verdict.WA and "FAIL" in result.cases[0].message, result.cases[0].message
    (sample,) = rewards.score_batch_sync([{"code": out_of_range, "test_cases": guess}], judge=testlib_judge)
    assert rewards.reward(sample) == 0.0
    broken = {**guess, "interactor": {"language": "cpp", "code": ENSUREF_INTERACTOR.replace("int main", "int main(")}}
    assert testlib_judge.judge(BINARY_SEARCH, broken).verdict is Verdict.SE  # seen by the judge, no solution ran


# -- OpenRLHF: its own request code against a real judgebox serve ----------------------------------------

def _problem(data: dict) -> dict:
    return {"prompt": "Solve the problem on stdin.", "test_cases": data}


@pytest.mark.slow  # a judgebox serve of its own, and testlib checkers compiled there
@pytest.mark.parametrize("attack", ATTACKS, ids=list(ATTACKS))
def test_a_relayed_checker_fail_is_zero_for_openrlhf(agent, tokenizer, testlib_server, attack):
    data, right, wrong = ATTACKS[attack]
    url = testlib_server.url + "/openrlhf/reward"
    before = _metric(testlib_server, "no_reward")
    bad = _rollout(agent, tokenizer, url, _problem(data), fenced(wrong))
    good = _rollout(agent, tokenizer, url, _problem(data), fenced(right))
    assert (bad["reward"], bad["extra_logs"]["judgebox_no_reward"]) == ([0.0], [0.0])
    assert (good["reward"], good["extra_logs"]["judgebox_all_passed"]) == ([1.0], [1.0])
    assert _metric(testlib_server, "no_reward") == before


@pytest.mark.slow
def test_one_sample_never_withholds_the_others_rewards_at_openrlhf(agent, testlib_server):
    """One request (OpenRLHF's own request function) with right programs, the two relayed FAILs, and a
    sample whose judging genuinely failed (the checker FAILs on the jury's answer too): every reward the
    judge could compute comes back; the failed sample is 0.0, flagged and counted."""
    ensuref, _, wrong_ensuref = ATTACKS["ensuref"]
    beat, right_beat, wrong_beat = ATTACKS["beat-the-jury"]
    samples = [(ensuref, "print(2 * int(input()))"), (ensuref, wrong_ensuref), (beat, wrong_beat),
               (BROKEN_CASE, "print(-4)"), (beat, right_beat)]
    prompt = _chat(_problem(ensuref))
    executor = agent.SingleTurnAgentExecutor(testlib_server.url + "/openrlhf/reward")
    before = _metric(testlib_server, "no_reward")
    (answer,) = asyncio.run(executor._fetch_rewards_via_http(
        [prompt + fenced(code) for _, code in samples], [prompt] * len(samples), [data for data, _ in samples]))
    assert answer["rewards"] == answer["scores"] == [1.0, 0.0, 0.0, 0.0, 1.0]
    assert answer["extra_logs"]["judgebox_no_reward"] == [0.0, 0.0, 0.0, 1.0, 0.0]
    assert _metric(testlib_server, "no_reward") - before == 1


# -- /openrlhf/reward's rules, on judges that fail (no sandbox needed) -----------------------------------

class FailingJudge:
    """Delegates to a real judge, but raises for code holding ``FAIL_ME`` (its first ``flaky`` calls only)."""

    def __init__(self, judge, flaky: int | None = None) -> None:
        self.judge, self.flaky, self.calls = judge, flaky, 0

    async def judge_submission_async(self, submission):
        if "FAIL_ME" in submission.code:
            self.calls += 1
            if self.flaky is None or self.calls <= self.flaky:
                raise RuntimeError("the sandbox pool is closed")
        return await self.judge.judge_submission_async(submission)


def _request(*codes: str) -> RewardModelRequest:
    label = {"inputs": ["1\n"], "outputs": ["1\n"]}
    return RewardModelRequest(query=["P" + fenced(c) for c in codes], prompts=["P"] * len(codes),
                              labels=[label] * len(codes))


def test_a_judge_failure_is_judged_again_within_the_request(judge):
    outcome = asyncio.run(openrlhf.score(_request("print(1)  # FAIL_ME", "print(2)"), FailingJudge(judge, 1)))
    assert outcome.answer.rewards == [1.0, 0.0] and outcome.failed == () and outcome.retried == 1


def test_a_persisting_judge_failure_is_a_flagged_zero_beside_the_others(judge):
    outcome = asyncio.run(openrlhf.score(_request("print(1)  # FAIL_ME", "print(1)"), FailingJudge(judge)))
    assert outcome.answer.rewards == [openrlhf.NO_REWARD, 1.0]
    assert outcome.answer.extra_logs["judgebox_no_reward"] == [1.0, 0.0]
    assert [index for index, _ in outcome.failed] == [0] and "pool is closed" in outcome.failed[0][1]


def test_a_judge_that_judged_nothing_gives_no_answer(judge):
    """Every sample failed before any case ran: the judge is down, 503 (OpenRLHF's failed-server path)."""
    outcome = asyncio.run(openrlhf.score(_request("print(1)  # FAIL_ME"), FailingJudge(judge)))
    assert outcome.answer is None and len(outcome.failed) == 1 and outcome.retried == 1
