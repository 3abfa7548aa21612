"""``judgebox score``'s pure parts, without a judge: pass@k against the hand-computed estimator, the summary's
right/wrong/judge-failure counts, the formats read into verl's test cases, refusals before anything runs, and a
results file's truncated last line (tests/cli/test_score.py runs the command for real)."""

from __future__ import annotations

import base64
import json
import os
import pickle
import zlib
from pathlib import Path

import pytest

from judgebox.tools.cli import main
from judgebox.tools.score import BadRecord, pass_at_k, pass_at_ks, summarize, unreported_ks
from judgebox.tools.score.formats import to_problem
from judgebox.tools.score.results import ResultsFile, load

FIXTURES = Path(__file__).resolve().parents[1] / "cli" / "score_fixtures"  # the score command's inputs


def kinds(summary: dict) -> dict[str, tuple[int, int, int]]:
    return {kind: (f["judged"], f["passed"], f["rejected"]) for kind, f in summary["kinds"].items()}


def test_pass_at_k_matches_the_hand_computed_estimator() -> None:
    # n=10 samples, c=3 right: pass@1 = 3/10; pass@5 = 1 - C(7,5)/C(10,5) = 1 - 21/252; pass@10 = 1
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - 21 / 252)
    assert pass_at_k(10, 3, 10) == 1.0
    assert pass_at_k(10, 0, 5) == 0.0
    assert pass_at_k(4, 1, 2) == pytest.approx(1 - 3 / 6)  # C(3,2)/C(4,2)
    # a k is reported only when every problem has at least k samples, and then over all of them
    assert pass_at_ks([(10, 3), (2, 1)]) == {"pass@1": {"value": pytest.approx((0.3 + 0.5) / 2), "problems": 2}}
    assert unreported_ks([(10, 3), (2, 1)]) == {"pass@5": "1 of 2 problems have fewer than 5 samples (the fewest: 2)",
                                                "pass@10": "1 of 2 problems have fewer than 10 samples (the fewest: 2)"}
    assert pass_at_ks([(10, 3), (5, 1)], (1, 5)) == {
        "pass@1": {"value": pytest.approx((0.3 + 0.2) / 2), "problems": 2},
        "pass@5": {"value": pytest.approx((1 - 21 / 252 + 1.0) / 2), "problems": 2}}
    assert pass_at_ks([], (1,)) == {} and unreported_ks([], (1,)) == {}
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 5)


def test_summary_keeps_right_and_wrong_apart_and_counts_judge_failures_in_neither() -> None:
    def row(ident: str, kind: str, verdict: str, score: float) -> dict:
        return {"id": ident, "kind": kind, "sample": 0, "source": "s", "language": "python", "score": score,
                "verdict": verdict, "error": "", "cases": [[verdict, 0.1]], "seconds": 0.1}

    summary = summarize([row("a", "right", "AC", 1.0), row("b", "right", "WA", 0.5), row("c", "wrong", "WA", 0.0),
                         row("d", "wrong", "AC", 1.0), row("e", "wrong", "SE", 0.0)])
    assert kinds(summary) == {"right": (2, 1, 1), "wrong": (3, 1, 1)}
    assert summary["kinds"]["wrong"]["judge_failures"] == 1
    assert summary["cases"] == 5


def test_formats_read_into_verl_test_cases() -> None:
    humaneval = to_problem(json.loads((FIXTURES / "humaneval.jsonl").read_text().splitlines()[0]), "line 1")
    assert humaneval.id == "Tiny/0" and humaneval.test_cases["assert_case"][0].endswith("check(add)\n")
    assert humaneval.right == (("python", humaneval.prompt + "    return a + b\n"),)
    contests = to_problem(json.loads((FIXTURES / "codecontests.jsonl").read_text()), "line 1")
    assert contests.test_cases["inputs"] == ["abc\n", "x\n", "hello\n"]
    assert contests.test_cases["time_limit"] == 2.0 and contests.test_cases["memory_limit"] == 244
    assert [lang for lang, _ in contests.right] == ["python", "cpp"] and contests.unjudgeable == 1  # Python 2
    functional = to_problem(json.loads((FIXTURES / "livecodebench.jsonl").read_text().splitlines()[1]), "line 2")
    assert functional.test_cases == {"inputs": ["[2, 7, 5]", "[4, 1, 3]"], "outputs": ["2", "1"],
                                     "fn_name": "smallest"}  # the packed private tests read


