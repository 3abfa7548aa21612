"""The reward's shape: in the judgebox profile a program that fails any case never scores 1.0, continuous
scores every case, binary is all or nothing and stops at the first failure, and a checker's points are
partial credit; the verl and prime profiles keep the answers of verl's own code (from its wheel)."""

from __future__ import annotations

from pathlib import Path

import pytest

import judgebox
import judgebox.verl
from judgebox import InvalidCases, Verdict
from judgebox.client import Client, ServerRejected
from judgebox.tools.calibrate import Calibration, calibrate
from judgebox.verl import reference

WHEEL_DIR = Path(__file__).resolve().parents[2] / ".cache" / "verl"

# Doubles its input, except on cases 15-19 of 20: with only the first 10 scored, it looks perfect.
FAILS_LATE = "n = int(input())\nprint(2 * n + (1 if 15 <= n <= 19 else 0))\n"
TWENTY = {"inputs": [f"{n}\n" for n in range(20)], "outputs": [f"{2 * n}\n" for n in range(20)]}
COMPLETION = f"The answer:\n```python\n{FAILS_LATE}```\n"


@pytest.fixture(scope="module")
def verl_scorers():
    wheel = reference.find_wheel(WHEEL_DIR)
    if wheel is None:
        pytest.fail(f"verl's wheel is not in {WHEEL_DIR}: run scripts/setup.sh --test")
    return reference.load(wheel)


@pytest.mark.parametrize("continuous", [True, False])
def test_judgebox_profile_scores_every_case(continuous):
    score, metadata = judgebox.verl.compute_score(None, None, 1024, COMPLETION, TWENTY, continuous)
    assert score == 0.75 and len(metadata) == 20
    assert [m["case_index"] for m in metadata if m["status"] != "success"] == [15, 16, 17, 18, 19]


def test_binary_is_all_or_nothing_and_stops_at_the_first_failure():
    score, metadata = judgebox.verl.compute_score(None, None, 1024, COMPLETION, TWENTY, True, binary=True)
    assert score == 0.0
    assert len(metadata) == 16 and metadata[-1]["status"] == "wrong_answer"  # nothing after case 15 ran
    right = COMPLETION.replace(" + (1 if 15 <= n <= 19 else 0)", "")
    assert judgebox.verl.compute_score(None, None, 1024, right, TWENTY, True, binary=True)[0] == 1.0


def test_default_compute_score_reports_the_fraction_of_all_cases():
    result = judgebox.verl.default_compute_score("codecontests", COMPLETION, TWENTY)
    assert (result["score"], result["passed"], result["total"], result["verdict"]) == (0.75, 15, 20, "WA")
    assert judgebox.verl.default_compute_score("codecontests", COMPLETION, TWENTY, binary=True)["score"] == 0.0


def test_verl_profile_keeps_verls_answer(verl_scorers, server):
    sandbox_fusion, _ = verl_scorers
    verls = sandbox_fusion.compute_score(server.url + "/run_code", None, 1024, COMPLETION, TWENTY, True)[0]
    ours = judgebox.verl.compute_score(None, None, 1024, COMPLETION, TWENTY, True, profile="verl")[0]
    assert ours == verls == 1.0  # verl scores only the first 10 cases
    with pytest.raises(ValueError, match="binary is judgebox's option"):
        judgebox.verl.compute_score(None, None, 1024, COMPLETION, TWENTY, True, profile="verl", binary=True)


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
def test_prime_profile_keeps_prime_codes_answer(verl_scorers):
    _, prime_code = verl_scorers  # runs this known program unsandboxed, in a child of this process
    primes = float(prime_code.compute_score(COMPLETION, TWENTY, continuous=True)[0])
    ours = judgebox.verl.compute_score(None, None, 1024, COMPLETION, TWENTY, True, profile="prime")[0]
    assert ours == primes == 1.0  # the first full run fails, then only the first 10 cases are scored
    with pytest.raises(UnboundLocalError):  # prime_code's own fault when not continuous and a case fails
        prime_code.compute_score(COMPLETION, TWENTY, continuous=False)
    assert judgebox.verl.compute_score(None, None, 1024, COMPLETION, TWENTY, False, profile="prime")[0] == 0.0


HALF_RIGHT = "print('1\\n0\\n3\\n0')"
PARTIAL = {"inputs": ["", ""], "outputs": ["1\n2\n3\n4", "1\n0\n3\n0"], "checker": {"name": "lines", "partial": True}}


def test_points_are_partial_credit(judge):
    result = judge.judge(HALF_RIGHT, PARTIAL)
    assert [c.points for c in result.cases] == [0.5, None] and result.score == 0.75
    assert [c.verdict for c in result.cases] == [Verdict.WA, Verdict.AC]
    completion = f"```python\n{HALF_RIGHT}\n```"
    assert judgebox.verl.compute_score(None, None, 1024, completion, PARTIAL, True)[0] == 0.75
    assert judgebox.verl.compute_score(None, None, 1024, completion, PARTIAL, True, binary=True)[0] == 0.0


def test_the_test_datas_settings_are_used(judge):
    permuted = "print('3 4'); print('1 2')"
    data = {"inputs": [""], "outputs": ["1 2\n3 4\n"]}
    assert judge.judge(permuted, data).verdict is Verdict.WA
    assert judge.judge(permuted, {**data, "checker": "unordered"}).verdict is Verdict.AC
    spin = judge.judge("while True: pass", {**data, "time_limit": 0.2})
    assert spin.verdict is Verdict.TLE and spin.cases[0].message == "CPU time limit exceeded"


def test_judge_endpoint_takes_checker_settings(server):
    client = Client(server.url)
    permuted = "print('3 4'); print('1 2')"
    reply = client.judge(permuted, test_cases={"inputs": [""], "outputs": ["1 2\n3 4\n"], "checker": "unordered"})
    assert reply.verdict == "AC"
    reply = client.judge(permuted, test_cases={"inputs": [""], "outputs": ["1 2\n3 4\n"]},
                         checker={"name": "unordered", "by": "tokens"})
    assert reply.verdict == "AC"
    assert client.judge("print(123456700.0)", test_cases={"inputs": [""], "outputs": ["123456789"]}).verdict == "WA"
    for checker, test_cases in (({"name": "float", "eps": 1}, {"inputs": [""], "outputs": ["1"]}),
                                (None, {"inputs": [""], "outputs": ["1"], "checker": {"name": "float", "eps": 1}})):
        with pytest.raises(ServerRejected) as rejected:
            client.judge("print(1)", test_cases=test_cases, checker=checker)
        assert rejected.value.status == 422 and "no option 'eps'" in str(rejected.value.detail)


def test_time_limits_calibrated_on_the_reference(judge):
    data = {"inputs": ["3\n", "4\n"], "outputs": ["6\n", "8\n"]}
    calibration = Calibration(factor=4, floor=0.2)
    problem = calibrate(judge, "print(2 * int(input()))", data, calibration=calibration)
    assert [c.limits.cpu_time for c in problem.cases] == [0.2, 0.2]  # 4 x a few ms is under the floor
    slow = "n = int(input())\nfor _ in range(30_000_000): pass\nprint(2 * n)"  # about a second of CPU
    assert judge.judge(slow, data).verdict is Verdict.AC
    assert judge.judge(slow, problem).verdict is Verdict.TLE
    with pytest.raises(InvalidCases, match="the reference solution fails case 0"):
        calibrate(judge, "print(0)", data)
