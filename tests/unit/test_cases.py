import json
import re
from fractions import Fraction

import pytest

import judgebox
import judgebox.verl as verl
from judgebox import Case, InvalidCases, InvalidCode, InvalidLimits, Limits, Submission
from judgebox.judging.cases import load_cases, load_problem


def sum_problem(**settings) -> dict:
    return {"inputs": ["1 2\n", "5 5\n"], "outputs": ["3\n", "10\n"], "input_mode": "file", **settings}


def test_verl_stdio_form():
    cases = load_cases({"inputs": ["1 2", "3 4"], "outputs": ["3", "7"]})
    assert [c.kind for c in cases] == ["stdio", "stdio"]
    assert cases[1].stdin == b"3 4" and cases[1].expected_output == "7"


def test_verl_call_form_parses_arguments_and_expected_values():
    cases = load_cases('{"inputs": ["[1, 2]\\n3"], "outputs": ["(1, 2)"], "fn_name": "f"}')
    assert cases[0].kind == "call"
    assert cases[0].args == ([1, 2], 3)
    assert cases[0].expected_value == (1, 2)


def test_verl_forms_in_the_wild_are_read():
    """None stdin is no input, numbers stand for their digits, call arguments may come as a list."""
    stdio = load_cases({"inputs": [None, 7], "outputs": ["x", 3.5]})
    assert [(c.stdin, c.expected_output) for c in stdio] == [(b"", "x"), (b"7", "3.5")]
    call = load_cases({"fn_name": "f", "inputs": [[1, [2]], "1\n2\n"], "outputs": [[3], "3"]})
    assert [(c.args, c.expected_value) for c in call] == [((1, [2]), [3]), ((1, 2), 3)]


def test_verl_assert_form_skips_empty_asserts():
    cases = load_cases({"inputs": ["", ""], "outputs": [None, None], "assert_case": ["assert f()", "  "]})
    assert [c.assert_code for c in cases] == ["assert f()"]


@pytest.mark.parametrize("bad, message", [
    ({"inputs": ["1"], "outputs": ["1", "2"]}, "1 inputs but 2 outputs"),
    ({"inputs": [{"x": 1}], "outputs": ["1"]}, "input 0 must be text"),
    ({"inputs": ["1"], "outputs": [None]}, "output 0 must be text"),
    ({"inputs": "1", "outputs": "1"}, "must be lists"),
    ({"inputs": [], "outputs": []}, "no test cases"),
    ({"inputs": ["{"], "outputs": ["1"], "fn_name": "f"}, "JSON value per argument"),
    ({"inputs": ["1"], "outputs": ["1"], "fn_name": "not a name"}, "identifier"),
    ({"assert_case": "assert x"}, "list of strings"),
    ("not json", "not JSON"),
    (42, "must be a list"),
    ([Case.stdio("", ""), "x"], "must be a list"),
])
def test_invalid_test_data_is_a_clear_error(bad, message):
    with pytest.raises(InvalidCases, match=message):
        load_cases(bad)


@pytest.mark.parametrize("changes", [
    {"cpu_time": -1}, {"cpu_time": 0}, {"cpu_time": float("inf")}, {"cpu_time": 1e9}, {"memory_mb": 1},
    {"memory_mb": 10**9}, {"output_bytes": 0}, {"processes": 0}, {"wall_time": -3}, {"cpu_time": "1"},
    {"open_files": True},
])
def test_absurd_limits_are_rejected(changes):
    with pytest.raises(InvalidLimits):
        Limits(**changes)


@pytest.mark.parametrize("code", ["", "   \n", "x" * (5 * 1024 * 1024), None])
def test_empty_or_huge_code_is_rejected(code):
    with pytest.raises(InvalidCode):
        Submission(code, (Case.stdio("", ""),))


# Attack: a lone surrogate (U+D800..U+DBFF, or U+DC00..U+DC7F) anywhere in the program's text, even in a
# comment, makes the judge report SE, and verl's reward infra_error=True, so the trainer masks the sample.
#
# slot._python_request encodes the code with "surrogateescape", which only maps U+DC80..U+DCFF back to
# bytes; any other surrogate raises UnicodeEncodeError in the judge, which becomes SE. A program that would
# score 0 (here: prints nothing) gets itself masked instead.
#
# Judge gave: Verdict.SE; default_compute_score -> verdict 'SE', infra_error True.
# A correct judge gives CE (the source is not valid text) or judges the program (WA here), never SE, and
# infra_error False.

WRONG = "pass  # \ud800\n"


def test_a_lone_surrogate_is_invalid_code_refused_before_anything_runs():
    """Not text that has an encoding: the caller's input is refused with a clear error, never SE."""
    with pytest.raises(judgebox.InvalidCode, match="lone surrogate"):
        judgebox.Judge.submission(WRONG, [Case.stdio("1\n", "1")])


