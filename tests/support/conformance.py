"""The conformance programs of each language (tests/languages/conformance/<language>.toml), read with their
``like = ...`` inheritance."""

from __future__ import annotations

from functools import cache
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest itself depends on tomli there
    import tomli as tomllib

import pytest

from judgebox.languages import LanguageSpec

CONFORMANCE = Path(__file__).resolve().parents[1] / "languages" / "conformance"


@cache
def _load(name: str) -> dict:
    path = CONFORMANCE / f"{name}.toml"
    if not path.exists():
        pytest.fail(f"language {name!r} is in the catalog but has no conformance programs: write {path} "
                    "(see the docstring of tests/languages/test_languages.py)", pytrace=False)
    data = tomllib.loads(path.read_text())
    if "like" in data:
        data = {**_load(data.pop("like")), **data}
    return data


PROGRAMS = ("sum", "wrong", "crash", "busy", "memory", "threads", "syntax_error", "flood")


ASSERT_PROGRAMS = ("solution", "tests", "failing_tests", "exits_before_tests", "exits_in_call")


def takes_asserts(spec: LanguageSpec) -> bool:
    return spec.runner == "python-fork" or spec.split_asserts is not None


def programs(spec: LanguageSpec) -> dict:
    """The conformance programs of ``spec``, checked to be complete."""
    data = _load(spec.name)
    wanted = [*PROGRAMS, "syntax_error_verdict", "comment"]
    missing = [key for key in wanted if key not in data and not (key == "threads" and "threads_skip" in data)]
    if takes_asserts(spec):
        missing += [f"asserts.{key}" for key in ASSERT_PROGRAMS if key not in data.get("asserts", {})]
    if missing:
        pytest.fail(f"{CONFORMANCE / spec.name}.toml lacks {', '.join(missing)}", pytrace=False)
    return data
