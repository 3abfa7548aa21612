"""Types and lint are part of the suite: mypy (the ``[tool.mypy]`` section of pyproject.toml, with the pydantic
plugin) over ``src/judgebox`` and ``ruff check`` over src, tests and bench must both pass, so ``make test``
(what CI runs) fails on either. ``make lint`` runs the same two commands.

Both run from this interpreter's environment (the ``test`` extra installs them); a test is skipped only
where its tool is not installed. mypy's cache goes to a temporary folder, never into the repository, so
every run is a cold one.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]  # the repository: pyproject.toml, src/, tests/, bench/


def _run(tool: str, *args: str) -> None:
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed in this environment (pip install -e '.[test]' installs it)")
    command = [sys.executable, "-m", tool, *args]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, (f"`{' '.join(command[1:])}` exited {done.returncode}:\n"
                                  f"{done.stdout}{done.stderr}")


@pytest.mark.slow  # about 21 s in all on this busy 2-core machine
def test_mypy(tmp_path: Path) -> None:
    """mypy over src/judgebox (the files, plugin and flags are pyproject.toml's) finds no error."""
    _run("mypy", "--cache-dir", str(tmp_path / "mypy-cache"))


def test_ruff() -> None:
    """ruff check over src, tests and bench (the rules are pyproject.toml's) finds nothing."""
    _run("ruff", "check", "--no-cache", "src", "tests", "bench")
