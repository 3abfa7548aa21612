"""The judge actor of one Ray node: it runs in a worker process of that node's raylet, so the sandboxes it
starts run on that node. ``judgebox.backends.ray`` places one per node and sends it batches."""

from __future__ import annotations

import asyncio
import os
from typing import Any

from judgebox.backend import RunCodeResult
from judgebox.callers import as_caller
from judgebox.judging.judge import Judge
from judgebox.types import JudgeResult, Submission
from judgebox.verdicts import Verdict


def failed(submission: Submission | object, message: str) -> JudgeResult:
    """The judge could not judge ``submission`` (or what was given as one): SE, with no case judged."""
    total = len(submission.cases) if isinstance(submission, Submission) else 1
    return JudgeResult(Verdict.SE, (), total, message)


class NodeJudge:
    """One node's judge: an embedded judge of ``slots`` slots in the actor's process. It is shared by every
    RayJudge of the cluster; ``creator`` names the one that started it."""

    def __init__(self, slots: int, creator: str) -> None:
        self.creator = creator
        self.judge = Judge(slots=slots)

    def ready(self) -> dict[str, Any]:
        import ray

        return {"node_id": ray.get_runtime_context().get_node_id(), "pid": os.getpid(), "creator": self.creator,
                "slots": self.judge.slots, "isolation": self.judge.isolation()}

    async def judge_batch(self, submissions: list[Submission], caller: str) -> list[JudgeResult]:
        """Every submission judged as ``caller``'s work: the actor is shared by every RayJudge of the cluster,
        and each driver's caches stay its own (judgebox.callers)."""
        with as_caller(caller):  # the tasks gather starts copy the context
            judged = [asyncio.ensure_future(self._judged(s)) for s in submissions]
        return list(await asyncio.gather(*judged))

    async def _judged(self, submission: Submission) -> JudgeResult:
        try:
            return await self.judge.judge_submission_async(submission)
        except Exception as exc:  # a failure of this node's judge: SE, never lost
            return failed(submission, f"the judge on node {os.uname().nodename} failed: {type(exc).__name__}: {exc}")

    async def run_code(self, bodies: list[dict[str, Any]], caller: str) -> list[RunCodeResult]:
        """SandboxFusion /run_code requests, answered by this node's sandbox (judgebox.verl's parity presets),
        as ``caller``'s work."""
        with as_caller(caller):  # to_thread carries the context
            return await asyncio.to_thread(self.judge.run_code, bodies)
