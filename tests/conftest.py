"""Shared fixtures: one real sandboxed Judge for the whole session (starting slots costs ~100 ms each)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import judgebox

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def shared_data(name: str) -> list[dict]:
    """Records of a dataset in ../shared/data (present beside every checkout and CI clone)."""
    path = SHARED_DATA / name
    if not path.exists():
        pytest.fail(f"{path} is missing: the shared datasets must sit beside the checkout")
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="session")
def judge():
    with judgebox.Judge() as j:
        yield j
