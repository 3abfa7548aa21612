"""Checker programs: a problem's testlib checker (compiled against the real testlib.h) and open-r1's
codeforces-python checkers, run in the sandbox after the solution's run; every verdict of the testlib
convention, a checker failure that is the dataset's (SE) or provoked by the output (WA), checkers for
CodeContests problems with many valid answers, and the reward hacks of tests/reward_hacks_checkers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import judgebox
from conftest import load_dataset
from judgebox import Verdict
from judgebox.checkers.programs import blame, read_checker_run, verdict_of_testlib
from judgebox.checkers.result import CheckResult
from judgebox.sandbox.config import SandboxConfig
from judgebox.sandbox.outcome import RunOutcome
from special_judges import find_testlib, program

HACKS = Path(__file__).with_name("reward_hacks_checkers")
CODECONTESTS_CHECKERS = Path(__file__).with_name("checkers_codecontests")
PAIR = "n = int(input())\nprint(n // 2, n - n // 2)\n"


@pytest.fixture(scope="module")
def testlib_judge():
    with judgebox.Judge(SandboxConfig(testlib=find_testlib()), slots=2) as judge:
        yield judge


def pair_problem(*cases: tuple[str, str]) -> dict:
    return {"inputs": [i for i, _ in cases], "outputs": [o for _, o in cases],
            "checker": program("pair_checker.cpp"), "time_limit": 2}


# -- the testlib convention, pure ---------------------------------------------------------------------

@pytest.mark.parametrize(("exit_code", "verdict"), [(0, Verdict.AC), (1, Verdict.WA), (2, Verdict.PE)])
def test_testlib_exit_codes(exit_code, verdict):
    assert verdict_of_testlib(exit_code, None, b"msg\n") == CheckResult(verdict, "msg")


def test_testlib_fail_is_no_verdict_until_blamed():
    """testlib's FAIL is within an output's reach (ensuref, beating the jury): no verdict by itself, but a
    failure whose fault the re-run on the expected answer decides (WA if the checker judges it, else SE)."""
    said = verdict_of_testlib(3, None, b"FAIL jury is wrong")
    assert isinstance(said, str) and "FAIL" in said
    assert blame(said, CheckResult(Verdict.AC)).verdict is Verdict.WA
    assert blame(said, verdict_of_testlib(3, None, b"FAIL jury is wrong")).verdict is Verdict.SE


@pytest.mark.parametrize(("exit_code", "signal", "stderr"), [
    (5, None, b""), (None, 11, b""),
    (7, None, b"points 1.5 too many"), (7, None, b"points nan"), (7, None, b"no points at all")])
def test_testlib_failures_are_no_verdict(exit_code, signal, stderr):
    assert isinstance(verdict_of_testlib(exit_code, signal, stderr), str)


def test_testlib_points():
    assert verdict_of_testlib(7, None, b"points 0.25 partly") == CheckResult(Verdict.WA, "points 0.25 partly", 0.25)
    assert verdict_of_testlib(7, None, b"points 1").verdict is Verdict.AC


@pytest.mark.parametrize("protocol", ["testlib", "codeforces-python"])
def test_the_judges_failure_in_a_checker_run_is_se(protocol):
    said = read_checker_run(protocol, RunOutcome(system_error="the worker process died"))
    assert said.verdict is Verdict.SE and "died" in said.message


def test_blame_falls_on_the_output_only_if_the_checker_judges_the_answer():
    assert blame("FAIL x", CheckResult(Verdict.AC)).verdict is Verdict.WA
    assert blame("FAIL x", CheckResult(Verdict.WA)).verdict is Verdict.WA
    assert blame("FAIL x", "FAIL y").verdict is Verdict.SE
    assert blame("FAIL x", CheckResult(Verdict.SE, "the slot died")).verdict is Verdict.SE


# -- a testlib checker in the sandbox ------------------------------------------------------------------

@pytest.mark.slow  # compiles testlib.h (about 15 s)
@pytest.mark.parametrize(("code", "verdict", "score"), [
    (PAIR, Verdict.AC, 1.0),
    ("n = int(input())\nprint(1, n)\n", Verdict.WA, 0.0),
    ("print('five five')\n", Verdict.PE, 0.0),
    ("n = int(input())\nprint(0, n)\n", Verdict.WA, 0.5),  # testlib's quitp: half the case's points
])
def test_testlib_checker_verdicts(testlib_judge, code, verdict, score):
    result = testlib_judge.judge(code, pair_problem(("10\n", "5 5\n"), ("7\n", "3 4\n")))
    assert [c.verdict for c in result.cases] == [verdict, verdict], [c.message for c in result.cases]
    assert result.score == score


@pytest.mark.slow
def test_testlib_checker_failure_on_a_broken_answer_is_se(testlib_judge):
    """The jury's answer does not sum to n: the checker's FAIL, the case is broken."""
    result = testlib_judge.judge(PAIR, pair_problem(("10\n", "5 5\n"), ("10\n", "4 4\n")))
    assert [c.verdict for c in result.cases] == [Verdict.AC, Verdict.SE]
    assert "FAIL" in result.cases[1].message


@pytest.mark.slow
def test_testlib_checker_sees_only_the_finished_output(testlib_judge):
    """The output is read once the run ended, whole: what a program writes after a while counts, and a
    program that runs past its limit is TLE without the checker being asked."""
    late = "import time, sys\nn = int(input())\ntime.sleep(0.3)\nprint(n // 2, n - n // 2)\n"
    assert testlib_judge.judge(late, pair_problem(("10\n", "5 5\n"))).verdict is Verdict.AC
    spin = "n = int(input())\nprint(n // 2, n - n // 2, flush=True)\nwhile True: pass\n"
    assert testlib_judge.judge(spin, pair_problem(("10\n", "5 5\n"))).verdict is Verdict.TLE


@pytest.mark.slow
def test_standard_testlib_checker_from_its_folder(testlib_judge):
    """testlib's own wcmp, found through the configured include folder."""
    wcmp = (Path(find_testlib()) / "checkers" / "wcmp.cpp").read_text()
    data = {"inputs": ["1 2\n"], "outputs": ["3\n"], "checker": {"language": "cpp", "code": wcmp}}
    assert testlib_judge.judge("print(sum(map(int, input().split())))", data).verdict is Verdict.AC
    assert testlib_judge.judge("print(4)", data).verdict is Verdict.WA


