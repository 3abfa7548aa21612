"""The checker library against the field survey's checker table: presentation-only differences, float
noise, permuted answers, NaN, huge numbers, empty output, trailing garbage; options and settings."""

from __future__ import annotations

import tracemalloc

import pytest

from judgebox import InvalidCases, UnknownChecker, Verdict
from judgebox.checkers import DEFAULT, Checker, CheckerProgram, Checking, make, parse
from judgebox.judging.cases import load_problem
from support.special_judges import program

AC, WA, PE, SE = Verdict.AC, Verdict.WA, Verdict.PE, Verdict.SE
BIG = "9" * 5000  # past the 4300 digits Python's int() refuses to read


@pytest.mark.parametrize("setting, output, expected, verdict", [
    # presentation only: tokens (testlib wcmp) accept, layout checkers say PE
    ("tokens", "1  2\r\n3\n\n", "1 2\n3", AC),
    ("lines", "1 2   \n3\n\n\n", "1 2\n3", AC),
    ("lines", "1\n2 3", "1 2\n3", PE),
    ("exact", "1 2\n3", "1 2\n3\n", PE),
    ({"name": "exact", "ignore_trailing_newlines": True}, "1 2\n3", "1 2\n3\n\n", AC),
    ("float", "1\n2\n", "1 2", AC),
    # letter case
    ("tokens", "Yes", "YES", WA),
    ({"name": "tokens", "case_insensitive": True}, "Yes", "YES", AC),
    ({"name": "lines", "case_insensitive": True}, "HELLO world\n", "hello World", AC),
    ({"name": "exact", "case_insensitive": True}, "ABC", "abc", AC),
    # 1e-6 float noise (testlib rcmp6), and past it
    ("float", "0.3333333333", "0.333333", AC),
    ("float", "0.333334", "0.333333", AC),
    ("float", "0.333335", "0.333333", WA),
    ("float", "1000000.5", "1000000.4", AC),  # relative: 1e-7 of the answer
    ({"name": "float", "mode": "absolute"}, "1000000.5", "1000000.4", WA),
    ({"name": "float", "mode": "relative"}, "0.0000005", "0", WA),  # an expected integer: exact
    ({"name": "float", "mode": "relative", "exact_integers": False}, "0.0000005", "0.0", WA),
    ({"name": "float", "mode": "absolute", "epsilon": 1e-4}, "3.14", "3.14159", WA),
    ({"name": "float", "mode": "absolute", "epsilon": 1e-2}, "3.14", "3.14159", AC),
    ("float", "1e-7", "0.0", AC),
    ("float", "-0.0000001", "0.0", AC),
    # integers: exact unless asked, whatever their size
    ("float", "123456700.0", "123456789", WA),
    ("float", "123456789.0", "123456789", AC),  # the same value
    ("float", "1000000001", "1000000000", WA),
    ({"name": "float", "exact_integers": False}, "123456700.0", "123456789", AC),
    ("float", "-0", "0", AC),
    ("float", "007", "7", AC),
    ("float", BIG, BIG, AC),
    ("float", BIG + "8", BIG + "9", WA),
    ("float", "1" + BIG, BIG, WA),
    ("float", "1e400", "1e400", AC),  # the same infinity
    ("float", "-1e400", "1e400", WA),
    # NaN is never equal, itself included
    ("float", "nan", "nan", WA),
    ("float", "nan", "0.5", WA),
    ("float", "0.5", "nan", WA),
    # words stay words; number-like tricks are not numbers
    ("float", "1_000", "1000", WA),
    ("float", "0x10", "16", WA),
    ("float", "abc", "abc", AC),
    # empty output
    ("tokens", "", "1", WA),
    ("float", "", "1.5", WA),
    ("lines", "", "", AC),
    ("exact", "", "x", WA),
    ("unordered", "", "a", WA),
    ("yes_no", "", "YES", WA),
    # trailing garbage
    ("tokens", "1 2 3 junk", "1 2 3", WA),
    ("float", "0.5 0.5", "0.5", WA),
    ("lines", "1\n2\nextra", "1\n2", WA),
    ("unordered", "b\na\nc", "a\nb", WA),
    ("yes_no", "YES NO", "YES", WA),
    # permuted answers: unordered accepts them, multiplicity counts
    ("unordered", "3 4\n1 2\n", "1 2\n3 4", AC),
    ("unordered", "1 2\n1 2\n", "1 2\n3 4", WA),
    ("unordered", "a\na\nb\n", "a\nb\nb\n", WA),  # a set would accept this
    ("unordered", "2 1", "1 2", WA),  # by lines: a line's own order still counts
    ({"name": "unordered", "by": "tokens"}, "4 3\n2 1", "1 2 3 4", AC),
    ({"name": "unordered", "by": "tokens", "case_insensitive": True}, "B a", "A b", AC),
    ("tokens", "3 4\n1 2", "1 2\n3 4", WA),
    # yes/no
    ("yes_no", "yes", "YES", AC),
    ("yes_no", "nO\nYeS", "NO YES", AC),
    ("yes_no", "Y", "YES", WA),
    ("yes_no", "maybe", "maybe", SE),  # the answer is not YES/NO: the problem's fault, never the program's
])
def test_checker_table(setting, output, expected, verdict):
    checker = parse(setting).output
    assert checker(output.encode(), expected).verdict is verdict, repr(checker)
    assert checker(output, expected).verdict is verdict  # text is accepted too


