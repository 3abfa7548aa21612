"""verl's own code scorers, loaded from its wheel by file path, to compare judgebox with side by side.

    sandbox_fusion, prime_code = load(".cache/verl/verl-0.9.1-py3-none-any.whl")
    sandbox_fusion.compute_score(url, None, 1024, completion, test_cases, continuous=True)

Only ``verl/utils/reward_score/{sandbox_fusion,prime_code}`` are loaded: verl's package ``__init__``
imports torch and the rest of its stack, which these files do not need (they need ``requests`` and
``numpy``). ``prime_code`` runs untrusted code in this very process's children, unsandboxed: load it only
for known programs (the benchmark's reference solutions).
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import zipfile
from pathlib import Path
from types import ModuleType

SCORERS = ("sandbox_fusion", "prime_code")
_PREFIX = "verl/utils/reward_score/"
_PACKAGE = "judgebox_verl_reference"


def load(wheel: str | Path) -> tuple[ModuleType, ModuleType]:
    """``(sandbox_fusion, prime_code)`` from the wheel, as packages named ``judgebox_verl_reference.*``."""
    if f"{_PACKAGE}.sandbox_fusion" in sys.modules:
        return sys.modules[f"{_PACKAGE}.sandbox_fusion"], sys.modules[f"{_PACKAGE}.prime_code"]
    with tempfile.TemporaryDirectory(prefix="judgebox-verl-reference-") as folder:  # every file is read at import
        root = Path(folder)
        with zipfile.ZipFile(wheel) as archive:
            members = [m for m in archive.namelist() if m.startswith(tuple(_PREFIX + s + "/" for s in SCORERS))]
            if not members:
                raise FileNotFoundError(f"{wheel} holds no {_PREFIX}{{{','.join(SCORERS)}}}: is it a verl wheel?")
            archive.extractall(root, members)
        parent = ModuleType(_PACKAGE)
        parent.__path__ = [str(root / _PREFIX)]
        sys.modules[_PACKAGE] = parent
        return tuple(_package(root / _PREFIX / name, f"{_PACKAGE}.{name}")  # type: ignore[return-value]
                     for name in SCORERS)


def _package(folder: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, folder / "__init__.py",
                                                  submodule_search_locations=[str(folder)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def find_wheel(search: str | Path = ".cache/verl") -> Path | None:
    """The verl 0.9.1 wheel ``scripts/setup.sh --test`` downloads, if it is there."""
    found = sorted(Path(search).glob("verl-0.9.1-*.whl"))
    return found[0] if found else None
