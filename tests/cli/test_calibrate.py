"""``judgebox calibrate DATA --out DATA2`` as users run it (the installed entry point, real sandboxes), and the
calibrated data read back unchanged by the trainers' entry points and ``judgebox score``."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from judgebox.tools.score.formats import read_problems
from judgebox.verl import default_compute_score

JUDGEBOX = str(Path(sys.executable).with_name("judgebox"))
# about 0.2-0.4 s of CPU a case here: calibrated at 4x, above the 1 s floor
BUSY_DOUBLE = "n = int(input())\ns = 0\nfor i in range(3_000_000):\n    s += i\nprint(2 * n)\n"
DOUBLE = "print(2 * int(input()))"
CASES = {"inputs": ["1\n", "2\n"], "outputs": ["2\n", "4\n"]}


def judgebox(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JUDGEBOX, *args], capture_output=True, text=True, timeout=600, check=False)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def calibrated(tmp_path_factory) -> tuple[subprocess.CompletedProcess[str], Path, Path]:
    folder = tmp_path_factory.mktemp("calibrate")
    data = folder / "mixed.jsonl"
    records = [
        {"id": "busy", "test_cases": {**CASES, "time_limit": 10}, "solutions": [BUSY_DOUBLE]},
        {"id": "second-reference", "test_cases": CASES, "solutions": ["print(0)", DOUBLE]},
        {"id": "no-reference-passes", "test_cases": CASES, "solutions": ["print(0)"]},
        {"id": "no-reference", "test_cases": CASES},
        {"id": "bad", "test_cases": CASES, "colour": "red"},  # a key no format has
        {"name": "contest", "public_tests": {"input": ["3\n"], "output": ["6\n"]},
         "solutions": {"language": [2, 3], "solution": ["int main(){}", DOUBLE]},
         "time_limit": {"seconds": 2, "nanos": 0}, "memory_limit_bytes": 256 * 2**20},
        {"data_source": "codecontests", "prompt": [{"role": "user", "content": "double it"}],
         "reward_model": {"ground_truth": json.dumps(CASES)}, "extra_info": {"index": 7}},
        {"task_id": "mbpp/1", "code": "def f(x):\n    return 2 * x\n", "test_list": ["assert f(2) == 4"]},
        {"task_id": "Plus/0", "prompt": "def f(x):\n", "entry_point": "f", "canonical_solution": "    return x\n",
         "base_input": [[1]], "plus_input": []},  # evalplus's: its values are the canonical's, in score
    ]
    data.write_text("".join(json.dumps(r) + "\n" for r in records) + "not json\n")
    out = folder / "mixed.calibrated.jsonl"
    return judgebox("calibrate", str(data), "--out", str(out), "--json"), data, out


@pytest.mark.slow  # judges a dozen references in the sandbox
def test_calibrate_writes_every_record_with_the_limits_where_its_format_holds_them(calibrated):
    ran, _, out = calibrated
    assert ran.returncode == 1, ran.stderr  # some records are written as they were
    rows = {row["id"] or row["where"]: row for row in json.loads(ran.stdout)}
    assert "4 of 10 records calibrated" in ran.stderr
    written = _lines(out)
    assert len(written) == 9  # every record but the line that is no JSON, in the file's order
    assert [r.get("id") or r.get("name") or r.get("task_id") or r["extra_info"]["index"] for r in written] == [
        "busy", "second-reference", "no-reference-passes", "no-reference", "bad", "contest", 7, "mbpp/1", "Plus/0"]

    busy = rows["busy"]
    assert busy["reference"] == "python" and busy["time_before"] == 10
    assert busy["time_after"] == max(1.0, math.ceil(4 * busy["slowest"] * 100) / 100)
    assert written[0]["test_cases"]["time_limit"] == busy["time_after"] and busy["time_after"] < 10
    assert written[0]["test_cases"]["memory_limit"] == 512  # a light reference: the floor

    assert rows["second-reference"]["time_after"] == 1.0  # the first failed, the second calibrated
    assert written[1]["test_cases"]["time_limit"] == 1.0
    assert "reference 1 (python) fails case 0: WA" in rows["no-reference-passes"]["note"]
    assert written[2] == {"id": "no-reference-passes", "test_cases": CASES, "solutions": ["print(0)"]}
    assert "no known-right solution in python" in rows["no-reference"]["note"]
    assert "'colour': not a field" in rows[next(k for k in rows if "line 5" in k)]["note"]
    assert written[4] == {"id": "bad", "test_cases": CASES, "colour": "red"}  # loses nothing
    assert "not written" in rows[next(k for k in rows if "line 10" in k)]["note"]

    contest = written[5]  # CodeContests' own keys: the memory it states is kept
    assert contest["time_limit"] == {"seconds": 1, "nanos": 0} and contest["memory_limit_bytes"] == 256 * 2**20
    assert rows["contest"]["reference"] == "python"  # the samples' language, not the C++ one
    assert written[6]["reward_model"]["ground_truth"] == json.dumps(CASES)  # verl's rows carry no solution
    assert "no known-right solution" in rows["7"]["note"]
    mbpp = written[7]  # MBPP has no place for limits: judgebox's form
    assert mbpp["id"] == "mbpp/1" and mbpp["test_cases"]["time_limit"] == 1.0
    assert "judgebox's form" in rows["mbpp/1"]["note"]
    assert "use judgebox score --calibrate" in rows["Plus/0"]["note"] and written[8]["task_id"] == "Plus/0"

    problems = [p for p in read_problems(out) if not isinstance(p, Exception)]
    assert len(problems) == 8  # everything written reads back, but the record that was bad already


@pytest.mark.slow
def test_calibrated_limits_are_what_verl_and_score_then_judge_under(calibrated):
    _, _, out = calibrated
    truth = _lines(out)[1]["test_cases"]  # a test-case dict, as verl's ground_truth is once parsed
    # right, after 3 s of its own CPU on any machine (a fixed loop was 2 s on one and under 1 s on another): AC
    # under verl's 10 s timeout, TLE under the calibrated 1 s
    slow = ("```python\nimport time\nwhile time.process_time() < 3:\n    pass\nprint(2 * int(input()))\n```")
    assert default_compute_score("codecontests", slow, truth)["verdict"] == "TLE"
    uncalibrated = {k: v for k, v in truth.items() if k not in ("time_limit", "memory_limit")}
    assert default_compute_score("codecontests", slow, uncalibrated)["verdict"] == "AC"
    scored = subprocess.run([JUDGEBOX, "score", str(out), "--json", "--limit", "2"], capture_output=True,
                            text=True, timeout=600, check=False)
    right = json.loads(scored.stdout)["kinds"]["right"]  # the references pass under the limits they set
    assert (right["judged"], right["passed"], right["verdicts"]) == (3, 2, {"AC": 2, "WA": 1}), right


def test_calibrate_refuses_to_write_over_its_data(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "a", "test_cases": CASES, "solutions": [DOUBLE]}) + "\n")
    ran = judgebox("calibrate", str(data), "--out", str(data))
    assert ran.returncode == 2 and "is the data itself" in ran.stderr
    assert _lines(data) == [{"id": "a", "test_cases": CASES, "solutions": [DOUBLE]}]


def test_calibrate_refuses_a_bad_calibration_before_judging(tmp_path):
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps({"id": "a", "test_cases": CASES, "solutions": [DOUBLE]}) + "\n")
    ran = judgebox("calibrate", str(data), "--out", str(tmp_path / "out.jsonl"), "--factor", "0.5")
    assert ran.returncode == 2 and "factor >= 1" in ran.stderr
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.slow
def test_calibrate_writes_verl_parquet_as_parquet(tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = [{"data_source": "codecontests", "prompt": [{"role": "user", "content": "double"}], "ability": "code",
             "reward_model": {"style": "rule", "ground_truth": json.dumps(CASES)},
             "extra_info": {"index": i, "split": "train"}} for i in range(2)]
    data, out = tmp_path / "train.parquet", tmp_path / "train.calibrated.parquet"
    pq.write_table(pa.Table.from_pylist(rows), data)
    # verl's parquet holds no solutions: without references every row is written as it was
    ran = judgebox("calibrate", str(data), "--out", str(out))
    assert ran.returncode == 1 and "0 of 2 records calibrated" in ran.stderr
    assert pq.read_table(out).to_pylist() == rows
    references = tmp_path / "references.jsonl"  # joined by id, as score's --samples are (extra_info.index)
    references.write_text(json.dumps({"id": 0, "solution": DOUBLE}) + "\n"
                          + json.dumps({"id": 1, "solution": "print(0)"}) + "\n")
    ran = judgebox("calibrate", str(data), "--references", str(references), "--out", str(out))
    assert ran.returncode == 1 and "1 of 2 records calibrated" in ran.stderr
    written = pq.read_table(out).to_pylist()
    assert json.loads(written[0]["reward_model"]["ground_truth"]) == {**CASES, "time_limit": 1.0, "memory_limit": 512}
    assert written[1] == rows[1]
    assert {k: v for k, v in written[0].items() if k != "reward_model"} == {k: v for k, v in rows[0].items()
                                                                           if k != "reward_model"}
