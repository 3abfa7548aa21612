"""Attack: a lone surrogate (U+D800..U+DBFF, or U+DC00..U+DC7F) anywhere in the program's text, even in a
comment, makes the judge report SE, and verl's reward infra_error=True, so the trainer masks the sample.

slot._python_request encodes the code with "surrogateescape", which only maps U+DC80..U+DCFF back to
bytes; any other surrogate raises UnicodeEncodeError in the judge, which becomes SE. A program that would
score 0 (here: prints nothing) gets itself masked instead.

Run: .venv/bin/python -m pytest tests/review_attacks/test_lone_surrogate_forges_se.py
Judge gave: Verdict.SE; default_compute_score -> verdict 'SE', infra_error True.
A correct judge gives CE (the source is not valid text) or judges the program (WA here), never SE, and
infra_error False.
"""

from __future__ import annotations

import json

import pytest

import judgebox
import judgebox.verl as verl
from judgebox import Case

WRONG = "pass  # \ud800\n"


def test_a_lone_surrogate_is_invalid_code_refused_before_anything_runs():
    """Not text that has an encoding: the caller's input is refused with a clear error, never SE."""
    with pytest.raises(judgebox.InvalidCode, match="lone surrogate"):
        judgebox.Judge.submission(WRONG, [Case.stdio("1\n", "1")])


def test_a_lone_surrogate_is_no_infra_error_for_verl():
    scored = verl.default_compute_score("codecontests", f"```python\n{WRONG}```",
                                        json.dumps({"inputs": ["1"], "outputs": ["1"]}))
    assert scored["score"] == 0 and not scored["infra_error"], scored
