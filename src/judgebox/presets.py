"""Presets: each ecosystem's judging rules and reward, one declarative entry each, for eval parity.

A preset says how answers are checked (a :class:`judgebox.checkers.Checking`) and how the cases' results
make a score, with verl's ``continuous`` flag on and off. ``judgebox`` is the tolerant, correct default for
training; the others reproduce another harness's verdicts, faults included:

==================  ===================================================================  ==================
preset              stdout / call results                                                score
==================  ===================================================================  ==================
``judgebox``        ``float`` (1e-6 absolute or relative, integers exact) / ``value``    passed share of
                                                                                          all cases
``verl``            verl's ``sandbox_fusion`` (:mod:`judgebox.verl.parity`: its wrapper, share of the
                    ``rstrip("\\n")`` equality, metadata)                                 first 10 if
                                                                                          continuous
``prime``           verl's ``prime_code`` (APPS cascade ``apps``) / ``value``, Python ==  first 10 if
                                                                                          continuous, else
                                                                                          all or nothing
``livecodebench``   ``livecodebench`` (stripped lines, exact decimals) / ``value`` ==     all or nothing
``codecontests``    ``float`` absolute 1e-5, case-insensitive / ``value``                all or nothing
``sandboxfusion``   ``sandboxfusion`` (CommonOJ: lines, case-insensitive, rel 1e-5)      all or nothing
==================  ===================================================================  ==================

A score is what the scored cases earned over their number (a case earns 1 if it passed, or its
checker's points); ``binary`` is 1.0 when every case passed and 0 otherwise, and stops at the first
failure (nothing after it can change the score).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from judgebox import checkers
from judgebox.checkers import Checking, make
from judgebox.errors import UnknownPreset

__all__ = ["ALL_OR_NOTHING", "DEFAULT", "FIRST_TEN", "FRACTION", "PRESETS", "Preset", "Reward", "get"]


@dataclass(frozen=True)
class Reward:
    """How case results make a score: ``fraction`` (what the cases earned over their number) or
    ``binary``; ``cases``: only the first that many are run and scored (None: all)."""

    kind: Literal["fraction", "binary"] = "fraction"
    cases: int | None = None

    @property
    def stops_at_first_failure(self) -> bool:
        return self.kind == "binary"

    def score(self, earned: list[float], total: int) -> float:
        """``earned``: each judged case's score in order (fewer than ``total`` only after a failure)."""
        if self.kind == "binary":
            return 1.0 if len(earned) == total and all(e == 1.0 for e in earned) else 0.0
        return sum(earned) / total if total else 0.0


ALL_OR_NOTHING = Reward("binary")
FRACTION = Reward("fraction")
FIRST_TEN = Reward("fraction", 10)  # verl's CONTINUOUS_CASES: all cases may run, the first 10 are scored


@dataclass(frozen=True)
class Preset:
    name: str
    checking: Checking
    continuous: Reward  # verl's continuous=True
    discrete: Reward  # continuous=False

    def reward(self, continuous: bool, binary: bool = False) -> Reward:
        if binary:
            return ALL_OR_NOTHING
        return self.continuous if continuous else self.discrete


_EXACT_VALUE = make("value", epsilon=0.0)  # equality once tuples are lists, bools apart from numbers
# Python's ==, as prime_code and LiveCodeBench compare a returned value: 1 == True too
_PYTHON_EQUALITY = make("value", epsilon=0.0, bool_is_int=True)
PRESETS: dict[str, Preset] = {preset.name: preset for preset in (
    Preset("judgebox", checkers.DEFAULT, FRACTION, FRACTION),
    Preset("verl", Checking(make("exact", ignore_trailing_newlines=True), _EXACT_VALUE), FIRST_TEN, FRACTION),
    Preset("prime", Checking(make("apps"), _PYTHON_EQUALITY), FIRST_TEN, ALL_OR_NOTHING),
    Preset("livecodebench", Checking(make("livecodebench"), _PYTHON_EQUALITY), ALL_OR_NOTHING, ALL_OR_NOTHING),
    Preset("codecontests", Checking(make("float", mode="absolute", epsilon=1e-5, case_insensitive=True),
                                    make("value")), ALL_OR_NOTHING, ALL_OR_NOTHING),
    Preset("sandboxfusion", Checking(make("sandboxfusion"), make("value")), ALL_OR_NOTHING, ALL_OR_NOTHING),
)}
DEFAULT = PRESETS["judgebox"]


def get(name: str) -> Preset:
    try:
        return PRESETS[name]
    except (KeyError, TypeError):
        raise UnknownPreset(f"unknown preset {name!r}; available: {', '.join(PRESETS)}") from None