@pytest.mark.parametrize("checker, output, expected, verdict", [
    ("apps", "1 2 3\n", "1 2 3", AC),
    ("apps", " 1\n  2 \n", "1\n2\n", AC),  # lines stripped
    ("apps", "1\n\n2\n", "1\n2", AC),  # blank lines dropped
    ("apps", "1.000001\n", "1.0", AC),  # numpy.allclose, relative 1e-5
    ("apps", "1.0001\n", "1.0", WA),
    ("apps", "2 1", "1 2", WA),  # its set-of-tokens step never accepts (a list is compared with sets)
    ("apps", "1.0 2.0", "1 2", WA),  # allclose reads one number per line
    ("livecodebench", "1.50\n", "1.5", AC),  # the same decimals
    ("livecodebench", "0.3333333", "0.333333", WA),  # no tolerance
    ("livecodebench", "  a b  \n", "a b", AC),
    ("livecodebench", "a  b", "a b", WA),  # a line is compared whole unless it is decimals
    ("sandboxfusion", "YES\n", "yes", AC),  # case-insensitive lines
    ("sandboxfusion", "1.000001", "1", AC),  # relative 1e-5
    ("sandboxfusion", "1 2\n", "1  2", WA),
    ("sandboxfusion", "a\n\n", "a", AC),
])
def test_ecosystem_rules(checker, output, expected, verdict):
    assert make(checker)(output.encode(), expected).verdict is verdict


def test_a_line_flood_is_refused_without_splitting_it():
    # APPS would drop these blank lines and accept; the judge does not hold 5 million lines to find out
    flood = b"1\n" + b"\n" * 5_000_000 + b"2"
    assert make("apps")(flood, "1\n2").verdict is WA
    assert make("apps")(b"1\n2" + b"\n" * 5_000_000, "1\n2").verdict is AC  # stripped, as APPS strips
    assert make("apps")(b"1\r" + b"\r" * 5_000_000 + b"2", "1\n2").verdict is WA  # str.splitlines splits \r too
    assert make("sandboxfusion")(b"1\n" * 5_000_000, "1").verdict is WA