def test_a_checker_that_does_not_compile_is_se(judge):
    data = {"inputs": ["1\n"], "outputs": ["1\n"],
            "checker": {"language": "cpp", "code": "int main( { return 0; }", "protocol": "testlib"}}
    result = judge.judge("print(1)", data)
    assert result.verdict is Verdict.SE and "does not compile" in result.cases[0].message


# -- codeforces-python checkers ----------------------------------------------------------------------

def sum_problem(*cases: tuple[str, str]) -> dict:
    return {"inputs": [i for i, _ in cases], "outputs": [o for _, o in cases],
            "generated_checker": program("sum_checker.py")["code"]}


@pytest.mark.parametrize(("code", "verdicts"), [
    ("print(sum(map(int, input().split())))", [Verdict.AC, Verdict.AC]),
    ("print(3)", [Verdict.AC, Verdict.WA]),
    # junk crashes this checker (int() of it), which judges the expected answer fine: the output is at fault
    ("import sys; sys.stdout.buffer.write(b'\\x00\\xff' * 1000)", [Verdict.WA, Verdict.WA]),
    ("print()", [Verdict.WA, Verdict.WA]),
])
def test_codeforces_python_checker(judge, code, verdicts):
    result = judge.judge(code, sum_problem(("1 2\n", "3\n"), ("2 2\n", "4\n")))
    assert [c.verdict for c in result.cases] == verdicts, [c.message for c in result.cases]


def test_codeforces_python_checker_arguments(judge):
    """open-r1's order: checker.py input expected actual (testlib's is input output answer)."""
    reads = ("import sys\nfiles = [open(path).read().strip() for path in sys.argv[1:]]\n"
             "print(1 if files == ['the input', 'the expected', 'the actual'] else 0)\n")
    data = {"inputs": ["the input\n"], "outputs": ["the expected\n"], "generated_checker": reads}
    assert judge.judge("print('the actual')", data).verdict is Verdict.AC
    assert judge.judge("print('the expected')", data).verdict is Verdict.WA


