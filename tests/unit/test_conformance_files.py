"""Every language in the catalog has its conformance programs (tests/languages/conformance/<language>.toml),
complete: checked without a toolchain (tests/languages/test_languages.py runs them)."""

from __future__ import annotations

from judgebox.languages import LANGUAGES
from support.conformance import CONFORMANCE, programs


def test_every_language_in_the_catalog_has_conformance_programs():
    for spec in LANGUAGES:
        programs(spec)
    known = {spec.name for spec in LANGUAGES}
    strays = sorted(p.stem for p in CONFORMANCE.glob("*.toml") if p.stem not in known)
    assert strays == [], f"conformance files for languages the catalog does not have: {strays}"
