from judgebox import Case, Verdict


def test_sum_of_two(judge):
    result = judge.judge("a, b = map(int, input().split())\nprint(a + b)", [Case.stdio("1 2\n", "3\n")])
    assert result.verdict is Verdict.AC
    assert result.score == 1.0
