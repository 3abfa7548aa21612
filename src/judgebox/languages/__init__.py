"""Languages judgebox runs, one small declarative entry each (``catalog.py``), looked up by name or alias.

Names include SandboxFusion's (``nodejs``, ``csharp``, ``R`` ...). A name judgebox knows but cannot run
here (a missing toolchain) is refused with the reason.
"""

from __future__ import annotations

import os

from ..errors import UnknownLanguage
from .catalog import LANGUAGES
from .spec import LanguageSpec

__all__ = ["LANGUAGES", "LanguageSpec", "get", "lookup", "missing_tools"]

_BY_NAME = {alias.lower(): spec for spec in LANGUAGES for alias in (spec.name, *spec.aliases)}


def missing_tools(spec: LanguageSpec) -> list[str]:
    return [path for path in spec.requires if not os.path.exists(path)]


def lookup(name: str) -> LanguageSpec | None:
    """The spec a name or alias (any case) stands for, whether or not this machine can run it."""
    return _BY_NAME.get(name.lower()) if isinstance(name, str) else None


def get(name: str) -> LanguageSpec:
    spec = lookup(name)
    if spec is None:
        raise UnknownLanguage(f"unknown language {name!r}; known: {', '.join(s.name for s in LANGUAGES)}")
    missing = missing_tools(spec)
    if missing:
        raise UnknownLanguage(f"language {spec.name!r} is not available on this machine: missing "
                              f"{', '.join(missing)} (scripts/setup.sh installs the toolchains)")
    return spec
