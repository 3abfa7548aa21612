"""Each public module's ``__all__`` is exactly its public names, sorted, and every name in it imports.

As httpx's tests/test_exported_members.py compares ``httpx.__all__`` with the module's public names. Here a
module's public names are read from its source, since judgebox's modules also import names for their own
use: the public names it defines (a function, a class or an assignment at the top level; its logger
excepted) and, for a package, the public names it imports from its own modules (the top level's lazy names
are its ``_LAZY`` table's). So a new name is one edit to the module itself: define it (or import it, or
add it to ``_LAZY``) and list it in ``__all__``; a name defined but not listed, or listed but nowhere, fails.
Names beginning with ``_`` are listed only on purpose (``judgebox.verl._process_single_case``, verl's own).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import logging
import re
from pathlib import Path
from types import ModuleType

import pytest

import judgebox
from judgebox import errors

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

PUBLIC_MODULES = ("judgebox", "judgebox.client", "judgebox.errors", "judgebox.openrlhf", "judgebox.presets",
                  "judgebox.rewards", "judgebox.trl", "judgebox.verl")
ROOT = Path(judgebox.__file__).parents[2]


def ruff_order(name: str) -> tuple[int, list[int | str]]:
    """The order ruff's RUF022 keeps ``__all__`` in (the project lints with it): SCREAMING_SNAKE_CASE names,
    then CamelCase ones, then the rest, each group in natural order."""
    group = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return group, [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's top-level statements, those under ``if`` (``TYPE_CHECKING``) and ``try`` included."""
    flat: list[ast.stmt] = []
    for node in body:
        flat.append(node)
        if isinstance(node, ast.If):
            flat += statements(node.body) + statements(node.orelse)
        elif isinstance(node, ast.Try):
            flat += statements(node.body) + statements(node.orelse) + statements(node.finalbody)
    return flat


def source_names(module: ModuleType) -> set[str]:
    """Every name the module defines, and for a package every name it imports from its own modules."""
    path = Path(module.__file__)
    package = module.__name__ if path.name == "__init__.py" else None
    names: set[str] = set()
    for node in statements(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
                if isinstance(target, ast.Name) and target.id == "_LAZY" and isinstance(node.value, ast.Dict):
                    names.update(key.value for key in node.value.keys if isinstance(key, ast.Constant))
        elif isinstance(node, ast.ImportFrom) and package is not None:
            source = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            if source == package or source.startswith(package + "."):
                names.update(alias.asname or alias.name for alias in node.names)
    names.discard("__all__")
    return names


def public_names(module: ModuleType) -> set[str]:
    return {name for name in source_names(module) if not name.startswith("_")
            and not isinstance(getattr(module, name, None), (ModuleType, logging.Logger))}


@pytest.fixture(params=PUBLIC_MODULES)
def module(request) -> ModuleType:
    return importlib.import_module(request.param)


def test_all_is_sorted_without_repeats(module):
    exported = list(module.__all__)
    assert exported == sorted(exported, key=ruff_order), f"{module.__name__}.__all__ is not in ruff's order"
    assert len(exported) == len(set(exported))


def test_all_is_exactly_the_public_names(module):
    exported = set(module.__all__)
    missing = public_names(module) - exported
    stray = {name for name in exported if not name.startswith("_")} - public_names(module)
    assert not missing, f"{module.__name__} defines or re-exports {sorted(missing)} without listing them in __all__"
    assert not stray, f"{module.__name__}.__all__ lists {sorted(stray)}: the module neither defines nor re-exports them"
    private = {name for name in exported if name.startswith("_")}
    assert private <= source_names(module), f"{module.__name__}.__all__ lists private names it does not have"


def test_every_exported_name_imports(module):
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{module.__name__}.{name}"
    star: dict[str, object] = {}
    exec(f"from {module.__name__} import *", star)  # the module's own names, lazy ones included
    assert set(module.__all__) <= set(star)


def test_the_top_level_exports_every_exception():
    exceptions = [name for name in errors.__all__
                  if isinstance(getattr(errors, name), type) and issubclass(getattr(errors, name), BaseException)]
    assert exceptions == list(errors.__all__)
    assert set(exceptions) <= set(judgebox.__all__)
    for name in exceptions:
        assert getattr(judgebox, name) is getattr(errors, name)


def test_the_package_is_typed():
    assert (ROOT / "src" / "judgebox" / "py.typed").is_file()
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "py.typed" in package_data["judgebox"]
