"""The checker library: small pure functions with keyword options, registered by name.

A checker setting, wherever it comes from (``judge(checker=...)``, /judge, a test-case dict's ``checker``
key, a preset), is parsed here and only here (:func:`parse`), into a :class:`Checking`: the checker of
stdout and the comparison of call results. A setting is one of::

    "tokens"                                              # a built-in checker, default options
    {"name": "float", "mode": "absolute", "epsilon": 1e-4}  # a built-in checker with options
    {"language": "cpp", "code": "...", "protocol": "testlib"}   # a checker program (CheckerProgram)

An unknown name or option, or an option of the wrong type, is :class:`judgebox.UnknownChecker`. A
configured checker shows its options (``float(mode='either', epsilon=1e-06, ...)``). Adding a checker is one
function and one entry in :data:`REGISTRY`.

=================  ======================================================================================
``exact``          byte for byte (``case_insensitive``, ``ignore_trailing_newlines``); PE if only
                   whitespace differs
``lines``          per line, trailing whitespace and trailing blank lines ignored (``case_insensitive``,
                   ``partial``: points for the share of lines right, each extra line cancelling one); PE
                   if only whitespace differs
``tokens``         the same whitespace-separated tokens (``case_insensitive``)
``float``          tokens; numbers within ``epsilon`` (``mode`` absolute / relative / either), expected
                   integers exactly unless ``exact_integers=False``, NaN never equal; the default checker
``numbers``        the former name of ``float`` with its defaults
``unordered``      the same multiset of ``by`` = lines or tokens (``case_insensitive``)
``yes_no``         YES/NO answers, letter case ignored
``apps``,          the rules of verl's prime_code (APPS), LiveCodeBench and SandboxFusion, for the presets
``livecodebench``,
``sandboxfusion``
``value``          call results as data: lists equal tuples, reals within ``epsilon`` (relative),
                   expected integers exactly unless ``exact_integers=False``
``evalplus``       call results as evalplus compares them with the reference's: equal, or reals within
                   ``atol`` (and 1e-7 relative), the rule of ``compat``
=================  ======================================================================================
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from judgebox.checkers import compat, floats, text, values
from judgebox.checkers.programs import PROTOCOLS, CheckerProgram, Interactor
from judgebox.checkers.result import CheckResult
from judgebox.checkers.values import values_equal
from judgebox.errors import UnknownChecker

__all__ = ["DEFAULT", "PROTOCOLS", "REGISTRY", "CheckResult", "Checker", "CheckerProgram", "Checking", "Interactor",
           "get", "interactor", "make", "parse", "setting_of", "values_equal"]

Kind = Literal["output", "value"]


@dataclass(frozen=True)
class Option:
    """One keyword option of a checker: its default (which gives its type) and, for text, its choices."""

    default: bool | float | str
    choices: tuple[str, ...] = ()

    def check(self, checker: str, name: str, given: Any) -> Any:
        kind = type(self.default)
        if kind is bool:
            if not isinstance(given, bool):
                raise UnknownChecker(f"checker {checker!r}: option {name!r} must be true or false, got {given!r}")
        elif kind is float:
            if isinstance(given, bool) or not isinstance(given, (int, float)) or not math.isfinite(given) \
                    or given < 0:
                raise UnknownChecker(f"checker {checker!r}: option {name!r} must be a number >= 0, got {given!r}")
            given = float(given)
        elif given not in self.choices:
            raise UnknownChecker(f"checker {checker!r}: option {name!r} must be one of "
                                 f"{', '.join(self.choices)}; got {given!r}")
        return given


@dataclass(frozen=True)
class Entry:
    function: Callable[..., CheckResult]
    kind: Kind = "output"
    options: Mapping[str, Option] = field(default_factory=dict)


CASE = {"case_insensitive": Option(False)}
REGISTRY: dict[str, Entry] = {
    "exact": Entry(text.exact, options={**CASE, "ignore_trailing_newlines": Option(False)}),
    "lines": Entry(text.lines, options={**CASE, "partial": Option(False)}),
    "tokens": Entry(text.tokens, options=CASE),
    "float": Entry(floats.floats, options={"mode": Option("either", floats.MODES), "epsilon": Option(1e-6),
                                           "exact_integers": Option(True), **CASE}),
    "unordered": Entry(text.unordered, options={"by": Option("lines", ("lines", "tokens")), **CASE}),
    "yes_no": Entry(text.yes_no),
    "apps": Entry(compat.apps),
    "livecodebench": Entry(compat.livecodebench),
    "sandboxfusion": Entry(compat.sandboxfusion),
    "evalplus": Entry(compat.evalplus, kind="value", options={"atol": Option(0.0)}),
    "value": Entry(values.value, kind="value", options={"epsilon": Option(values.REL_TOL),
                                                        "exact_integers": Option(True), "bool_is_int": Option(False)}),
}
ALIASES = {"numbers": "float"}  # the name of the float checker before it took options


@dataclass(frozen=True)
class Checker:
    """A built-in checker with its options set: call it as ``checker(output, expected)``."""

    name: str
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def entry(self) -> Entry:
        return REGISTRY[self.name]

    @property
    def kind(self) -> Kind:
        return self.entry.kind

    def __call__(self, output: Any, expected: Any) -> CheckResult:
        return self.entry.function(output, expected, **dict(self.options))

    def __repr__(self) -> str:
        return f"{self.name}({', '.join(f'{k}={v!r}' for k, v in self.options)})"

    def setting(self) -> dict[str, Any]:
        """The setting this checker was made from, in the wire form :func:`parse` reads."""
        return {"name": self.name, **dict(self.options)}


def make(name: str, **options: Any) -> Checker:
    """A built-in checker by name, its options checked and all of them shown (defaults filled in)."""
    name = ALIASES.get(name, name) if isinstance(name, str) else name
    entry = REGISTRY.get(name) if isinstance(name, str) else None
    if entry is None:
        raise UnknownChecker(f"unknown checker {name!r}; available: {', '.join(sorted([*REGISTRY, *ALIASES]))}")
    unknown = sorted(set(options) - set(entry.options))
    if unknown:
        known = ", ".join(entry.options) or "none"
        raise UnknownChecker(f"checker {name!r} has no option {unknown[0]!r} (its options: {known})")
    return Checker(name, tuple((key, option.check(name, key, options.get(key, option.default)))
                               for key, option in entry.options.items()))


@dataclass(frozen=True)
class Checking:
    """How a submission's answers are checked: stdout by ``output``, call results by ``value``."""

    output: Checker | CheckerProgram
    value: Checker

    def setting(self) -> dict[str, Any]:
        return {"output": setting_of(self.output), "value": self.value.setting()}


