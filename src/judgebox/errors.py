"""The judgebox exception tree.

Everything judgebox raises on purpose derives from :class:`JudgeboxError`::

    JudgeboxError
    ├── InvalidInput            bad caller input: raised before any work starts
    │   ├── InvalidCases        test data of the wrong shape (mismatched inputs/outputs, wrong types)
    │   ├── InvalidLimits       negative, zero or absurd limits
    │   ├── InvalidCode         empty or oversized code
    │   └── UnknownLanguage
    │   └── UnknownChecker
    └── SandboxError            the machine cannot run untrusted code as configured
        ├── IsolationUnavailable  a required isolation layer is missing (the message says which)
        └── LanguageUnavailable   this language cannot run correctly in the active isolation mode

What a *program* does (crash, loop, flood) is never an exception: it is a verdict. Failures of the judge
while a case runs are reported as the verdict ``SE`` on that case, so one broken run never loses the
results of the other submissions in flight.
"""

from __future__ import annotations


class JudgeboxError(Exception):
    """Base class of every exception judgebox raises on purpose."""


class InvalidInput(JudgeboxError, ValueError):
    """The caller's input cannot be judged; nothing was run."""


class InvalidCases(InvalidInput):
    pass


class InvalidLimits(InvalidInput):
    pass


class InvalidCode(InvalidInput):
    pass


class UnknownLanguage(InvalidInput):
    pass


class UnknownChecker(InvalidInput):
    pass


class SandboxError(JudgeboxError, RuntimeError):
    """The sandbox cannot be started or used on this machine."""


class IsolationUnavailable(SandboxError):
    """A required isolation layer is not available; ``missing`` names the layers."""

    def __init__(self, message: str, missing: frozenset[str] = frozenset()) -> None:
        super().__init__(message)
        self.missing = missing


class LanguageUnavailable(SandboxError):
    """A language whose runtime cannot run correctly under the isolation this machine gives (the JVM, Node
    and Go under an address-space limit, say): refused before anything runs, never judged wrong."""
