"""``judgebox score``: every input format, samples and pass@k, the results file and resuming, bad data.

The command runs in-process (one real sandboxed judge for the module) except where the process itself is
the point: Ctrl-C sent to a real ``judgebox score`` subprocess, and a missing file's exit without traceback.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import signal
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from judgebox.cli import main
from judgebox.scoring import BadRecord, pass_at_k, pass_at_ks, summarize
from judgebox.scoring.formats import to_problem
from judgebox.scoring.results import ResultsFile, load

FIXTURES = Path(__file__).with_name("fixtures") / "score"
JUDGEBOX = str(Path(sys.executable).with_name("judgebox"))


def score(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    """Run ``judgebox score ... --json``: its exit status, the summary and what it said on stderr."""
    status = main(["score", *args, "--json"])
    out, err = capsys.readouterr()
    return status, json.loads(out), err


def kinds(summary: dict) -> dict[str, tuple[int, int, int]]:
    return {kind: (f["judged"], f["passed"], f["rejected"]) for kind, f in summary["kinds"].items()}


# -- pass@k --------------------------------------------------------------------------------------------

def test_pass_at_k_matches_the_hand_computed_estimator() -> None:
    # n=10 samples, c=3 right: pass@1 = 3/10; pass@5 = 1 - C(7,5)/C(10,5) = 1 - 21/252; pass@10 = 1
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - 21 / 252)
    assert pass_at_k(10, 3, 10) == 1.0
    assert pass_at_k(10, 0, 5) == 0.0
    assert pass_at_k(4, 1, 2) == pytest.approx(1 - 3 / 6)  # C(3,2)/C(4,2)
    # k is reported only over the problems with at least k samples
    assert pass_at_ks([(10, 3), (2, 1)]) == {"pass@1": {"value": pytest.approx((0.3 + 0.5) / 2), "problems": 2},
                                             "pass@5": {"value": pytest.approx(1 - 21 / 252), "problems": 1},
                                             "pass@10": {"value": 1.0, "problems": 1}}
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


# -- the formats ---------------------------------------------------------------------------------------

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


def test_a_packed_test_list_that_names_code_is_refused_unrun(tmp_path: Path) -> None:
    class Boom:
        def __reduce__(self):  # type: ignore[no-untyped-def]
            return (os.system, (f"touch {tmp_path / 'ran'}",))

    record = json.loads((FIXTURES / "livecodebench.jsonl").read_text().splitlines()[1])
    record["private_test_cases"] = base64.b64encode(zlib.compress(pickle.dumps(Boom()))).decode()
    with pytest.raises(BadRecord, match="private_test_cases"):
        to_problem(record, "line 2")
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize(("name", "expected"), [
    ("humaneval.jsonl", {"right": (2, 2, 0)}),
    ("mbpp.jsonl", {"right": (2, 2, 0)}),
    ("apps.jsonl", {"right": (3, 2, 1)}),  # 7001's second solution prints 0
    ("codecontests.jsonl", {"right": (2, 2, 0), "wrong": (1, 0, 1)}),  # Python 3 and C++; Python 2 not judged
])
def test_each_format_judges_its_known_solutions(capsys: pytest.CaptureFixture[str], name: str,
                                                expected: dict) -> None:
    status, summary, err = score(capsys, str(FIXTURES / name))
    assert status == 0, err
    assert kinds(summary) == expected
    assert summary["bad_records"] == 0


def test_verl_parquet_with_a_samples_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    cases = {"inputs": ["3\n", "10\n"], "outputs": ["9\n", "100\n"]}
    rows = [{"data_source": "codecontests", "prompt": [{"role": "user", "content": "square n"}], "ability": "code",
             "reward_model": {"style": "rule", "ground_truth": json.dumps(cases)},
             "extra_info": {"split": "test", "index": index}} for index in range(2)]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "rl.parquet")
    samples = tmp_path / "samples.jsonl"
    fence = "```python\nn = int(input())\nprint({})\n```"
    samples.write_text("\n".join(json.dumps(line) for line in [
        {"id": 0, "responses": ["<think>n squared</think>\n" + fence.format("n * n"), fence.format("n + n")]},
        {"id": 1, "response": fence.format("n ** 2")}]) + "\n")
    status, summary, err = score(capsys, str(tmp_path / "rl.parquet"), "--samples", str(samples))
    assert status == 0, err
    assert kinds(summary) == {"sample": (3, 2, 1)}
    assert summary["kinds"]["sample"]["pass_at_k"] == {"pass@1": {"value": pytest.approx(0.75), "problems": 2}}
    assert list(summary["by_source"]) == ["codecontests"]


def test_humaneval_samples_give_pass_at_k(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    status, summary, err = score(capsys, str(FIXTURES / "humaneval.jsonl"), "--samples",
                                 str(FIXTURES / "humaneval_samples.jsonl"), "--out", str(out))
    assert status == 0, err
    sample = summary["kinds"]["sample"]
    # Tiny/0: 2 of 5 right, Tiny/1: 1 of 2; pass@1 = (0.4 + 0.5) / 2; pass@5 only Tiny/0: 1 - C(3,5)/C(5,5) = 1
    assert (sample["judged"], sample["passed"]) == (7, 3)
    assert sample["pass_at_k"] == {"pass@1": {"value": pytest.approx(0.45), "problems": 2},
                                   "pass@5": {"value": 1.0, "problems": 1}}
    rows = load(out)
    assert sorted((r["id"], r["sample"]) for r in rows) == [("Tiny/0", i) for i in range(5)] + [("Tiny/1", 0),
                                                                                                ("Tiny/1", 1)]
    assert all(set(r) >= {"id", "sample", "kind", "score", "verdict", "cases"} for r in rows)
    assert all(len(r["cases"]) == 1 and r["cases"][0][0] in ("AC", "WA") for r in rows)


def test_fenced_and_thinking_completions_are_judged_as_their_code(capsys: pytest.CaptureFixture[str]) -> None:
    status, summary, err = score(capsys, str(FIXTURES / "humaneval.jsonl"), "--samples",
                                 str(FIXTURES / "full_samples.jsonl"))
    assert status == 0, err
    # the fenced answer after <think> passes (not CE); a - b is WA; prose alone is run as the answer: CE
    assert summary["kinds"]["sample"]["verdicts"] == {"AC": 1, "WA": 1, "CE": 1}


def test_livecodebench_stdin_and_functional_samples(capsys: pytest.CaptureFixture[str]) -> None:
    status, summary, err = score(capsys, str(FIXTURES / "livecodebench.jsonl"), "--samples",
                                 str(FIXTURES / "livecodebench_samples.jsonl"), "--preset", "livecodebench")
    assert status == 0, err
    assert kinds(summary) == {"sample": (3, 2, 1)}
    assert set(summary["by_source"]) == {"livecodebench/atcoder", "livecodebench/leetcode"}


def test_language_filter(capsys: pytest.CaptureFixture[str]) -> None:
    status, summary, err = score(capsys, str(FIXTURES / "codecontests.jsonl"), "--language", "cpp")
    assert status == 0, err
    assert kinds(summary) == {"right": (1, 1, 0)}
    assert list(summary["by_language"]) == ["cpp"]


def test_verl_preset_scores_as_verl_and_extracts_by_its_rule(capsys: pytest.CaptureFixture[str]) -> None:
    status, summary, err = score(capsys, str(FIXTURES / "humaneval.jsonl"), "--samples",
                                 str(FIXTURES / "full_samples.jsonl"), "--preset", "verl")
    assert status == 0, err
    # verl's rule takes the fenced block too; the two completions without a fence have no code block for
    # verl (0, unrun), where the judgebox preset ran them (WA, CE)
    assert summary["kinds"]["sample"]["verdicts"] == {"AC": 1, "invalid": 2}


@pytest.mark.parametrize("scheme", ["judgebox", "http"])
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_a_server_backend_judges_the_same(capsys: pytest.CaptureFixture[str], scheme: str) -> None:
    from conftest import Server

    with Server("--workers", "1") as server:
        backend = f"judgebox://127.0.0.1:{server.port}" if scheme == "judgebox" else server.url + "/run_code"
        status, summary, err = score(capsys, str(FIXTURES / "codecontests.jsonl"), "--backend", backend)
    assert status == 0, err
    assert kinds(summary) == {"right": (2, 2, 0), "wrong": (1, 0, 1)}


# -- bad data ------------------------------------------------------------------------------------------

def test_bad_records_are_named_on_stderr_and_the_rest_judged(capsys: pytest.CaptureFixture[str]) -> None:
    status, summary, err = score(capsys, str(FIXTURES / "bad_records.jsonl"))
    assert status == 1
    assert kinds(summary) == {"right": (1, 1, 0), "wrong": (1, 0, 1)}
    assert summary["bad_records"] == 6
    lines = err.splitlines()
    assert len(lines) == 6
    assert "line 2" in lines[0] and "invalid JSON" in lines[0]
    assert "id string/3" in lines[1] and "'solutions'" in lines[1] and "list of programs" in lines[1]
    assert "id nocases/4" in lines[2] and "'test_cases'" in lines[2] and "missing" in lines[2]
    assert "id extra/5" in lines[3] and "'solution'" in lines[3] and "not a field" in lines[3]
    assert "id empty/6" in lines[4] and "--samples" in lines[4]
    assert "id badcases/7" in lines[5] and "'test_cases'" in lines[5] and "the judge can run" in lines[5]


def test_samples_naming_no_problem_are_bad_records(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    samples = tmp_path / "s.jsonl"
    samples.write_text(json.dumps({"task_id": "Tiny/0", "completion": "    return a + b\n"}) + "\n"
                       + json.dumps({"task_id": "Nope/9", "completion": "x"}) + "\n"
                       + json.dumps({"task_id": "Tiny/1", "completion": ["a list"]}) + "\n")
    status, summary, err = score(capsys, str(FIXTURES / "humaneval.jsonl"), "--samples", str(samples))
    assert status == 1
    assert kinds(summary) == {"sample": (1, 1, 0)}
    assert "Nope/9" in err and "line 3 (id Tiny/1): field 'completion': expected a string" in err


@pytest.mark.parametrize("args", [("missing.jsonl",), ("humaneval.jsonl", "--samples", "missing.jsonl")])
def test_a_missing_file_is_one_line_and_exit_2(tmp_path: Path, args: tuple[str, ...]) -> None:
    paths = [str(FIXTURES / a) if a == "humaneval.jsonl" else str(tmp_path / a) if a.endswith(".jsonl") else a
             for a in args]
    done = subprocess.run([JUDGEBOX, "score", *paths], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "No such file" in done.stderr and "Traceback" not in done.stderr


def test_a_file_that_is_not_parquet(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "data.parquet"
    path.write_text('{"id": 1}\n')
    assert main(["score", str(path)]) == 2
    err = capsys.readouterr().err
    assert "not a Parquet file" in err and err.count("\n") == 1


def test_an_unknown_preset_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", str(FIXTURES / "mbpp.jsonl"), "--preset", "nope"]) == 2
    assert "unknown preset 'nope'" in capsys.readouterr().err


# -- the results file ----------------------------------------------------------------------------------

def test_a_truncated_last_line_is_cut_and_judged_again(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    whole = {"id": "a", "kind": "right", "sample": 0, "score": 1.0, "verdict": "AC", "cases": [], "seconds": 0}
    out.write_text(json.dumps(whole) + "\n" + json.dumps(whole | {"id": "b"})[:30])
    results = ResultsFile(out)
    assert results.done == {("a", "right", 0)}
    results.write(whole | {"id": "c"})
    results.close()
    assert [r["id"] for r in load(out)] == ["a", "c"]


def test_sigint_keeps_what_was_judged_and_a_rerun_judges_the_rest_once(tmp_path: Path) -> None:
    data = tmp_path / "slow.jsonl"
    cases = {"inputs": ["1\n"], "outputs": ["1\n"]}
    data.write_text("".join(json.dumps({"id": f"p{i}", "test_cases": cases,
                                        # distinct programs: identical ones would be judged once, together
                                        "solutions": [f"import time\ntime.sleep(0.3)\nprint(input())  # p{i}"]}) + "\n"
                            for i in range(16)))
    out = tmp_path / "results.jsonl"
    command = [JUDGEBOX, "score", str(data), "--out", str(out), "--slots", "1"]
    # its own process group, sent SIGINT as a whole, as a terminal's Ctrl-C is (the sandboxes' processes
    # must not print tracebacks of their own)
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    deadline = time.monotonic() + 120
    while (not out.exists() or out.read_text().count("\n") < 3) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr + stdout
    first = load(out)
    assert 3 <= len(first) < 16, "the interrupt came after the run ended: make the solutions slower"
    assert "interrupted" in stdout and f"right solutions passed {len(first)}/{len(first)}" in stdout

    with out.open("a") as handle:  # a kill in the middle of a write
        handle.write('{"id": "p15", "kind": "ri')
    again = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert again.returncode == 0, again.stderr
    assert f"{len(first)} samples judged before, {16 - len(first)} to judge" in again.stderr
    rows = load(out)
    assert sorted(r["id"] for r in rows) == sorted(f"p{i}" for i in range(16))  # each judged once
    assert all(r["verdict"] == "AC" for r in rows)
    assert "right solutions passed 16/16" in again.stdout
