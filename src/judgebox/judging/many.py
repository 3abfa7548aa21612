"""Many submissions judged at once on one thread that waits: the embedded judge's ``judge_many``.

A window of tasks on an event loop of its own takes the submissions in turn (one thread, not one per
submission), all of them one tenant of the pool, each result handed to the consumer as it ends; one the
judge fails on is an SE result saying why, and none is ever dropped.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Iterator
from typing import Any

from judgebox.backend import Backend
from judgebox.errors import InvalidInput
from judgebox.judging.pool import Group, Tenant, grouped
from judgebox.types import JudgeResult, Submission
from judgebox.verdicts import Verdict

JUDGE_MANY_WINDOW = 256  # submissions judge_many keeps in the judge at once, at least


def as_they_finish(judge: Backend, batch: list[Any], window: int) -> Iterator[tuple[int, JudgeResult]]:
    """:meth:`judgebox.Judge.judge_many`'s work: ``window`` tasks on an event loop of its own (one thread that waits,
    not one thread per submission) take the submissions in turn, each result handed over as it ends."""
    finished: queue.Queue[tuple[int, JudgeResult] | None] = queue.Queue()
    tenant = Tenant()

    async def one(index: int, submission: Any) -> None:
        try:
            if not isinstance(submission, Submission):
                raise InvalidInput(f"judge_many takes Submission records, got a {type(submission).__name__}")
            with grouped(Group(tenant)):
                result = await judge.judge_submission_async(submission)
        except Exception as exc:  # this one's failure is its SE; the others go on
            result = _failed(submission, exc)
        finished.put((index, result))

    async def every() -> None:
        turns = iter(enumerate(batch))  # shared by the takers: each submission taken once (one loop thread)

        async def taker() -> None:
            for index, submission in turns:
                await one(index, submission)

        await asyncio.gather(*(taker() for _ in range(min(window, len(batch)))))

    loop = asyncio.new_event_loop()
    work = loop.create_task(every())

    def serve() -> None:
        try:
            loop.run_until_complete(work)
        except BaseException:  # cancelled by the consumer leaving, or lost: the consumer accounts for the rest
            pass
        finally:
            loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()
            finished.put(None)

    thread = threading.Thread(target=serve, name="judgebox-judge-many", daemon=True)
    thread.start()
    given: set[int] = set()
    try:
        while (item := finished.get()) is not None:
            given.add(item[0])
            yield item
        for index in sorted(set(range(len(batch))) - given):  # never dropped, whatever went wrong
            yield index, _failed(batch[index], RuntimeError("the judge lost this submission"))
    finally:
        if thread.is_alive():
            try:
                loop.call_soon_threadsafe(work.cancel)
            except RuntimeError:  # the loop closed meanwhile
                pass
        thread.join()


def _failed(submission: Any, exc: BaseException) -> JudgeResult:
    """A submission the judge could not judge: SE, with the reason, never a wrong answer."""
    total = len(submission.cases) if isinstance(submission, Submission) else 0
    return JudgeResult(Verdict.SE, (), total, f"{type(exc).__name__}: {exc}")