DEFAULT = Checking(make("float"), make("value"))  # the judgebox preset's, and every entry point's default


def parse(setting: Any, base: Checking = DEFAULT) -> Checking:
    """The one reader of a checker setting (see the module's docstring). The setting replaces the part of
    ``base`` it is about: an output checker or program replaces ``output``, a value checker ``value``; a
    :class:`Checking`, or ``{"output": ..., "value": ...}``, both."""
    if setting is None:
        return base
    if isinstance(setting, Checking):
        return setting
    if isinstance(setting, Mapping) and set(setting) <= {"output", "value"} and setting:
        output, value = (parse_one(setting[part]) if setting.get(part) is not None else None
                         for part in ("output", "value"))
        if (output is not None and _kind(output) != "output") or (value is not None and _kind(value) != "value"):
            raise UnknownChecker(f"{{\"output\": ..., \"value\": ...}} takes an output checker and a value checker; "
                                 f"got {output!r} and {value!r}")
        return Checking(output or base.output, value or base.value)  # type: ignore[arg-type]
    checker = parse_one(setting)
    if isinstance(checker, Checker) and checker.kind == "value":
        return Checking(base.output, checker)
    return Checking(checker, base.value)


def _kind(checker: Checker | CheckerProgram) -> Kind:
    return checker.kind if isinstance(checker, Checker) else "output"


def parse_one(setting: Any) -> Checker | CheckerProgram:
    """One checker: a name, ``{"name": ..., options}``, ``{"language", "code", "protocol"}``, or a checker."""
    if isinstance(setting, (Checker, CheckerProgram)):
        return setting
    if isinstance(setting, str):
        return make(setting)
    if isinstance(setting, Mapping) and "name" in setting:
        options = {k: v for k, v in setting.items() if k != "name"}
        return make(setting["name"], **options)
    if isinstance(setting, Mapping) and "code" in setting:
        return program(setting)
    raise UnknownChecker("a checker is a name, {\"name\": ..., options...} or {\"language\": ..., \"code\": ..., "
                         f"\"protocol\": ...}}; got {_shown(setting)}")


_PROGRAM_KEYS = ("language", "code", "protocol")


def program(setting: Mapping[str, Any]) -> CheckerProgram:
    """A checker program's setting (``protocol`` defaults to testlib); checked by the record itself."""
    return CheckerProgram(**_program_fields(setting, "checker"))


def interactor(setting: Any) -> Interactor | None:
    """An ``interactor`` setting: None, or a program's ``{"language", "code"[, "protocol"]}``."""
    if setting is None or isinstance(setting, Interactor):
        return setting
    if not isinstance(setting, Mapping):
        raise UnknownChecker(f"an interactor is {{\"language\": ..., \"code\": ...}}; got {_shown(setting)}")
    return Interactor(**_program_fields(setting, "interactor"))


def _program_fields(setting: Mapping[str, Any], what: str) -> dict[str, Any]:
    unknown = sorted(set(setting) - set(_PROGRAM_KEYS))
    missing = [key for key in _PROGRAM_KEYS[:2] if key not in setting]
    if unknown or missing:
        raise UnknownChecker(f"a{'n' if what[0] == 'i' else ''} {what} program has the keys language, code and "
                             f"protocol; {'unknown' if unknown else 'missing'}: {(unknown or missing)[0]!r}")
    return dict(setting)


def setting_of(checker: Checker | CheckerProgram | Interactor) -> dict[str, Any]:
    """A checker's setting in the wire form :func:`parse` reads back."""
    if isinstance(checker, Checker):
        return checker.setting()
    return {key: getattr(checker, key) for key in _PROGRAM_KEYS}


def get(setting: Any) -> Checker:
    """The output checker a setting names (a name, an options dict or a configured checker)."""
    checking = parse(setting)
    if not isinstance(checking.output, Checker):
        raise UnknownChecker("a checker program is not a function: it runs in the sandbox")
    return checking.output


def _shown(value: Any) -> str:
    text_ = repr(value)
    return text_ if len(text_) <= 80 else text_[:80] + "..."


# The former module-level checkers, with their default options.
tokens, lines, exact, numbers = make("tokens"), make("lines"), make("exact"), make("float")
