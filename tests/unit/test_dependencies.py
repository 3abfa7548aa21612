"""What installing judgebox brings into a user's environment (pyproject.toml's dependencies and extras).

The core (``pip install .``, what ``make demo`` sets up) must stay light: no machine-learning stack. torch must
never be pinned exactly by any extra, or installing it on a GPU machine would swap the user's CUDA build for
another; the exact CPU build the tests use is ``scripts/setup.sh --test``'s, and has to satisfy the test extra.
"""

from __future__ import annotations

import re
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest itself depends on tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
HEAVY = {"torch", "ray", "trl", "transformers", "accelerate", "tensordict", "torchdata", "peft", "datasets"}


def requirements(specs: list[str]) -> dict[str, Requirement]:
    return {canonicalize_name(req.name): req for req in map(Requirement, specs)}


def test_core_holds_no_machine_learning_stack() -> None:
    """The core's dependencies name none of torch, Ray, the trainers or their libraries."""
    core = requirements(PROJECT["dependencies"])
    assert core, "pyproject.toml lists no core dependencies"
    assert not HEAVY & core.keys()


def test_no_extra_pins_torch_exactly() -> None:
    """Every extra that asks for torch gives a range, so an installed torch within it (any build) is kept."""
    torch_specs = {extra: req.specifier for extra, specs in PROJECT["optional-dependencies"].items()
                   if (req := requirements(specs).get("torch")) is not None}
    assert torch_specs, "no extra asks for torch: the trainers' tests need it"
    for extra, specifier in torch_specs.items():
        assert all(spec.operator not in ("==", "===") for spec in specifier), f"[{extra}] pins torch: {specifier}"


def test_setup_scripts_torch_build_satisfies_the_test_extra() -> None:
    """scripts/setup.sh --test installs one torch before the extras; outside the test extra's range, pip would
    replace it with PyPI's CUDA build."""
    script = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")
    found = re.search(r'^TORCH_CPU_BUILD="torch==([^"]+)"$', script, re.MULTILINE)
    assert found, "scripts/setup.sh names no TORCH_CPU_BUILD"
    test_torch = requirements(PROJECT["optional-dependencies"]["test"])["torch"]
    assert test_torch.specifier.contains(Version(found[1]))
