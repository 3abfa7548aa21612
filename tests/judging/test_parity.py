"""Presets proven against the code of the harnesses they imitate: each table in ``tests/judging/parity/``
holds programs that hit the rules where harnesses differ (whitespace, blank lines, float formatting, None
against 'None', lists against tuples, call-based against stdio, printing in call-based problems, exits
mid-way, a nonzero exit with the right output, input() at the end of input...), and each row is run under
the harness's own code and under the preset: the scores are equal, or the row says why they differ and
what each gives (the test holds both to it).

- ``prime.toml``: verl's ``prime_code`` from verl 0.9.1's wheel (``.cache/verl``, put there by
  ``scripts/setup.sh --test``), against ``judgebox.verl.compute_score(profile="prime")``, with verl's
  ``continuous`` on and off;
- ``livecodebench.toml``: LiveCodeBench's own ``check_correctness`` (as lighteval 0.13.0's wheel carries it,
  ``support/livecodebench.py``), a sample passing when every case is True (its pass@1), against
  ``profile="livecodebench"``;
- ``sandboxfusion.toml``: SandboxFusion's own CommonOJ grader through its /submit, on a SandboxFusion
  server built from its source outside the repository (``support/sandboxfusion_peer.py``; an optional
  peer: skipped, saying so, where it is not built), against ``profile="sandboxfusion"``.

The harnesses run the programs unsandboxed (prime_code and LiveCodeBench in a child of this process): the
tables hold known programs only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

import judgebox.verl
from support import livecodebench, sandboxfusion_peer

TABLES = Path(__file__).with_name("parity")
MODES = (True, False)  # verl's continuous, then all or nothing
FIELDS = {"name", "code", "inputs", "outputs", "fn_name", "differs", "harness", "judgebox"}


def rows(harness: str) -> list[dict[str, Any]]:
    return tomllib.loads((TABLES / f"{harness}.toml").read_text(encoding="utf-8"))["row"]


@pytest.mark.parametrize("harness", ["prime", "livecodebench", "sandboxfusion"])
def test_a_table_has_forty_rows_each_difference_explained(harness):
    table = rows(harness)
    assert len(table) >= 40
    assert len({row["name"] for row in table}) == len(table)
    for row in table:
        assert set(row) <= FIELDS, row["name"]
        assert len(row["inputs"]) == len(row["outputs"]) > 0, row["name"]
        assert ("differs" in row) == ("judgebox" in row) == ("harness" in row), f"{row['name']}: both scores"


def _cases(row: dict[str, Any]) -> dict[str, Any]:
    return {key: row[key] for key in ("inputs", "outputs", "fn_name") if key in row}


def _preset_score(preset: str, row: dict[str, Any], continuous: bool) -> float:
    """The row's program scored by judgebox's verl scorer under ``preset``."""
    return judgebox.verl.compute_score(None, None, 1024, f"```python\n{row['code']}\n```", _cases(row), continuous,
                                       profile=preset)[0]


def _agree(row: dict[str, Any], theirs: Any, ours: Any, detail: Any = None) -> None:
    """The preset scores as the harness does, or as the row says and for the reason it gives."""
    if "differs" in row:
        assert (theirs, ours) == (row["harness"], row["judgebox"]), row["differs"]
    else:
        assert ours == theirs, detail


def _prime_code_score(prime_code, completion: str, cases: dict, continuous: bool) -> float | str:
    """prime_code's score, or the name of what it raised."""
    try:
        return float(prime_code.compute_score(completion, json.loads(json.dumps(cases)), continuous=continuous)[0])
    except Exception as exc:  # its own crash (see prime.toml's header)
        return type(exc).__name__


@pytest.mark.parametrize("row", rows("prime"), ids=lambda row: row["name"])
def test_the_prime_preset_against_prime_code(prime_code, row):
    completion = f"```python\n{row['code']}\n```"
    theirs = [_prime_code_score(prime_code, completion, _cases(row), continuous) for continuous in MODES]
    ours = [_preset_score("prime", row, continuous) for continuous in MODES]
    if theirs[1] == "UnboundLocalError":  # prime_code's crash on a sample that failed a case: the preset's 0
        theirs[1] = 0.0
    _agree(row, theirs, ours)


@pytest.mark.parametrize("row", rows("livecodebench"), ids=lambda row: row["name"])
def test_the_livecodebench_preset_against_livecodebench(row):
    theirs, results = livecodebench.pass_at_1(_cases(row), row["code"])
    _agree(row, theirs, _preset_score("livecodebench", row, continuous=True), results)


@pytest.fixture(scope="module")
def sandboxfusion():
    with sandboxfusion_peer.running() as url:
        yield url


@pytest.mark.slow  # SandboxFusion starts (a few seconds) and runs each case in a fresh interpreter
@pytest.mark.parametrize("row", rows("sandboxfusion"), ids=lambda row: row["name"])
def test_the_sandboxfusion_preset_against_sandboxfusion(sandboxfusion, row):
    theirs, passed = sandboxfusion_peer.common_oj(sandboxfusion, row["code"], row["inputs"], row["outputs"])
    _agree(row, theirs, _preset_score("sandboxfusion", row, continuous=True), passed)
