"""The one contract every backend keeps: the embedded judge, ``judgebox serve`` endpoints and a Ray cluster.

    backend = judgebox.connect("ray://")            # or None / "local", "judgebox://host:8080", a list
    result = backend.judge("print(input())", cases)
    for index, result in backend.judge_many(submissions): ...

Everything written against a :class:`Backend` (``judgebox.rewards``, the trainers' reward functions,
``judgebox score``, verl's ``sandbox_fusion_url``) runs unchanged on each. Which backend an address names
is decided once, in ``judgebox.backends.registry``; adding one is a module and a line there
(``docs/extending.md``).

A backend never raises for what a program does, nor for a failure of its own while judging: a submission it
could not judge is an SE result saying why. It raises only for the caller's bad input (before anything
runs: :class:`judgebox.InvalidInput`) and for a closed backend (:class:`judgebox.JudgeClosed`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

from judgebox.types import JudgeResult, Limits, Submission


class RunCodeResult(NamedTuple):
    """One SandboxFusion ``/run_code`` request's answer, as verl's ``call_sandbox_api`` gives it: the
    response's JSON, or why there is none (``"API Call Failed: ..."``, verl's wording)."""

    response: dict[str, Any] | None
    error: str | None


@dataclass(frozen=True)
class BackendStats:
    """What a backend has done and holds now. ``slots``: sandbox slots it judges on (every node's, for
    Ray; 0 where it cannot know, a server's); ``busy``: of those, running a job now; ``jobs_started``:
    runs of programs, checkers and compilers; ``dedupe``: its result cache's counts (None when off);
    ``artifact_hits``/``artifact_misses``: builds reused and made; ``extra``: the backend's own figures
    (a Ray pool's actors and nodes, a server pool's endpoints)."""

    slots: int = 0
    busy: int = 0
    jobs_started: int = 0
    dedupe: Mapping[str, int] | None = None
    artifact_hits: int = 0
    artifact_misses: int = 0
    extra: Mapping[str, Any] = field(default_factory=dict)


@runtime_checkable
class Backend(Protocol):
    """Judges submissions somewhere; safe to call from many threads and event loops at once.

    Implementations subclass it for :meth:`judge` and :meth:`judge_async`, which read the same on every
    backend; the rest is each backend's own."""

    @staticmethod
    def submission(code: str, cases: Any, language: str = "python", limits: Limits | None = None,
                   checker: Any = None, stop_on_first_failure: bool = False) -> Submission:
        """Validate the caller's input into a :class:`Submission` (here, before anything is sent or run);
        raises :class:`judgebox.InvalidInput`."""
        ...

    def judge_submission(self, submission: Submission) -> JudgeResult:
        """Judge one submission; blocks until it is judged."""
        ...

    async def judge_submission_async(self, submission: Submission) -> JudgeResult:
        """The awaitable twin of :meth:`judge_submission`; it waits without occupying a thread."""
        ...

    def judge_many(self, submissions: Iterable[Submission]) -> Iterator[tuple[int, JudgeResult]]:
        """Judge every submission at once, yielding ``(index, result)`` as each finishes (not in order).
        One the backend cannot judge yields an SE result; leaving the loop early drops what has not run."""
        ...

    def run_code(self, requests: list[dict[str, Any]]) -> list[RunCodeResult]:
        """SandboxFusion ``/run_code`` request bodies, each answered as that API does (verl's parity
        presets run one program per case this way)."""
        ...

    def stats(self) -> BackendStats:
        ...

    def isolation(self) -> dict[str, object]:
        """The isolation layers programs run under (per node, for a cluster)."""
        ...

    def close(self) -> None:
        """End the backend's work and free what it holds; later calls raise :class:`judgebox.JudgeClosed`."""
        ...

    # -- the same on every backend --------------------------------------------------------------------

    def judge(self, code: str, cases: Any, language: str = "python", limits: Limits | None = None,
              checker: Any = None, stop_on_first_failure: bool = False) -> JudgeResult:
        """Judge ``code`` on ``cases`` (a list of :class:`judgebox.Case` or verl's test-case dict)."""
        return self.judge_submission(self.submission(code, cases, language, limits, checker, stop_on_first_failure))

    async def judge_async(self, code: str, cases: Any, language: str = "python", limits: Limits | None = None,
                          checker: Any = None, stop_on_first_failure: bool = False) -> JudgeResult:
        """The awaitable twin of :meth:`judge`."""
        return await self.judge_submission_async(
            self.submission(code, cases, language, limits, checker, stop_on_first_failure))
