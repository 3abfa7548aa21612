"""verl made importable from one of the wheels ``scripts/setup.sh`` downloads, for one test module at a time:
extracted onto ``sys.path``, and taken off again afterwards with every ``verl`` module (other tests rely on
verl not being importable, and two verl versions cannot be imported at once). Its dependencies (torch,
transformers, tensordict...) are in .venv. And the examples' modules (examples/verl_*.py), which the tests
drive verl with as the examples do."""

from __future__ import annotations

import importlib.util
import sys
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
WHEELS = ROOT / ".cache" / "verl"
EXAMPLES = ROOT / "examples"


@contextmanager
def importable(version: str, folder: Path) -> Iterator[ModuleType]:
    """The ``verl`` package of verl ``version``'s wheel, extracted into ``folder``."""
    wheels = sorted(WHEELS.glob(f"verl-{version}-*.whl"))
    if not wheels:
        pytest.fail(f"verl {version}'s wheel is not in {WHEELS}: run scripts/setup.sh --test")
    with zipfile.ZipFile(wheels[0]) as archive:
        archive.extractall(folder, [m for m in archive.namelist() if m.startswith("verl/")])
    sys.path.insert(0, str(folder))
    try:
        import verl

        yield verl
    finally:
        sys.path.remove(str(folder))
        for name in [n for n in sys.modules if n == "verl" or n.startswith("verl.")]:
            del sys.modules[name]


def example(name: str) -> ModuleType:
    """examples/``name``.py as a module of its own (the examples are scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"judgebox_examples_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
