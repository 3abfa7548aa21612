"""Checker programs: a problem's testlib checker (compiled against the real testlib.h) and open-r1's
codeforces-python checkers, run in the sandbox after the solution's run; every verdict of the testlib
convention, a checker failure that is the dataset's (SE) or provoked by the output (WA), checkers for
CodeContests problems with many valid answers, and the reward hacks of tests/adversarial/checkers/hacks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import judgebox
from judgebox import Case, Verdict
from judgebox.presets import get as preset
from judgebox.sandbox.config import SandboxConfig
from support.data import load_dataset
from support.special_judges import find_testlib, program

HACKS = Path(__file__).resolve().parents[1] / "adversarial" / "checkers" / "hacks"
CODECONTESTS_CHECKERS = Path(__file__).with_name("codecontests")
PAIR = "n = int(input())\nprint(n // 2, n - n // 2)\n"


@pytest.fixture(scope="module")
def testlib_judge():
    with judgebox.Judge(SandboxConfig(testlib=find_testlib()), slots=2) as judge:
        yield judge


def pair_problem(*cases: tuple[str, str]) -> dict:
    return {"inputs": [i for i, _ in cases], "outputs": [o for _, o in cases],
            "checker": program("pair_checker.cpp"), "time_limit": 2}





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


# Attacks on the checker library, checker programs and interactive runs.
#
# Each attack is an output or a solution an RL policy could find. Attacks that still succeed are strict
# xfails (the fix flips them); blocked ones are kept as regression data.

HUGE_NEGATIVE = b"-" + b"9" * 400  # an integer past the double range: float() makes it -inf


def test_livecodebench_signalling_nan_through_the_judge(judge):
    result = judge.judge('print("sNaN")', [Case.stdio("", "1\n")], checker=preset("livecodebench").checking)
    assert result.verdict is Verdict.WA


@pytest.mark.slow  # a judgebox serve of its own (about 25 s with its self-tests)
def test_livecodebench_signalling_nan_through_the_server():
    import httpx

    from support.server import Server

    server = Server(env={"JUDGEBOX_SLOTS": "1"})
    try:
        request = {"code": 'print("sNaN")', "cases": [{"stdin": "", "expected_output": "1\n"}],
                   "checker": "livecodebench"}
        response = httpx.post(server.url + "/judge", json=request, timeout=120)
    finally:
        server.close()
    assert response.status_code == 200, response.text
    assert response.json()["verdict"] == "WA"


def test_a_huge_integer_returned_for_a_real_through_the_judge_and_verl(judge):
    import judgebox.verl

    code = "def f(x):\n    return 10**400\n"
    result = judge.judge(code, [Case.call("f", [1], 1.5)])
    assert result.verdict is Verdict.WA
    data = {"fn_name": "f", "inputs": [[1]], "outputs": [1.5]}
    score, _metadata = judgebox.verl.compute_score(None, None, 256, f"```python\n{code}```", data, True, 10)
    assert score == 0.0


# The problem: the largest even number up to n. The checker is testlib's classic optimisation pattern:
# an answer worse than the jury's is WA, a better one is FAIL (the jury's answer is wrong).
BETTER_THAN_JURY_CHECKER = """
import sys
n = int(open(sys.argv[1]).read())
answer = int(open(sys.argv[3]).read())
try:
    got = int(open(sys.argv[2]).read())
except ValueError:
    print("not a number", file=sys.stderr)
    sys.exit(2)
if not (0 <= got <= n and got % 2 == 0):
    print("not an even number up to n", file=sys.stderr)
    sys.exit(1)
if got < answer:
    print("not the largest", file=sys.stderr)
    sys.exit(1)
if got > answer:
    print("participant's answer is better than jury's", file=sys.stderr)
    sys.exit(3)
"""


def test_a_fail_for_beating_the_jury_is_wa_not_a_mask(judge):
    """The rule for rewards: a FAIL the output reaches is blamed on the output once the checker judges the
    jury's answer cleanly, so a wrong output cannot buy a masked SE with it. The documented cost: a right
    answer that beats a wrong jury answer scores 0 (WA) on that case, not SE."""
    data = {"inputs": ["9\n", "10\n"], "outputs": ["6\n", "10\n"],  # 6 is a wrong jury answer for 9
            "checker": {"language": "python", "code": BETTER_THAN_JURY_CHECKER, "protocol": "testlib"}}
    result = judge.judge("n = int(input())\nprint(n - n % 2)", data)
    assert result.cases[1].verdict is Verdict.AC  # the mechanism works where the jury is right
    assert result.cases[0].verdict is Verdict.WA, result.cases[0].message
    assert "to blame" in result.cases[0].message


# testlib's readInts(size) FAILs on a negative size (InStream::quit(_fail), on whichever stream): a checker
# that reads the participant's count unranged hands that FAIL to the participant's output.
COUNT_THEN_ITEMS_CHECKER = """
#include "testlib.h"
int main(int argc, char *argv[]) {
    registerTestlibCmd(argc, argv);
    int want = ans.readInt();
    int k = ouf.readInt();
    std::vector<int> items = ouf.readInts(k);
    if (k != want) quitf(_wa, "expected %d items, found %d", want, k);
    quitf(_ok, "%d items", k);
}
"""


@pytest.mark.slow  # compiles testlib.h (about 15 s)
def test_a_testlib_fail_the_output_provokes_is_not_se():
    """Was a strict xfail (testlib's FAIL was SE unconditionally): a FAIL now goes through the blame step,
    and the checker judges the jury's answer cleanly, so the output that provoked it is WA."""
    import judgebox
    from judgebox.sandbox.config import SandboxConfig
    from support.special_judges import find_testlib

    data = {"inputs": ["1\n"], "outputs": ["1\n5\n"],
            "checker": {"language": "cpp", "code": COUNT_THEN_ITEMS_CHECKER}}
    with judgebox.Judge(SandboxConfig(testlib=find_testlib()), slots=1) as judge:
        assert judge.judge("print(1)\nprint(5)", data).verdict is Verdict.AC  # the checker works
        result = judge.judge("print(-1)", data)
    assert result.cases[0].verdict is Verdict.WA, result.cases[0].message
    assert "FAIL" in result.cases[0].message and "to blame" in result.cases[0].message
