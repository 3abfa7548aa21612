"""Languages judgebox runs, one small declarative entry each, looked up by name or alias.

Python runs in the slot's warm interpreter (a fork per case); the compiled languages build on the same
sandbox ``Command`` jobs.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UnknownLanguage


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    aliases: tuple[str, ...]
    description: str
    runner: str  # "python-fork": the slot's warm interpreter forks per case


LANGUAGES = (
    LanguageSpec("python", ("python3", "py", "py3", "pytest"), "CPython, a fork of a warm interpreter per case",
                 "python-fork"),
)
_BY_NAME = {alias.lower(): spec for spec in LANGUAGES for alias in (spec.name, *spec.aliases)}


def get(name: str) -> LanguageSpec:
    spec = _BY_NAME.get(name.lower()) if isinstance(name, str) else None
    if spec is None:
        raise UnknownLanguage(f"unknown language {name!r}; available: {', '.join(s.name for s in LANGUAGES)}")
    return spec