def test_checker_programs_run_in_the_sandbox(judge):
    """A checker is the dataset's code: it gets the solutions' isolation (no host files, no network, no
    other process's files), so it can only judge what it is given."""
    probe = f"""
import os, socket, sys
blocked = []
try:
    open({str(Path(__file__).resolve())!r}).read()
except OSError:
    blocked.append("host file")
try:
    socket.create_connection(("127.0.0.1", 22), timeout=1)
except OSError:
    blocked.append("network")
blocked.append("tmp" if os.listdir("/tmp") == [] else "")  # nothing of the solution's run is left
print(1 if blocked == ["host file", "network", "tmp"] else 0)
"""
    data = {"inputs": ["1\n"], "outputs": ["1\n"], "generated_checker": probe}
    leaves_a_file = "open('/tmp/left.txt', 'w').write('1')\nprint(1)"
    assert judge.judge(leaves_a_file, data).verdict is Verdict.AC


def test_codeforces_python_checker_broken_on_the_answer_is_se(judge):
    result = judge.judge("print(3)", sum_problem(("1 2\n", "3\n"), ("1 2\n", "three\n")))
    assert [c.verdict for c in result.cases] == [Verdict.AC, Verdict.SE]


def test_codeforces_python_checker_score_is_its_last_token(judge):
    partial = {"inputs": ["1\n"], "outputs": ["1\n"], "generated_checker": "print('checked')\nprint(0.25)\n"}
    result = judge.judge("print(1)", partial)
    assert result.cases[0].verdict is Verdict.WA and result.score == 0.25
    garbage = {"inputs": ["1\n"], "outputs": ["1\n"], "generated_checker": "print('yes')\n"}
    assert judge.judge("print(1)", garbage).verdict is Verdict.SE  # no score, on the answer too


# -- CodeContests problems whose references fail exact comparison ---------------------------------------

def _corrupt(problem: str, output: str) -> str:
    """A wrong answer of each problem, made from a right one."""
    tokens = output.split()
    if problem.startswith("862_c"):  # another xor
        tokens[-1] = str(int(tokens[-1]) ^ 1)
    elif problem.startswith("925_c"):  # not a permutation of b
        tokens[-1] = str(int(tokens[-1]) + 1)
    elif problem.startswith(("1438_d", "963_b")):  # NO where there is an answer
        tokens = ["NO"]
    elif problem.startswith("1217_d"):  # more colours than needed
        tokens[0] = str(int(tokens[0]) + 1)
    return " ".join(tokens) + "\n"


@pytest.mark.slow  # five problems, ten cases each, a checker run per case
@pytest.mark.parametrize("path", sorted(CODECONTESTS_CHECKERS.glob("*.py")), ids=lambda p: p.stem)
def test_codecontests_checkers(judge, path):
    records = {r["id"]: r for r in load_dataset("codecontests.jsonl")}
    record = records["codecontests/" + path.stem]
    assert record["meta"]["multiple_answers_suspected"]
    data = dict(record["test_cases"])
    reference = record["solutions"][0]
    exact = judge.judge(reference, data, record["language"], checker="exact")
    assert exact.score < 1.0  # why the problem needs a checker
    data["generated_checker"] = path.read_text()
    result = judge.judge(reference, data, record["language"])
    assert result.verdict is Verdict.AC, [(c.verdict, c.message) for c in result.cases]
    case = next(n for n, out in enumerate(data["outputs"]) if not out.strip().upper().startswith("NO"))
    wrong = _corrupt(path.stem, data["outputs"][case])
    corrupted = dict(data, inputs=[data["inputs"][case]], outputs=[data["outputs"][case]])
    answer = judge.judge(f"print({json.dumps(wrong)}, end='')", corrupted)
    assert answer.verdict is Verdict.WA, answer.cases[0].message
    assert judge.judge(f"print({json.dumps(data['outputs'][case])})", corrupted).verdict is Verdict.AC


# -- reward hacks --------------------------------------------------------------------------------------

def hacks(problem: str) -> list[Path]:
    return sorted(p for p in HACKS.glob("*.py") if f"# problem: {problem}\n" in p.read_text())


@pytest.mark.slow
@pytest.mark.parametrize("path", hacks("pair"), ids=lambda p: p.stem)
def test_checker_reward_hacks_score_zero(testlib_judge, path):
    result = testlib_judge.judge(path.read_text(), pair_problem(("10\n", "5 5\n"), ("7\n", "3 4\n")))
    assert result.score == 0.0, [(c.verdict, c.message) for c in result.cases]
    assert Verdict.SE not in {c.verdict for c in result.cases}, [c.message for c in result.cases]
