"""Review r4: ``judgebox score``'s readers are bounded by bytes (MAX_RECORD_BYTES), but JSON is not bytes once
parsed: a line of empty objects under the bound becomes some 25 bytes of Python objects per byte. Measured as
tests/adversarial/test_reader_bombs.py measures (the peak RSS of a real ``judgebox score`` subprocess against
the same command on a small file), against the bound that file states: baseline + 2 * MAX_RECORD_BYTES.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_reader_bombs import MEASURE  # the peak-RSS wrapper the bomb tests use

from judgebox.cases import MAX_RECORD_BYTES

JUDGEBOX = str(Path(sys.executable).with_name("judgebox"))


def _record(ident: str) -> str:
    return json.dumps({"id": ident, "test_cases": {"inputs": ["3\n"], "outputs": ["3\n"]},
                       "solutions": ["print(input())"]})


def _peak(tmp_path: Path, data: Path) -> tuple[int, dict, str]:
    peak = tmp_path / "score.peak"
    done = subprocess.run([sys.executable, "-c", MEASURE, str(peak), JUDGEBOX, "score", str(data), "--json"],
                          capture_output=True, text=True, timeout=300, check=False)
    return int(peak.read_text()) * 1024, json.loads(done.stdout) if done.stdout else {}, done.stderr


@pytest.mark.slow
# Found in review r4: a JSONL line of '[{},{},...]' 3 bytes under the 64 MiB bound was read whole and json.loads'd:
# the reader's peak was 1717 MiB against a 46 MiB baseline. Now the line's JSON values are counted as it is read
# and it is one bad record past judgebox.cases.MAX_JSON_VALUES, dropped unparsed
def test_a_line_of_empty_objects_under_the_bound_costs_about_the_bound(tmp_path: Path) -> None:
    small = tmp_path / "small.jsonl"
    small.write_text(_record("p1") + "\n" + _record("p3") + "\n")
    baseline, _, _ = _peak(tmp_path, small)
    count = (MAX_RECORD_BYTES - 16) // 3
    data = tmp_path / "objects.jsonl"
    with data.open("w") as out:
        out.write(_record("p1") + "\n[")
        out.write("{}," * (count - 1))
        out.write("{}]\n" + _record("p3") + "\n")
    peak, summary, err = _peak(tmp_path, data)
    assert summary.get("bad_records") == 1, (summary, err[-500:])
    assert peak < baseline + 2 * MAX_RECORD_BYTES, (peak >> 20, baseline >> 20)
