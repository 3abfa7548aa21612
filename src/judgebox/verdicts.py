"""The verdict of one test case, and of a whole submission."""

from __future__ import annotations

import enum


class Verdict(str, enum.Enum):
    """What happened to a program on a test case.

    ``SE`` is reserved for failures of judgebox or the machine (a sandbox that could not start,
    a worker that died): it never means the program was wrong, and rewards should not treat it so.
    """

    AC = "AC"  # accepted
    WA = "WA"  # wrong answer
    PE = "PE"  # presentation error: right tokens, wrong whitespace (exact/lines checkers only)
    RE = "RE"  # runtime error: non-zero exit, uncaught exception, killed by a signal
    TLE = "TLE"  # CPU time limit, or the wall-clock backstop
    MLE = "MLE"  # memory limit
    OLE = "OLE"  # output limit
    CE = "CE"  # compile error (or, for Python, a syntax error)
    SE = "SE"  # system error: the judge failed, not the program

    @property
    def passed(self) -> bool:
        return self is Verdict.AC

    def __str__(self) -> str:
        return self.value


# When a submission fails several ways, the headline is the first failing case's verdict, except that
# an SE anywhere wins: a partly broken judge run must never look like an honest wrong answer.
def headline(verdicts: list[Verdict]) -> Verdict:
    if Verdict.SE in verdicts:
        return Verdict.SE
    for v in verdicts:
        if not v.passed:
            return v
    return Verdict.AC