@pytest.mark.parametrize("actual, expected, options, equal", [
    (1000000500.0, 1000000000, {}, False),  # an integer answer is matched exactly
    (1000000000.0, 1000000000, {}, True),
    (1000000500.0, 1000000000, {"exact_integers": False}, True),
    (0.30000000000000004, 0.3, {}, True),
    (0.30000000000000004, 0.3, {"epsilon": 0}, False),
    ((1, [2.0000000001, "x"]), [1, (2.0, "x")], {}, True),
    (True, 1, {}, False),
    (float("nan"), float("nan"), {}, True),  # a function may rightly return NaN
])
def test_value_checker(actual, expected, options, equal):
    assert (make("value", **options)(actual, expected).verdict is AC) is equal


@pytest.mark.parametrize("actual, expected, atol, equal", [
    (0.2, 0.20000000000000004, 0, True),  # an expected real: evalplus's atol of 0 is 1e-6
    (0.2000011, 0.2, 0, False),
    ([1.0, 2.0000005], [1.0, 2.0], 0, True),  # a list of reals too
    (3, 3.0, 0, True),  # Python's ==, as evalplus compares
    (True, 1, 0, True),
    (4, 3, 0, False),  # integers: exact unless an atol is given
    (4, 3, 1.0, True),
    (4.0, 3, 1.0, False),  # within atol, but of another type
    ([[1.0, 2.5]], [[1.0, 2.0]], 0.5, True),  # nested lists, numpy.allclose's way
    ([1.0], [1.0, 2.0], 1.0, False),
    ("a", "b", 1.0, False),  # no numbers: only equality
    (float("nan"), float("nan"), 1.0, False),  # numpy.allclose: NaN is close to nothing
    (0.1 + 1e-7 * 0.1 + 1e-6, 0.1, 1e-6, True),  # atol + 1e-7 relative, the tolerance evalplus passes numpy
    (0.1 + 2e-6, 0.1, 1e-6, False),
])
def test_evalplus_checker(actual, expected, atol, equal):
    assert (make("evalplus", atol=atol)(actual, expected).verdict is AC) is equal


def test_partial_lines_give_points():
    result = make("lines", partial=True)(b"1\n0\n3\n0\n", "1\n2\n3\n4")
    assert result.verdict is WA and result.points == 0.5
    assert make("lines", partial=True)(b"1\n2\n", "1\n2").verdict is AC


def test_a_checker_shows_its_options():
    assert repr(make("float", epsilon=1e-9)) == \
        "float(mode='either', epsilon=1e-09, exact_integers=True, case_insensitive=False)"
    assert repr(make("numbers")) == repr(make("float"))  # the former name
    assert make("unordered", by="tokens").setting() == {"name": "unordered", "by": "tokens", "case_insensitive": False}


@pytest.mark.parametrize("setting, message", [
    ("regex", "unknown checker 'regex'"),
    ({"name": "float", "eps": 1e-3}, "has no option 'eps' .*mode, epsilon"),
    ({"name": "float", "mode": "loose"}, "must be one of either, absolute, relative"),
    ({"name": "float", "epsilon": -1}, "must be a number >= 0"),
    ({"name": "float", "epsilon": True}, "must be a number >= 0"),
    ({"name": "tokens", "case_insensitive": "yes"}, "must be true or false"),
    ({"name": "yes_no", "case_insensitive": True}, "its options: none"),
    ({"epsilon": 1e-3}, "a checker is a name"),
    (42, "a checker is a name"),
    ({"language": "python", "code": "print(1)", "protcol": "testlib"}, "unknown: 'protcol'"),
    ({"code": "print(1)"}, "missing: 'language'"),
    ({"value": "tokens"}, "takes an output checker and a value checker"),
    ({"output": "value"}, "takes an output checker and a value checker"),
])
def test_a_bad_setting_is_a_clear_error(setting, message):
    with pytest.raises(UnknownChecker, match=message):
        parse(setting)


