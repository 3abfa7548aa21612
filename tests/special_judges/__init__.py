"""Checker programs and interactors of the tests' own problems, and where testlib.h is.

testlib.h is third-party (MIT): a copy with its license lives in ``tests/testlib``; ``$JUDGEBOX_TESTLIB``, when
set, names another folder to test against.
"""

from __future__ import annotations

import os
from pathlib import Path

HERE = Path(__file__).parent
IN_REPOSITORY = HERE.parent / "testlib"


def find_testlib() -> str:
    """The folder holding testlib.h: ``$JUDGEBOX_TESTLIB`` when set, else the repository's copy."""
    folder = os.environ.get("JUDGEBOX_TESTLIB") or str(IN_REPOSITORY)
    if not (Path(folder) / "testlib.h").is_file():
        raise FileNotFoundError(f"no testlib.h in {folder} (JUDGEBOX_TESTLIB names the folder)")
    return folder


def source(name: str) -> str:
    return (HERE / name).read_text()


def program(name: str, protocol: str = "testlib") -> dict:
    """A checker or interactor setting of the test data for the program in ``name``."""
    language = {".cpp": "cpp", ".py": "python"}[Path(name).suffix]
    return {"language": language, "code": source(name), "protocol": protocol}
