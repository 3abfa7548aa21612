"""The judgebox exception tree.

Every error judgebox raises to a caller derives from :class:`JudgeboxError`; where a builtin base helps an
existing ``except`` clause it is kept (in brackets)::

    JudgeboxError
    ├── InvalidInput [ValueError]      bad caller input: raised before any work starts
    │   ├── InvalidCases               test data of the wrong shape (mismatched inputs/outputs, wrong types)
    │   ├── InvalidLimits              negative, zero or absurd limits; limits of the wrong type
    │   ├── InvalidCode                empty or oversized code
    │   ├── UnknownLanguage
    │   ├── UnknownChecker
    │   ├── UnknownPreset              a preset (judgebox.presets) or judgebox.verl profile that does not exist
    │   ├── UnknownAddress             a server address judgebox cannot use: none, an unknown scheme, several
    │   │                              of different kinds, too many (verl's sandbox_fusion_url, a client's URL)
    │   ├── BadRecord                  judgebox score: one record of a data or samples file that cannot be judged
    │   └── UnreadableFile             judgebox score: a data, samples or results file unreadable as a whole
    ├── UnsupportedDataSource [NotImplementedError]
    │                                  judgebox.verl: a data source that is not code, and no verl to score it
    ├── JudgeClosed [RuntimeError]     a judge (any backend), or a judgebox.client client, used after close()
    ├── SandboxError [RuntimeError]    the machine cannot run untrusted code as configured
    │   ├── IsolationUnavailable       a required isolation layer is missing (the message says which)
    │   └── LanguageUnavailable        this language cannot run correctly in the active isolation mode
    ├── RayUnavailable [ImportError]   connect("ray://") without Ray installed
    ├── ClusterUnreachable [ConnectionError]
    │                                  connect("ray://..."): no Ray cluster to join at the address given
    └── ClientError                    judgebox.client: a call that failed (``request_id``; its docstring
        ├── BadAnswer                  says when each is raised)
        ├── ServerRejected
        ├── ServerUnavailable
        └── DeadlineExceeded [TimeoutError]

All are defined here, and importable from :mod:`judgebox` (the client's also from :mod:`judgebox.client`,
the score tool's from :mod:`judgebox.tools.score`, the Ray backend's from :mod:`judgebox.backends.ray`).

What a *program* does (crash, loop, flood) is never an exception: it is a verdict. Failures of the judge
while a case runs are reported as the verdict ``SE`` on that case, so one broken run never loses the
results of the other submissions in flight.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "BadAnswer", "BadRecord", "ClientError", "ClusterUnreachable", "DeadlineExceeded", "InvalidCases", "InvalidCode",
    "InvalidInput", "InvalidLimits", "IsolationUnavailable", "JudgeClosed", "JudgeboxError", "LanguageUnavailable",
    "RayUnavailable", "SandboxError", "ServerRejected", "ServerUnavailable", "UnknownAddress", "UnknownChecker",
    "UnknownLanguage", "UnknownPreset", "UnreadableFile", "UnsupportedDataSource",
]


class JudgeboxError(Exception):
    """Base class of every exception judgebox raises to a caller."""


# -- the caller's input --------------------------------------------------------------------------------------

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


class UnknownPreset(InvalidInput):
    """A preset name (:mod:`judgebox.presets`), or a :mod:`judgebox.verl` profile, that does not exist."""


class UnknownAddress(InvalidInput):
    """A server address judgebox cannot use: none given, a scheme it does not know, several of different kinds,
    more than a client takes."""


class BadRecord(InvalidInput):
    """A record that cannot be judged: where it is, which field, what was expected (``judgebox score``)."""

    def __init__(self, where: str, field_name: str, expected: str) -> None:
        super().__init__(f"{where}: field {field_name!r}: {expected}")
        self.where, self.field, self.expected = where, field_name, expected


class UnreadableFile(InvalidInput):
    """The file as a whole cannot be read (missing, not JSONL or Parquet, no pyarrow, not a results file)."""


class UnsupportedDataSource(JudgeboxError, NotImplementedError):
    """:mod:`judgebox.verl` was given a sample that is not code (its ground truth is not test cases) and verl is
    not installed to score it (verl's own scorer raises NotImplementedError for a data source it lacks)."""


# -- the judge's state ---------------------------------------------------------------------------------------

class JudgeClosed(JudgeboxError, RuntimeError):
    """A judge (local, server or Ray backend), or a :mod:`judgebox.client` client, was used after ``close()``."""


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


class RayUnavailable(JudgeboxError, ImportError):
    """Ray is not installed: ``pip install 'judgebox[ray]'``."""


class ClusterUnreachable(JudgeboxError, ConnectionError):
    """No Ray cluster to join at the address given (or none running, for ``"auto"``)."""


# -- judgebox.client's calls ---------------------------------------------------------------------------------

class ClientError(JudgeboxError):
    """Base of :mod:`judgebox.client`'s errors; ``request_id`` is the ``X-Request-ID`` of the call that failed."""

    def __init__(self, message: str, request_id: str | None = None) -> None:
        super().__init__(f"{message} [request id {request_id}]" if request_id else message)
        self.request_id = request_id


class ServerRejected(ClientError):
    """The server answered an error status that is not worth retrying (its ``detail`` says why)."""

    def __init__(self, status: int, detail: Any, request_id: str | None = None) -> None:
        super().__init__(f"the server answered HTTP {status}: {detail}", request_id)
        self.status, self.detail = status, detail


class BadAnswer(ClientError):
    """A success status with an answer that does not parse (a login page, another service on the port)."""


class ServerUnavailable(ClientError):
    """The server stayed unreachable or overloaded through every attempt, or a batch stream broke."""

    def __init__(self, message: str, request_id: str | None = None, attempts: int = 0, status: int | None = None,
                 detail: Any = None) -> None:
        super().__init__(message, request_id)
        self.attempts, self.status, self.detail = attempts, status, detail


class DeadlineExceeded(ClientError, TimeoutError):
    """The call's deadline passed before it had its answer."""
