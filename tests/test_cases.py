import pytest

from judgebox import Case, InvalidCases, InvalidCode, InvalidLimits, Limits, Submission
from judgebox.cases import load_cases


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
