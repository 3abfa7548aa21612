"""The datasets in the repository (tests/data/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parents[1] / "data"


def load_dataset(name: str) -> list[dict]:
    """Records of a dataset in tests/data."""
    path = DATA / name
    if not path.exists():
        pytest.fail(f"{path} is missing")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
