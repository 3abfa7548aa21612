"""The backend over ``judgebox serve`` endpoints: ``judgebox.connect("judgebox://host:port")`` (or a list).

The same methods as the embedded judge, so anything written against it (``judgebox.rewards.score_batch``, TRL's
and verl's reward functions, ``judge_many``) runs unchanged on one shared server or on several:
``address`` is what :class:`judgebox.client.Client` takes (a URL, several comma-joined, a list, or a name with
several addresses), balanced, with failing endpoints ejected and requests retried on the others.

Submissions are validated here, before anything is sent (:meth:`Judge.submission` is the embedded judge's),
and every answer is validated against the server's schema. A server that cannot be reached, answers with
an error, or answers what does not parse gives the submission an SE result naming the failure: a failure
of the judging service is never a verdict on the program, and never an exception in the middle of a batch.
"""

from __future__ import annotations

import asyncio
import math
import threading
from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import ValidationError

from judgebox.backend import Backend, BackendStats, RunCodeResult
from judgebox.backends.sandboxfusion import RunCodeServer
from judgebox.client import AsyncClient, Client, ClientError
from judgebox.errors import InvalidInput, JudgeClosed
from judgebox.judging.judge import Judge
from judgebox.types import JudgeResult, Submission, not_json
from judgebox.verdicts import Verdict
from judgebox.wire.bodies import submission_body
from judgebox.wire.convert import judge_result
from judgebox.wire.schemas import JudgeResponse

BATCH = 1024  # submissions per /judge/batch request (the server takes up to 4096)


class ServerJudge(Backend):
    """Judges on ``judgebox serve`` endpoints; safe to use from many threads and event loops at once.

    ``token`` (default ``$JUDGEBOX_TOKEN``) is sent as a bearer token; ``concurrency`` is the process-wide
    budget of requests in flight (the balanced client's). ``timeout`` bounds the seconds a submission's judging
    may take, retries on other endpoints included (an endpoint keeps its attempt for as long as it keeps the
    request alive, and one that goes silent for the client's ``IDLE_TIMEOUT`` is left for another); without
    it, a submission has as long as the server may take (its queue, and every case at its wall-clock backstop,
    thrice). Past it the submission is SE."""

    def __init__(self, address: str | list[str], token: str | None = None, concurrency: int | None = None,
                 timeout: float | None = None) -> None:
        # a timeout no call can meet would make every submission SE: every sample of a run masked, silently
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                    or not 0 < timeout < math.inf):
            raise InvalidInput(f"timeout is a number of seconds above 0, or None; got {timeout!r}")
        self.timeout = timeout
        self._options: dict[str, Any] = {"token": token, "timeout": 600.0 if timeout is None else timeout,
                                         "max_attempts": 4}
        if concurrency is not None:
            self._options["concurrency"] = concurrency
        self.address = address
        self.client = Client(address, **self._options)
        self._run_code = RunCodeServer(self.client)  # the same endpoints: one shared pool of connections
        self._closed = False
        # httpx's async connections belong to the event loop that opened them, and callers come from many
        # loops (score_batch_sync runs a fresh one per call): one AsyncClient lives on a loop of this judge's
        # own, in a thread started at the first async call, and callers await its answers from theirs
        self._async: tuple[asyncio.AbstractEventLoop, AsyncClient] | None = None
        self._lock = threading.Lock()

    submission = staticmethod(Judge.submission)  # validation is the embedded judge's, here before sending

    def judge_submission(self, submission: Submission) -> JudgeResult:
        self._refuse_if_closed()
        if (refused := _unsendable(submission)) is not None:
            return refused
        try:
            answer = self.client.post_json("/judge", submission_body(submission), self._deadline(submission))
        except ClientError as exc:
            return _failed(submission, exc)
        except RuntimeError:  # httpx's "the client has been closed": closed while this call was under way
            self._refuse_if_closed()
            raise
        return _result(submission, answer)

    async def judge_submission_async(self, submission: Submission) -> JudgeResult:
        self._refuse_if_closed()
        if (refused := _unsendable(submission)) is not None:
            return refused
        loop, client = self._async_client()
        posted = client.post_json("/judge", submission_body(submission), self._deadline(submission))
        try:  # a caller cancelled while it waits cancels the request on the judge's loop too
            answer = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(posted, loop))
        except ClientError as exc:
            return _failed(submission, exc)
        except (RuntimeError, asyncio.CancelledError):  # close() cancelled it, or closed the client under it
            cancelling = getattr(asyncio.current_task(), "cancelling", None)  # Python 3.11+
            if cancelling is None or not cancelling():  # (the caller's own cancellation stays its own)
                self._refuse_if_closed()
            raise
        return _result(submission, answer)

    def judge_many(self, submissions: Iterable[Submission]) -> Iterator[tuple[int, JudgeResult]]:
        """``(index, result)`` as each finishes, through ``/judge/batch`` streams of up to ``BATCH``
        submissions (a stream that breaks is resumed on another endpoint by the client); every submission
        gets a result, SE for those the service failed on."""
        self._refuse_if_closed()
        items = list(submissions)
        sendable = []  # the indices of those /judge/batch can carry; the others are SE at once
        for index, submission in enumerate(items):
            refused = _unsendable(submission)
            if refused is None:
                sendable.append(index)
            else:
                yield index, refused
        for start in range(0, len(sendable), BATCH):
            indices = sendable[start:start + BATCH]
            chunk = [items[i] for i in indices]
            answered: set[int] = set()
            try:
                deadlines = [self._deadline(s) for s in chunk]  # a line at least as often as the longest allows
                for line in self.client.judge_batch(chunk, sum(deadlines), line_timeout=max(deadlines)):
                    if line.index in answered or not 0 <= line.index < len(chunk):
                        continue  # a line the stream already gave, or for no submission of ours
                    answered.add(line.index)
                    submission = chunk[line.index]
                    if line.result is None:
                        yield indices[line.index], _failed(submission, line.error or "no result")
                    else:
                        yield indices[line.index], _result(submission, line.result)
            except ClientError as exc:
                for index in range(len(chunk)):
                    if index not in answered:
                        yield indices[index], _failed(chunk[index], exc)
            except RuntimeError:  # httpx's "the client has been closed": closed while the stream was read
                self._refuse_if_closed()
                raise

    def isolation(self) -> dict[str, object]:
        """The isolation layers of the first endpoint that answers its /health."""
        try:
            return dict(self.client.health(deadline=10).get("isolation") or {})
        except ClientError:
            return {}

    def run_code(self, requests: list[dict[str, Any]]) -> list[RunCodeResult]:
        """Each body POSTed to ``/run_code`` (retried on another endpoint as the client does)."""
        self._refuse_if_closed()
        try:
            return self._run_code.run_code(requests)
        except RuntimeError:  # httpx's "the client has been closed": closed while the requests were under way
            self._refuse_if_closed()
            raise

    def stats(self) -> BackendStats:
        """The client's figures (``extra["endpoints"]``: each endpoint's requests, failures, ejections; the
        servers keep their own on ``/metrics``)."""
        return BackendStats(extra={"endpoints": self.client.endpoints(), "budget": self.client.budget()})

    def close(self) -> None:
        self._closed = True
        self.client.close()
        with self._lock:
            running, self._async = self._async, None
        if running is not None:  # the requests still under way end (their callers get JudgeClosed), then the loop
            loop, client = running
            asyncio.run_coroutine_threadsafe(_shut(client), loop).result(timeout=30)
            loop.call_soon_threadsafe(loop.stop)

    def __enter__(self) -> ServerJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _refuse_if_closed(self) -> None:
        if self._closed:
            raise JudgeClosed("this server backend is closed")

    def _deadline(self, submission: Submission) -> float:
        """As long as the server may take (its queue, and every case at its wall-clock backstop, thrice), or
        ``timeout`` if that is less."""
        longest = 60 + 3 * submission.limits.wall_backstop * max(1, len(submission.cases))
        return longest if self.timeout is None else min(self.timeout, longest)

    def _async_client(self) -> tuple[asyncio.AbstractEventLoop, AsyncClient]:
        with self._lock:
            if self._async is None:
                if self.client.closed:
                    raise JudgeClosed("this judge has been closed")
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="judgebox-server-judge", daemon=True).start()
                opened = asyncio.run_coroutine_threadsafe(_opened(self.address, self._options), loop).result()
                self._async = loop, opened
            return self._async


