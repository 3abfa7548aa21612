"""The datasets judgebox ships (judgebox.datasets): each registry entry's file is in the package, is the record
for record copy of tests/data it claims to be, has its license beside it and is in the package data; names,
SandboxFusion ids and each dataset's wire ids are unique. Reads files only."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from judgebox import datasets

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).parents[2]


@pytest.mark.parametrize("entry", datasets.SHIPPED, ids=lambda e: e.name)
def test_each_entry_is_its_tests_data_copy_in_the_package(entry: datasets.Shipped) -> None:
    assert entry.path.parent == Path(datasets.__file__).parent / "data"
    copy = ROOT / "tests" / "data" / entry.file.removesuffix(".gz")
    assert gzip.decompress(entry.path.read_bytes()) == copy.read_bytes()
    rows = entry.rows()
    assert rows and {row["language"] for row in rows} == {entry.language}
    wire_ids = [entry.wire_id(row["id"], i) for i, row in enumerate(rows)]
    assert len(set(wire_ids)) == len(rows)


def test_names_and_sandboxfusion_ids_are_unique_and_looked_up() -> None:
    assert len(set(datasets.names())) == len(datasets.SHIPPED)
    assert len(set(datasets.sandboxfusion_ids())) == len(datasets.sandboxfusion_ids())
    assert datasets.by_sandboxfusion_id("code_contests") is datasets.get("codecontests")
    assert datasets.by_sandboxfusion_id("humaneval_cpp") is None  # MultiPL-E's, another dataset
    with pytest.raises(ValueError, match="it ships humaneval, mbpp"):
        datasets.get("humaneval-x-go")


def test_the_data_ships_with_its_licenses_in_the_package_data() -> None:
    data = Path(datasets.__file__).parent / "data"
    readme = (data / "README.md").read_text(encoding="utf-8")
    assert "MIT License (HumanEval)" in readme and "CC-BY-4.0" in readme and (data / "LICENSE-Apache-2.0").is_file()
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "datasets/data/*" in package_data["judgebox"]
    assert sum(p.stat().st_size for p in data.iterdir()) < 2 * 1024 * 1024  # compressed: the wheel stays small
