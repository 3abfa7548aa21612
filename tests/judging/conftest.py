"""verl's own prime_code, loaded once for the tests that compare the prime preset with it."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgebox.verl import reference


@pytest.fixture(scope="session")
def prime_code():
    """verl 0.9.1's prime_code from the wheel ``scripts/setup.sh --test`` puts in .cache/verl. It runs the
    programs it judges unsandboxed in children of this process: give it known programs only."""
    wheel = reference.find_wheel(Path(__file__).resolve().parents[2] / ".cache" / "verl")
    if wheel is None:
        pytest.fail("verl's wheel is not in .cache/verl: run scripts/setup.sh --test")
    return reference.load(wheel)[1]
