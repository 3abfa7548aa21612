"""Checker programs and interactors of the tests' own problems, and where testlib.h is.

testlib.h is third-party (MIT): tests that compile against it take it from ``$JUDGEBOX_TESTLIB`` or from
``../shared/testlib`` beside the repository, and skip, saying so, when neither is there.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

HERE = Path(__file__).parent
BESIDE_REPOSITORY = HERE.parents[2] / "shared" / "testlib"


def find_testlib() -> str:
    """The folder holding testlib.h, or a skip of the calling test (module) with the reason."""
    for folder in (os.environ.get("JUDGEBOX_TESTLIB"), str(BESIDE_REPOSITORY)):
        if folder and (Path(folder) / "testlib.h").is_file():
            return folder
    pytest.skip("testlib.h not found: set JUDGEBOX_TESTLIB to its folder (or put it in ../shared/testlib)")


def source(name: str) -> str:
    return (HERE / name).read_text()


def program(name: str, protocol: str = "testlib") -> dict:
    """A checker or interactor setting of the test data for the program in ``name``."""
    language = {".cpp": "cpp", ".py": "python"}[Path(name).suffix]
    return {"language": language, "code": source(name), "protocol": protocol}
