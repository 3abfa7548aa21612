"""Adversarial review (round 2) of the checker library, checker programs and interactive runs.

Each attack is an output or a solution an RL policy could find. Attacks that still succeed are strict
xfails (the fix flips them); blocked ones are kept as regression data.
"""

from __future__ import annotations

import tracemalloc

import pytest

from judgebox import Case, Verdict
from judgebox.checkers import make
from judgebox.presets import get as preset
from special_judges import program

# -- the checker library: outputs no checker may accept (blocked: regression data) --------------------

WRONG_OUTPUTS = [  # (checker, output, expected)
    ("float", b"0x10", b"16"),  # hex is not a decimal answer
    ("float", b"nan", b"nan"),  # NaN equals nothing
    ("float", "\u0661\u0662".encode(), b"12"),  # Arabic-Indic digits
    ("float", "\uff11\uff12".encode(), b"12"),  # full-width digits
    ("float", b"1_000", b"1000"),  # Python's digit grouping (float() would take it)
    ("float", b"5\x00", b"5"),  # a NUL glued to the number
    ("float", b"5 garbage", b"5"),  # trailing garbage
    ("float", b"1e99999999999", b"5"),  # a huge exponent against an integer
    ("float", b"5e-99999999999999999999", b"5"),
    ("float", b"5.0000000000000000001", b"5"),  # integers exact
    ("float", b"1e-7", b"0"),
    ("yes_no", b"YES\nNO", b"YES"),  # both answers
    ("yes_no", b"Y", b"YES"),
    ("unordered", b"a\na\nb", b"a\nb\nb"),  # a multiset, duplicates counted
    ("tokens", b"1\x002", b"1 2"),  # NUL is not whitespace
]


@pytest.mark.parametrize(("name", "output", "expected"), WRONG_OUTPUTS)
def test_wrong_outputs_are_rejected(name, output, expected):
    assert make(name)(output, expected).verdict is not Verdict.AC


@pytest.mark.parametrize(("output", "expected"), [(b"1e401", b"1e400"), (b"inf", b"1e309")])
def test_float_reals_past_the_double_range_are_compared_by_value(output, expected):
    assert make("float")(output, expected).verdict is Verdict.WA


def test_partial_lines_trailing_garbage_is_not_ac():
    assert make("lines")(b"1\n2\n3\ngarbage\n", b"1\n2\n3\n").verdict is Verdict.WA
    assert make("lines", partial=True)(b"1\n2\n3\ngarbage\n", b"1\n2\n3\n").verdict is not Verdict.AC


def test_partial_lines_each_extra_line_cancels_a_right_one():
    partial = make("lines", partial=True)
    assert partial(b"1\n2\n3\ngarbage\n", b"1\n2\n3\n").points == pytest.approx(2 / 3)
    assert partial(b"1\n2\n3\n\nx\n", b"1\n2\n3\n").points == pytest.approx(1 / 3)  # a blank line inside counts
    assert partial(b"1\n2\n3\n\n\n", b"1\n2\n3\n").verdict is Verdict.AC  # trailing blank lines do not
    flooded = partial(b"1\n0\n3\n" + b"x\n" * 100_000, b"1\n2\n3\n")
    assert flooded.points == 0.0 and "less 2 " in flooded.message  # read no further than it could cost


@pytest.mark.parametrize(("output", "expected"), [(b"1e-400", b"1e-300"), (b"5e-99999999999999999999", b"1e-320")])
def test_float_reals_below_the_double_range_are_compared_by_value(output, expected):
    assert make("float", mode="relative")(output, expected).verdict is Verdict.WA  # float() makes both about 0
    assert make("float", mode="relative")(expected, expected).verdict is Verdict.AC


@pytest.mark.parametrize("name", ["float", "tokens", "lines", "exact"])
def test_tokens_past_the_expected_ones_are_not_counted(name, monkeypatch):
    import judgebox.checkers.text as text

    read = []

    def counted(data):
        for token in real_tokens_of(data):
            read.append(token)
            yield token

    real_tokens_of = text.tokens_of
    monkeypatch.setattr(text, "tokens_of", counted)
    result = make(name)(b"1 2 3 " + b"1 " * 100_000, b"1 2 3")
    assert result.verdict is Verdict.WA
    assert "more tokens than expected" in result.message
    assert len(read) <= 2 * 3 + 1, len(read)  # the answer's three, as many of the output's, and one more


# -- the apps rule (the prime preset): numpy.allclose's infinities -----------------------------------------

HUGE_NEGATIVE = b"-" + b"9" * 400  # an integer past the double range: float() makes it -inf


@pytest.mark.parametrize(("output", "expected"), [
    (b"0\n", HUGE_NEGATIVE + b"\n"),
    (b"0\n1\n", HUGE_NEGATIVE + b"\n" + b"9" * 400 + b"\n"),  # every line of a big-integer answer
    (b"-inf\n", b"inf\n"),
])
def test_apps_allclose_does_not_accept_any_number_for_an_infinite_answer(output, expected):
    assert make("apps")(output, expected).verdict is Verdict.WA


