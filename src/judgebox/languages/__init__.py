"""Languages judgebox runs, one small declarative entry each (``catalog.py``), looked up by name or alias.

Names include SandboxFusion's (``nodejs``, ``csharp``, ``R`` ...). A name judgebox knows but cannot run
here (a missing toolchain) is refused with the reason.

The catalog (and with it the split harnesses and the sandbox's types) loads at the first lookup, not with
this package: ``import judgebox.verl`` and the other reward modules import it, and must stay cheap.
"""

from __future__ import annotations

import functools
import importlib
import os
from typing import TYPE_CHECKING, Any

from judgebox.errors import UnknownLanguage

if TYPE_CHECKING:
    from judgebox.languages.catalog import LANGUAGES
    from judgebox.languages.spec import LanguageSpec

__all__ = ["LANGUAGES", "LanguageSpec", "get", "lookup", "missing_tools"]
_LAZY = {"LANGUAGES": "judgebox.languages.catalog", "LanguageSpec": "judgebox.languages.spec"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'judgebox.languages' has no attribute {name!r}")


def _catalog() -> tuple[LanguageSpec, ...]:
    catalog: tuple[LanguageSpec, ...] = __getattr__("LANGUAGES")
    return catalog


@functools.cache
def _by_name() -> dict[str, LanguageSpec]:
    return {alias.lower(): spec for spec in _catalog() for alias in (spec.name, *spec.aliases)}


def missing_tools(spec: LanguageSpec) -> list[str]:
    return [path for path in spec.requires if not os.path.exists(path)]


def lookup(name: str) -> LanguageSpec | None:
    """The spec a name or alias (any case) stands for, whether or not this machine can run it."""
    return _by_name().get(name.lower()) if isinstance(name, str) else None


def get(name: str) -> LanguageSpec:
    spec = lookup(name)
    if spec is None:
        raise UnknownLanguage(f"unknown language {name!r}; known: {', '.join(s.name for s in _catalog())}")
    missing = missing_tools(spec)
    if missing:
        raise UnknownLanguage(f"language {spec.name!r} is not available on this machine: missing "
                              f"{', '.join(missing)} (scripts/setup.sh installs the toolchains)")
    return spec