async def _shut(client: AsyncClient) -> None:
    """Cancel every request still running on the judge's own loop (a loop stopped under them would leave
    their callers waiting forever), then close the client."""
    running = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in running:
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)
    await client.aclose()


async def _opened(address: str | list[str], options: dict[str, Any]) -> AsyncClient:
    """An AsyncClient made on the loop that will use it."""
    return AsyncClient(address, **options)


def _result(submission: Submission, answer: Any) -> JudgeResult:
    try:
        result = judge_result(answer if isinstance(answer, JudgeResponse) else JudgeResponse.model_validate(answer))
    except (ValidationError, ValueError) as exc:
        return _failed(submission, f"the server's answer is not a judge result: {exc}")
    # An answer is for the submission sent: its cases, and an AC only with every one of them AC. An answer for
    # fewer cases (a server that judged another submission, or a broken one) would be a reward unearned.
    total = len(submission.cases)
    if result.total != total or len(result.cases) > total or (
            result.verdict is Verdict.AC and (len(result.cases) != total
                                              or any(c.verdict is not Verdict.AC for c in result.cases))):
        return _failed(submission, f"the server's answer is not for the {total} case(s) sent: its total is "
                                   f"{result.total}, with {len(result.cases)} case result(s), verdict {result.verdict}")
    return result


def _unsendable(submission: Submission) -> JudgeResult | None:
    """SE for a submission /judge cannot carry, else None: an interactive problem with a case of limits of its
    own or not a stdio case (its cases travel as test data: stdin and answers, the submission's limits; the
    judge refuses other kinds, but a Submission made by hand is not checked), or a call case whose values JSON
    cannot carry as they are (a set or bytes expected: valid for the embedded judge, which compares Python
    values, but the server would judge another value or none). Raised instead, it would sink a whole batch."""
    if submission.interactor is not None and any(case.limits is not None or case.kind != "stdio" or case.io != "stdio"
                                                 for case in submission.cases):
        return _failed(submission, "an interactive problem whose cases have limits of their own (or are not stdio "
                                   "cases) needs the embedded judge or Ray: /judge takes its cases as test data")
    for number, case in enumerate(submission.cases, 1):
        if case.kind == "call" and (unfit := not_json([case.args, case.expected_value])) is not None:
            return _failed(submission, f"case {number}'s values need the embedded judge or Ray: /judge takes "
                                       f"JSON, and {unfit} has no JSON form")
    return None


def _failed(submission: Submission, cause: object) -> JudgeResult:
    """The service failed this submission: SE, no case judged."""
    return JudgeResult(Verdict.SE, (), len(submission.cases), f"the judge server failed: {cause}")