def test_a_lone_surrogate_is_no_infra_error_for_verl():
    scored = verl.default_compute_score("codecontests", f"```python\n{WRONG}```",
                                        json.dumps({"inputs": ["1"], "outputs": ["1"]}))
    assert scored["score"] == 0 and not scored["infra_error"], scored


# Whole-number limits given as reals (256.0 for memory_mb) are the ints they name; a fraction is refused: a float
# once reached the sandbox as an SE (tests/backends/test_server_judge.py judges with them).

def test_whole_limits_are_whole_numbers():
    assert Limits(memory_mb=256.0) == Limits(memory_mb=256) and type(Limits(memory_mb=256.0).memory_mb) is int
    with pytest.raises(InvalidLimits):
        Limits(memory_mb=256.5)
    with pytest.raises(InvalidLimits):
        Limits(output_bytes=1e6 + 0.5)


# open-r1's ``input_mode: "file"`` as read from the data (tests/judging/test_file_io.py runs such programs).

def test_input_mode_file_makes_every_case_a_file_case():
    problem = load_problem(sum_problem())
    assert [case.io for case in problem.cases] == ["file", "file"]
    assert [case.io for case in load_problem({**sum_problem(), "input_mode": "stdio"}).cases] == ["stdio"] * 2
    official = load_problem({"official_tests": [{"input": "1 2\n", "output": "3\n"}], "input_mode": "file"})
    assert [case.io for case in official.cases] == ["file"]


@pytest.mark.parametrize("data", [
    {**sum_problem(), "input_mode": "files"},
    {**sum_problem(), "input_mode": None},
    {"inputs": [""], "outputs": [None], "assert_case": ["assert True"], "input_mode": "file"},
    {"inputs": ["[1]"], "outputs": ["1"], "fn_name": "f", "input_mode": "file"},
])
def test_a_bad_input_mode_is_refused(data):
    with pytest.raises(InvalidCases):
        load_problem(data)


def test_run_time_is_validated():
    from judgebox.errors import InvalidLimits

    for bad in (0, -1, float("nan"), 10_000):
        with pytest.raises(InvalidLimits):
            Limits(run_time=bad)


# open-r1's verification_info: {"language", "test_cases": [{"input", "output", "type", "fn_name"}]}, as its
# verifiable-coding-problems datasets hold it
VERIFICATION_INFO = {"language": "python", "test_cases": [
    {"fn_name": None, "input": "1 2\n", "output": "3\n", "type": "stdin_stdout"},
    {"input": "5 7\n", "output": "12\n", "type": "stdin_stdout"}]}


def test_open_r1_verification_info_is_test_data_with_its_language():
    problem = load_problem(VERIFICATION_INFO)
    assert problem.language == "python"
    assert [(c.kind, c.stdin, c.expected_output) for c in problem.cases] == [("stdio", b"1 2\n", "3\n"),
                                                                            ("stdio", b"5 7\n", "12\n")]
    assert load_problem(json.dumps(VERIFICATION_INFO)).cases == problem.cases


@pytest.mark.parametrize("test_cases, message", [
    ([{"input": "1", "output": "1", "type": "function_call"}], "test_cases[0]: only stdin_stdout cases"),
    ([{"input": "1", "output": "1", "fn_name": "f"}], "test_cases[0]: only stdin_stdout cases"),
    ([{"input": "1", "output": "1", "types": "stdin_stdout"}], "test_cases must be a list of"),
    ([{"input": "1"}], "test_cases must be a list of"),
    ("1 2", "test_cases must be a list of"),
])
def test_open_r1_cases_of_another_shape_are_refused(test_cases, message):
    with pytest.raises(InvalidCases, match=re.escape(message)):
        load_problem({"language": "python", "test_cases": test_cases})


def test_open_r1_cases_beside_another_form_are_refused():
    with pytest.raises(InvalidCases, match="test_cases and inputs/outputs are two forms"):
        load_problem({**VERIFICATION_INFO, "inputs": ["1"], "outputs": ["1"]})
    with pytest.raises(InvalidCases, match="official_tests and test_cases are two forms"):
        load_problem({**VERIFICATION_INFO, "official_tests": [{"input": "1", "output": "1"}]})


@pytest.mark.parametrize("args", [[{1, 2}], [b"ab"], [{1: "a"}], [[1, Fraction(1, 2)]]],
                         ids=["set", "bytes", "int key", "Fraction"])
def test_call_arguments_json_cannot_carry_are_invalid_cases(args):
    """The program's side reads its arguments as JSON. Broke (fixed): a set or bytes raised TypeError out of
    judge() when the case ran; an int key became a text key, another argument than the one given."""
    with pytest.raises(InvalidCases, match="has no JSON form"):
        Case.call("f", args, 1)


def test_an_expected_value_json_cannot_carry_is_still_a_value():
    """Expected values are compared on the judge's side, as Python values: a set stays a set."""
    assert Case.call("f", [[1, 2]], {1, 2}).expected_value == {1, 2}