def test_evalplus_records_are_call_cases_whose_values_the_canonical_solution_gives() -> None:
    record = json.loads((FIXTURES / "evalplus.jsonl").read_text().splitlines()[0])
    problem = to_problem(record, "line 1")
    assert (problem.form, problem.base_cases) == ("evalplus", 2)
    assert problem.test_cases == {"inputs": [[1, 2], [0, 0], [-5, 3], [1000000, 1]], "outputs": [None] * 4,
                                  "fn_name": "add", "checker": {"name": "evalplus", "atol": 0.0}}
    assert problem.differential is not None and problem.differential.reference == record["prompt"] + \
        record["canonical_solution"] == problem.right[0][1]
    # MBPP+'s records carry MBPP's fields beside evalplus's
    mbpp_plus = {**record, "code": "def add(a, b): return a + b", "test_list": [], "test_imports": [],
                 "source_file": "x", "assertion": ""}
    assert to_problem(mbpp_plus, "line 1").form == "evalplus"
    with pytest.raises(BadRecord, match="'plus_input': expected a list of argument lists, got str"):
        to_problem({**record, "plus_input": "[[1, 2]]"}, "line 1")
    with pytest.raises(BadRecord, match="'atol': expected a tolerance >= 0"):
        to_problem({**record, "atol": -1}, "line 1")


def test_a_packed_test_list_that_names_code_is_refused_unrun(tmp_path: Path) -> None:
    class Boom:
        def __reduce__(self):  # type: ignore[no-untyped-def]
            return (os.system, (f"touch {tmp_path / 'ran'}",))

    record = json.loads((FIXTURES / "livecodebench.jsonl").read_text().splitlines()[1])
    record["private_test_cases"] = base64.b64encode(zlib.compress(pickle.dumps(Boom()))).decode()
    with pytest.raises(BadRecord, match="private_test_cases"):
        to_problem(record, "line 2")
    assert not (tmp_path / "ran").exists()


def test_an_unknown_preset_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(FIXTURES / "mbpp.jsonl"), "--preset", "nope"]) == 2
    assert "unknown preset 'nope'" in capsys.readouterr().err


def test_a_truncated_last_line_is_cut_and_judged_again(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    whole = {"id": "a", "kind": "right", "sample": 0, "score": 1.0, "verdict": "AC", "cases": [], "seconds": 0}
    out.write_text(json.dumps(whole) + "\n" + json.dumps(whole | {"id": "b"})[:30])
    results = ResultsFile(out)
    assert set(results.latest) == {("a", "right", 0)}
    results.write(whole | {"id": "c"})
    results.close()
    assert [r["id"] for r in load(out)] == ["a", "c"]


@pytest.mark.parametrize("record, field", [
    ({"id": "a", "language": "cobol", "test_cases": {"inputs": ["1"], "outputs": ["1"]}, "solutions": ["x"]},
     "language"),
    ({"data_source": "x", "prompt": [], "ability": "code", "reward_model": {"style": "rule", "ground_truth": json.dumps(
        {"inputs": ["1"], "outputs": ["1"], "language": "cobol"})}}, "reward_model.ground_truth.language"),
])
def test_a_record_in_an_unknown_language_is_a_bad_record_not_a_failed_solution(record: dict, field: str) -> None:
    with pytest.raises(BadRecord) as bad:
        to_problem(record, "line 1")
    assert str(bad.value) == f"line 1: field '{field}': unknown language 'cobol' (`judgebox languages` lists them)"


def test_a_judgebox_record_may_hold_open_r1s_verification_info_as_its_test_cases() -> None:
    info = {"language": "python", "test_cases": [{"input": "1\n", "output": "1\n", "type": "stdin_stdout"}]}
    problem = to_problem({"id": "a", "test_cases": info, "solutions": ["print(input())"]}, "line 1")
    assert problem.test_cases == info and problem.right == (("python", "print(input())"),)