# -- the livecodebench rule: the program's output raises in the judge's own process ----------------------

@pytest.mark.parametrize(("output", "expected"), [(b"sNaN\n", b"1\n"), (b"1 sNaN\n", b"1 2\n"), (b"-snan12\n", b"3\n")])
def test_livecodebench_signalling_nan_is_wa(output, expected):
    assert make("livecodebench")(output, expected).verdict is Verdict.WA


def test_livecodebench_signalling_nan_through_the_judge(judge):
    result = judge.judge('print("sNaN")', [Case.stdio("", "1\n")], checker=preset("livecodebench").checking)
    assert result.verdict is Verdict.WA


@pytest.mark.slow  # a judgebox serve of its own (about 25 s with its self-tests)
def test_livecodebench_signalling_nan_through_the_server():
    import httpx

    from conftest import Server

    server = Server(env={"JUDGEBOX_SLOTS": "1"})
    try:
        request = {"code": 'print("sNaN")', "cases": [{"stdin": "", "expected_output": "1\n"}],
                   "checker": "livecodebench"}
        response = httpx.post(server.url + "/judge", json=request, timeout=120)
    finally:
        server.close()
    assert response.status_code == 200, response.text
    assert response.json()["verdict"] == "WA"


def test_livecodebench_one_long_line_costs_the_judge_little_memory():
    output = b"1 " * (256 * 1024)  # 512 KiB; a 64 MiB output would cost the judge about 4 GiB
    tracemalloc.start()
    try:
        make("livecodebench")(output, b"1\n")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * len(output), f"peak {peak / len(output):.0f}x the output"


# -- the value checker (every profile's default for call results): an integer past the float range ------

@pytest.mark.parametrize("actual", [10**400, -(10**5000), [10**400]], ids=["big", "huge-negative", "in-a-list"])
def test_value_checker_huge_integer_against_a_real_is_wa(actual):
    expected = [0.5] if isinstance(actual, list) else 1.5
    assert make("value")(actual, expected).verdict is Verdict.WA


def test_value_checker_big_expected_integer_against_a_real_without_exact_integers():
    inexact = make("value", exact_integers=False)
    assert inexact(1.5, 10**400).verdict is Verdict.WA
    assert inexact(1e308, 10**308).verdict is Verdict.AC  # in range: within epsilon as before
    assert inexact(float("inf"), 10**400).verdict is Verdict.WA


def test_value_checker_walks_deep_nesting_without_recursion():
    deep = []
    for _ in range(100_000):
        deep = [deep]
    assert make("value")(deep, deep).verdict is Verdict.AC
    assert make("value")(deep, [[0]]).verdict is Verdict.WA


def test_a_huge_integer_returned_for_a_real_through_the_judge_and_verl(judge):
    import judgebox.verl

    code = "def f(x):\n    return 10**400\n"
    result = judge.judge(code, [Case.call("f", [1], 1.5)])
    assert result.verdict is Verdict.WA
    data = {"fn_name": "f", "inputs": [[1]], "outputs": [1.5]}
    score, _metadata = judgebox.verl.compute_score(None, None, 256, f"```python\n{code}```", data, True, 10)
    assert score == 0.0


# -- interactive: a solution that makes a Python interactor fail --------------------------------------

CLOSE_STDIN_THEN_ASK = """
import os, time
os.close(0)                  # the interactor's answer now meets a closed pipe: EPIPE
print("? 5", flush=True)
time.sleep(0.5)              # let the interactor end first
"""


def test_closing_stdin_does_not_buy_an_se_from_a_python_interactor(judge):
    data = {"inputs": ["777\n"], "outputs": [""], "interactor": program("guess_interactor.py"), "time_limit": 1}
    result = judge.judge(CLOSE_STDIN_THEN_ASK, data)
    assert result.cases[0].verdict is not Verdict.SE, result.cases[0].message
    assert result.score == 0.0


# -- checker programs: testlib's FAIL for a jury answer the participant beat ----------------------------

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


def test_the_verl_profile_does_not_pay_an_empty_program_on_an_interactive_problem():
    import judgebox.verl

    data = {"inputs": ["777\n"], "outputs": [""], "interactor": program("guess_interactor.py")}
    score, metadata = judgebox.verl.compute_score(None, None, 256, "```python\npass\n```", data, True, 10, "verl")
    assert score == 0.0 and "interactive" in metadata[0]["error"]


# -- checker programs: a FAIL of testlib's own that the output provokes ----------------------------------

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
    from special_judges import find_testlib

    data = {"inputs": ["1\n"], "outputs": ["1\n5\n"],
            "checker": {"language": "cpp", "code": COUNT_THEN_ITEMS_CHECKER}}
    with judgebox.Judge(SandboxConfig(testlib=find_testlib()), slots=1) as judge:
        assert judge.judge("print(1)\nprint(5)", data).verdict is Verdict.AC  # the checker works
        result = judge.judge("print(-1)", data)
    assert result.cases[0].verdict is Verdict.WA, result.cases[0].message
    assert "FAIL" in result.cases[0].message and "to blame" in result.cases[0].message