def test_settings_replace_the_part_they_are_about():
    assert parse(None) is DEFAULT
    assert parse("tokens").value == DEFAULT.value
    assert parse({"name": "value", "epsilon": 0}) == Checking(DEFAULT.output, make("value", epsilon=0.0))
    both = parse({"output": "exact", "value": {"name": "value", "exact_integers": False}})
    assert both == Checking(make("exact"), make("value", exact_integers=False))
    assert parse(both.setting()) == both  # the wire form reads back the same
    program = parse({"language": "python", "code": "print(1)", "protocol": "codeforces-python"}).output
    assert isinstance(program, CheckerProgram) and program.protocol == "codeforces-python"
    assert isinstance(parse("lines").output, Checker)


def test_problem_settings_in_the_test_data():
    problem = load_problem({"inputs": ["1"], "outputs": ["1"], "checker": {"name": "float", "epsilon": 1e-3},
                            "time_limit": 2, "memory_limit": 256.0, "language": "cpp"})
    assert parse(problem.checker).output == make("float", epsilon=1e-3)
    assert (problem.time_limit, problem.memory_limit, problem.language) == (2.0, 256, "cpp")
    from judgebox import Limits
    limits = problem.limits(Limits(cpu_time=10, memory_mb=1024, wall_time=40))
    assert (limits.cpu_time, limits.memory_mb, limits.wall_time) == (2.0, 256, 40)


def test_open_r1_codeforces_fields():
    problem = load_problem({"official_tests": [{"input": "1 2\n", "output": "3\n"}], "time_limit": 1.0,
                            "memory_limit": 256.0, "input_mode": "stdio",
                            "generated_checker": "import sys\nprint(1)\n"})
    assert [(c.stdin, c.expected_output) for c in problem.cases] == [(b"1 2\n", "3\n")]
    checker = parse(problem.checker).output
    assert isinstance(checker, CheckerProgram) and checker.protocol == "codeforces-python"


@pytest.mark.parametrize("data, message", [
    ({"inputs": ["1"], "outputs": ["1"], "checkr": "tokens"}, "unknown test-data key 'checkr'"),
    ({"inputs": ["1"], "outputs": ["1"], "checker": "regex"}, "unknown checker 'regex'"),
    ({"inputs": ["1"], "outputs": ["1"], "checker": {"name": "float", "tol": 1}}, "no option 'tol'"),
    ({"inputs": ["1"], "outputs": ["1"], "time_limit": 0}, "time_limit must be a positive number"),
    ({"inputs": ["1"], "outputs": ["1"], "time_limit": "2"}, "time_limit must be a positive number"),
    ({"inputs": ["1"], "outputs": ["1"], "memory_limit": 255.5}, "whole megabytes"),
    ({"inputs": ["1"], "outputs": ["1"], "input_mode": "files"}, 'input_mode is "stdio" or "file"'),
    ({"inputs": ["1"], "outputs": ["1"], "interactor": "interact.py"}, "an interactor is"),
    ({"official_tests": [{"input": "1"}]}, "official_tests must be a list"),
    ({"official_tests": [], "inputs": [], "outputs": []}, "give one"),
    ({"inputs": ["1"], "outputs": ["1"], "checker": "tokens", "generated_checker": "print(1)"}, "give one"),
])
def test_bad_problem_settings_are_clear_errors(data, message):
    with pytest.raises(InvalidCases, match=message):
        load_problem(data)


# Attacks on the checker library, checker programs and interactive runs.
#
# Each attack is an output or a solution an RL policy could find. Attacks that still succeed are strict
# xfails (the fix flips them); blocked ones are kept as regression data.

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


# -- interactive: a solution that makes a Python interactor fail --------------------------------------


# -- checker programs: testlib's FAIL for a jury answer the participant beat ----------------------------


def test_the_verl_profile_does_not_pay_an_empty_program_on_an_interactive_problem():
    import judgebox.verl

    data = {"inputs": ["777\n"], "outputs": [""], "interactor": program("guess_interactor.py")}
    score, metadata = judgebox.verl.compute_score(None, None, 256, "```python\npass\n```", data, True, 10, "verl")
    assert score == 0.0 and "interactive" in metadata[0]["error"]


# -- checker programs: a FAIL of testlib's own that the output provokes ----------------------------------
