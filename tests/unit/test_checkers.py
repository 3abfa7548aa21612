import pytest

from judgebox import UnknownChecker, Verdict
from judgebox.checkers import get, values_equal


@pytest.mark.parametrize("checker, output, expected, verdict", [
    ("tokens", "1 2\n3", "1\n2 3\n", Verdict.AC),
    ("tokens", "1 2 4", "1 2 3", Verdict.WA),
    ("tokens", "1 2", "1 2 3", Verdict.WA),
    ("lines", "a  \nb\n\n\n", "a\nb", Verdict.AC),
    ("lines", "a b\n", "a  b\n", Verdict.PE),
    ("lines", "a\nc\n", "a\nb\n", Verdict.WA),
    ("exact", "a\n", "a\n", Verdict.AC),
    ("exact", "a", "a\n", Verdict.PE),
    ("exact", "b\n", "a\n", Verdict.WA),
    ("numbers", "0.3333333333 2\n", "0.333333 2", Verdict.AC),
    ("numbers", "20.0", "20", Verdict.AC),  # a number written as a real compares as one
    ("numbers", "1e-7", "0.0", Verdict.AC),
    ("numbers", "0.3334", "0.333333", Verdict.WA),
    ("numbers", "1000000001", "1000000000", Verdict.WA),  # two integers: exact, never relative
    ("numbers", "nan", "0.5", Verdict.WA),
    ("numbers", "yes", "YES", Verdict.WA),
    ("numbers", "1 2", "1 2 3", Verdict.WA),
])
def test_text_checkers(checker, output, expected, verdict):
    assert get(checker)(output, expected).verdict is verdict


def test_wrong_answer_message_names_the_token():
    assert "token 2" in get("tokens")("1 5", "1 2").message


def test_unknown_checker_is_a_clear_error():
    with pytest.raises(UnknownChecker, match=r"available: apps, evalplus, exact, float, lines, .*tokens, unordered, "
                                             r"value, yes_no"):
        get("regex")


@pytest.mark.parametrize("actual, expected, equal", [
    ([1, 2], (1, 2), True),
    ([[1, 2], [3]], [(1, 2), (3,)], True),
    (0.1 + 0.2, 0.3, True),
    (1.0, 1, True),
    (1, True, False),
    (True, 1, False),
    ("1", 1, False),
    ({"a": [1]}, {"a": (1,)}, True),
    ({"a": 1}, {"b": 1}, False),
    (float("nan"), float("nan"), True),
    (None, None, True),
    ([1, 2], [1, 2, 3], False),
])
def test_values_equal(actual, expected, equal):
    assert values_equal(actual, expected) is equal
