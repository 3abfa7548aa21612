"""Judging on a Ray cluster: one judge actor per alive node, each owning that node's sandbox slots.

``judgebox.Judge(backend="ray", address=None)`` returns a :class:`RayJudge`. It joins the running
cluster (``ray.init(address="auto")``, or ``address``; a process where Ray is already initialised, such
as a verl worker, uses its own connection) and places a :class:`NodeJudge` actor on every alive node with
CPUs, pinned there (node affinity, not soft): the actor is a worker process of that node's raylet, so its
sandboxes run on that node. Each actor holds the node's process-wide embedded judge with one slot per CPU
(or ``slots=``). It reserves no Ray CPUs by default: a trainer's own workers hold a node's CPUs in
Ray's books while they wait for the reward step, and an actor asking for them would never be placed;
``reserve_cpus=True`` reserves its slots' CPUs (up to the node's) where nothing else claims them. The
actors are named by node: every RayJudge on the cluster shares them, and ``close()`` ends only its own.

The driver validates, dedupes (``judgebox.judging.dedupe.ResultCache``: a program judged on the same tests and
limits is sent once, and a recent result is reused) and sends work in batches of about one node's slots of
cases, keeping about twice its slots of cases in flight per actor, least-loaded actor first.

Failures are infrastructure, never a verdict: a call that fails because its actor or its node died is
retried on another actor (``attempts`` times in all); after that the submission's result is ``SE`` naming
the cause. A background refresher (every ``refresh_seconds``) follows the cluster: it starts an actor on a
node that joined, restarts one that died while its node is alive, and drops those of nodes that left
(their work in flight goes back to the queue). ``stats()`` counts submissions, retries and SE results.

Ray is imported only here, on first use: ``import judgebox`` never imports it.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
import uuid
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from typing import Any

from judgebox.backend import Backend, BackendStats, RunCodeResult
from judgebox.backends.ray_node import NodeJudge, failed
from judgebox.callers import process_caller
from judgebox.errors import ClusterUnreachable, InvalidInput, JudgeboxError, JudgeClosed, RayUnavailable, UnknownAddress
from judgebox.judging.dedupe import ResultCache, Unkeyable, submission_key
from judgebox.judging.judge import Judge as LocalJudge
from judgebox.types import JudgeResult, Submission
from judgebox.verdicts import Verdict

log = logging.getLogger("judgebox.ray")

ATTEMPTS = 3  # calls of one submission before it is SE
REFRESH_SECONDS = 3.0
IN_FLIGHT_PER_SLOT = 2  # cases in flight per slot of an actor: one batch runs while the next is on its way
STALL_SECONDS = 120.0  # work queued this long with no ready actor on the cluster is SE
WINDOW = 4096  # submissions judge_many keeps in flight
NAMESPACE = "judgebox"  # where the node actors' names live


def require_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RayUnavailable("judgebox's Ray backend needs Ray: pip install 'judgebox[ray]'") from exc
    return ray


# -- the driver ------------------------------------------------------------------------------------------

@dataclass(eq=False)
class _Work:
    submission: Submission
    result: Future[JudgeResult]
    attempts: int = 0
    alone: bool = False  # sent in a batch of its own: a batch it was in failed, and not by an actor's death

    @property
    def cases(self) -> int:
        return len(self.submission.cases)


@dataclass(eq=False)
class _Member:
    """The actor of one node, ready once it answered ``ready`` (its slots started)."""

    node_id: str
    handle: Any
    slots: int
    ready: bool = False
    in_flight: int = 0  # cases
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def capacity(self) -> int:
        return IN_FLIGHT_PER_SLOT * self.slots


class RayJudge(Backend):
    """The Ray backend: ``judgebox.connect("ray://[host:port]", ...)``. ``slots``: slots per node
    (default: the node's CPUs as Ray counts them); ``attempts``: calls of a submission before it is SE;
    ``reserve_cpus``: the actors reserve their slots' CPUs from Ray (see the module's docstring)."""

    def __init__(self, address: str | None = None, *, slots: int | None = None, attempts: int = ATTEMPTS,
                 refresh_seconds: float = REFRESH_SECONDS, cache_entries: int = 100_000,
                 cache_bytes: int = 512 * 1024 * 1024, reserve_cpus: bool = False) -> None:
        if address is not None and "," in address:
            raise UnknownAddress(f"ray://{address}: one Ray cluster at a time")
        if slots is not None and (isinstance(slots, bool) or not isinstance(slots, int) or slots < 1):
            raise InvalidInput(f"slots must be a positive whole number, got {slots!r}")
        if isinstance(attempts, bool) or not isinstance(attempts, int) or attempts < 1:
            raise InvalidInput(f"attempts must be a positive whole number, got {attempts!r}")
        ray = require_ray()
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        self._ray, self._affinity = ray, NodeAffinitySchedulingStrategy
        self._owns_ray = not ray.is_initialized()
        if self._owns_ray:
            try:
                ray.init(address=address or "auto", logging_level=logging.WARNING, configure_logging=False)
            except ConnectionError as exc:
                raise ClusterUnreachable(f"no Ray cluster to join at {address or 'auto'}: {exc}") from exc
        self._actor = ray.remote(NodeJudge)
        self.slots, self.attempts, self.refresh_seconds = slots, attempts, refresh_seconds
        self.reserve_cpus = bool(reserve_cpus)
        self._cache = ResultCache(max_entries=cache_entries, max_bytes=cache_bytes)
        self._members: dict[str, _Member] = {}
        self._queue: deque[_Work] = deque()
        self._sent: set[_Work] = set()  # in batches on their way or being judged
        self._counts = dict.fromkeys(("submissions", "cases", "batches", "retries", "se", "actors_started",
                                      "actors_lost"), 0)
        self._judged_by_node: dict[str, int] = {}  # cases, over the pool's life (nodes that left included)
        self._broken_nodes: dict[str, float] = {}  # node -> when to try again (its actor failed to start)
        self._stalled_since: float | None = None
        self._closed = False
        self._token = uuid.uuid4().hex  # an actor started by this judge says so: close() ends only those
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="judgebox-ray", daemon=True)
        self._thread.start()
        self._refresher = asyncio.run_coroutine_threadsafe(self._refresh_forever(), self._loop)

    # -- the Backend's methods ----------------------------------------------------------------------------

    submission = staticmethod(LocalJudge.submission)  # validation is the same, on the driver, without a pool

    def judge_submission(self, submission: Submission) -> JudgeResult:
        return self._submit(submission).result()

    async def judge_submission_async(self, submission: Submission) -> JudgeResult:
        return await asyncio.wrap_future(self._submit(submission))

    def judge_many(self, submissions: Iterable[Submission]) -> Iterator[tuple[int, JudgeResult]]:
        """``(index, result)`` of each submission as it finishes; at most ``WINDOW`` in flight at once. A judge
        closed before the loop starts raises :class:`JudgeClosed`, rather than an SE for each submission."""
        if self._closed:
            raise JudgeClosed("this RayJudge is closed")
        pending: dict[Future[JudgeResult], list[int]] = {}
        feed = enumerate(submissions)
        exhausted = False
        while True:
            while not exhausted and sum(map(len, pending.values())) < WINDOW:
                item = next(feed, None)
                if item is None:
                    exhausted = True
                    break
                pending.setdefault(self._submit_safely(item[1]), []).append(item[0])
            if not pending:
                return
            done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for future in done:
                for index in pending.pop(future):
                    yield index, future.result()

    def isolation(self) -> dict[str, object]:
        """Each ready node's isolation layers, by Ray node id."""
        return {m.node_id: m.info.get("isolation") for m in list(self._members.values()) if m.ready}

    def cluster_cpus(self) -> float:
        """The CPUs of the cluster's alive nodes, as Ray counts them (what its slots can grow to)."""
        return float(self._ray.cluster_resources().get("CPU", 0))

    def stats(self) -> BackendStats:
        """``slots`` of the ready actors; in ``extra``: counts of the pool's life (``submissions``, ``cases``,
        ``batches``, ``retries``, ``se`` results, ``actors_started``, ``actors_lost``), the pool now
        (``actors`` ready, ``actors_pending``, ``queued``), the driver's dedupe ``cache`` and, per node, the
        cases it judged."""
        if self._closed or not self._loop.is_running():
            figures = self._stats()
        else:
            read: Future[dict[str, Any]] = Future()  # read on the dispatcher's loop, which alone changes them
            self._loop.call_soon_threadsafe(lambda: read.set_result(self._stats()))
            figures = read.result(timeout=30)
        return BackendStats(slots=figures["slots"], dedupe=figures["cache"], extra=figures)

    def _stats(self) -> dict[str, Any]:
        members = list(self._members.values())
        return {**self._counts, "actors": sum(m.ready for m in members),
                "actors_pending": sum(not m.ready for m in members),
                "slots": sum(m.slots for m in members if m.ready), "queued": len(self._queue),
                "cache": self._cache.stats(),
                "nodes": {node: {"cases_judged": cases} for node, cases in self._judged_by_node.items()}
                | {m.node_id: {"cases_judged": self._judged_by_node.get(m.node_id, 0), "slots": m.slots,
                               "pid": m.info.get("pid")} for m in members if m.ready}}

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        asyncio.run_coroutine_threadsafe(self._shut(), self._loop).result(timeout=60)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        if self._owns_ray:
            self._ray.shutdown()

    def __enter__(self) -> RayJudge:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run_code(self, requests: list[dict[str, Any]]) -> list[RunCodeResult]:
        """SandboxFusion /run_code requests answered on one node (judgebox.verl's parity presets)."""
        if self._closed:
            raise JudgeClosed("this RayJudge is closed")
        return asyncio.run_coroutine_threadsafe(self._run_code(requests), self._loop).result()

    # -- submitting -------------------------------------------------------------------------------------

    def _submit(self, submission: Submission) -> Future[JudgeResult]:
        if self._closed:
            raise JudgeClosed("this RayJudge is closed")
        if not isinstance(submission, Submission):
            raise InvalidInput(f"judge_many takes judgebox.Submission records, got {type(submission).__name__}")
        try:
            owned, owner = self._cache.claim(submission_key(submission))
        except Unkeyable:  # a value with no canonical encoding: judged without the cache
            owned, owner = Future(), True
        if not owner:
            return owned
        self._loop.call_soon_threadsafe(self._enqueue, _Work(submission, owned))
        view: Future[JudgeResult] = Future()  # the caller's own: cancelling it (asyncio) cancels no judgement
        def hand_over(done: Future[JudgeResult]) -> None:
            if not view.done():
                view.set_result(done.result())

        owned.add_done_callback(hand_over)
        return view

    def _submit_safely(self, submission: Submission) -> Future[JudgeResult]:
        try:
            return self._submit(submission)
        except Exception as exc:  # judge_many never raises mid-stream: the submission is SE
            future: Future[JudgeResult] = Future()
            future.set_result(failed(submission, f"the Ray judge failed: {type(exc).__name__}: {exc}"))
            return future

    # -- on the dispatcher's loop -----------------------------------------------------------------------

    def _enqueue(self, work: _Work) -> None:
        self._counts["submissions"] += 1
        self._counts["cases"] += work.cases
        self._queue.append(work)
        self._pump()

    def _pump(self) -> None:
        """Send batches while some actor has room, the least loaded first."""
        while self._queue:
            open_ = [m for m in self._members.values() if m.ready and m.in_flight < m.capacity]
            if not open_:
                return
            member = min(open_, key=lambda m: m.in_flight / m.capacity)
            batch: list[_Work] = []
            cases = 0
            target = max(1, min(member.slots, member.capacity - member.in_flight))
            while self._queue and (not batch or (cases + self._queue[0].cases <= target and
                                   not batch[0].alone and not self._queue[0].alone)):
                work = self._queue.popleft()
                batch.append(work)
                cases += work.cases
            member.in_flight += cases
            self._sent.update(batch)
            self._counts["batches"] += 1
            self._loop.create_task(self._send(member, batch, cases))

    async def _send(self, member: _Member, batch: list[_Work], cases: int) -> None:
        try:
            try:
                call = member.handle.judge_batch.remote([w.submission for w in batch], process_caller())
            except Exception as exc:  # it cannot be sent (a value that does not pickle): no actor is at fault
                self._unsendable(batch, exc)
                return
            results = await call
        except Exception as exc:
            self._call_failed(member, batch, exc)
        else:
            self._judged_by_node[member.node_id] = self._judged_by_node.get(member.node_id, 0) + cases
            for work, result in zip(batch, results):
                self._settle(work, result)
        finally:
            member.in_flight -= cases
            self._sent.difference_update(batch)
            self._pump()

    def _unsendable(self, batch: list[_Work], exc: BaseException) -> None:
        """A submission that cannot be sent is SE on its own: its batch-mates go again, each alone."""
        if len(batch) == 1:
            self._settle(batch[0], failed(batch[0].submission, f"it cannot be sent to a Ray actor: {_cause(exc)}"))
            return
        self._isolate(batch)

    def _isolate(self, batch: list[_Work]) -> None:
        for work in reversed(batch):
            work.alone = True
            self._counts["retries"] += 1
            self._queue.appendleft(work)

    def _call_failed(self, member: _Member, batch: list[_Work], exc: BaseException) -> None:
        cause = _cause(exc)
        if self._is_death(exc):
            self._drop(member, cause)
        elif len(batch) > 1:  # something in the batch, not the actor: each goes again alone to find which
            self._isolate(batch)
            return
        for work in reversed(batch):  # back to the front of the queue, in their order
            work.attempts += 1
            if work.attempts >= self.attempts:
                self._settle(work, failed(work.submission, f"judged on {work.attempts} Ray actors, each "
                                                           f"failed; the last: {cause}"))
            else:
                self._counts["retries"] += 1
                self._queue.appendleft(work)
        log.warning("judgebox ray: a batch of %d submissions failed on node %s (%s); retrying", len(batch),
                    member.node_id[:12], cause)

    def _settle(self, work: _Work, result: JudgeResult) -> None:
        if result.verdict is Verdict.SE:
            self._counts["se"] += 1
            log.warning("judgebox ray: SE: %s", result.message or (result.cases[-1].message if result.cases else ""))
        if not work.result.done():
            work.result.set_result(result)

    def _is_death(self, exc: BaseException) -> bool:
        errors = self._ray.exceptions
        return isinstance(exc, (errors.RayActorError, errors.NodeDiedError, errors.WorkerCrashedError))

    # -- following the cluster --------------------------------------------------------------------------

    async def _refresh_forever(self) -> None:
        while not self._closed:
            try:
                await self._refresh()
            except Exception:  # a GCS hiccup: the next round tries again
                log.exception("judgebox ray: reading the cluster's nodes failed")
            await asyncio.sleep(self.refresh_seconds)

    async def _refresh(self) -> None:
        nodes = await self._loop.run_in_executor(None, self._ray.nodes)
        alive = {n["NodeID"]: n for n in nodes if n.get("Alive") and n.get("Resources", {}).get("CPU", 0) >= 1}
        for node_id, member in list(self._members.items()):
            if node_id not in alive:
                self._drop(member, "its node left the cluster")
        now = time.monotonic()
        for node_id, node in alive.items():
            if node_id not in self._members and self._broken_nodes.get(node_id, 0) <= now and not self._closed:
                self._start(node_id, int(node["Resources"]["CPU"]))
        self._fail_if_stalled(now)

    def _start(self, node_id: str, cpus: int) -> None:
        slots = self.slots or cpus
        # One actor a node for the whole cluster, named by its node: every RayJudge (each reward worker
        # process has one) shares it rather than starting another sandbox pool on the same cores.
        handle = self._actor.options(
            name=f"judgebox-node-{node_id}", namespace=NAMESPACE, get_if_exists=True,
            # reserved: the CPUs its slots use, at most the node's (more slots than CPUs is the caller's choice)
            scheduling_strategy=self._affinity(node_id, soft=False),
            num_cpus=min(slots, cpus) if self.reserve_cpus else 0, max_concurrency=64,
            max_restarts=0, max_task_retries=0).remote(slots, self._token)
        member = self._members[node_id] = _Member(node_id, handle, slots)
        self._counts["actors_started"] += 1
        self._loop.create_task(self._await_ready(member))

    async def _await_ready(self, member: _Member) -> None:
        try:
            info = await member.handle.ready.remote()
            if info["node_id"] != member.node_id:
                raise JudgeboxError(f"the actor placed on node {member.node_id} runs on {info['node_id']}")
        except Exception as exc:
            log.error("judgebox ray: the judge on node %s did not start: %s", member.node_id[:12], _cause(exc))
            self._broken_nodes[member.node_id] = time.monotonic() + 10 * self.refresh_seconds
            self._drop(member, _cause(exc))
            return
        if self._members.get(member.node_id) is member:
            member.info, member.slots, member.ready = info, info["slots"], True
            log.info("judgebox ray: node %s judges with %d slots", member.node_id[:12], member.slots)
            self._pump()

    def _drop(self, member: _Member, cause: str, end: bool = True) -> None:
        """Forget ``member`` (its calls in flight fail and are retried) and, if ``end``, end its actor."""
        if self._members.get(member.node_id) is not member:
            return
        del self._members[member.node_id]
        self._counts["actors_lost"] += 1
        log.warning("judgebox ray: dropped the judge of node %s: %s", member.node_id[:12], cause)
        if not end:
            return
        try:
            self._ray.kill(member.handle, no_restart=True)
        except Exception:  # already gone
            pass

    def _fail_if_stalled(self, now: float) -> None:
        if not self._queue or any(m.ready for m in self._members.values()):
            self._stalled_since = None
            return
        self._stalled_since = self._stalled_since or now
        if now - self._stalled_since >= STALL_SECONDS:
            while self._queue:
                work = self._queue.popleft()
                self._settle(work, failed(work.submission, f"no judge actor was ready on the Ray cluster for "
                                                           f"{STALL_SECONDS:.0f} s"))

    async def _run_code(self, bodies: list[dict[str, Any]]) -> list[RunCodeResult]:
        cause = "no judge actor is ready on the Ray cluster"
        for _ in range(self.attempts):
            ready = [m for m in self._members.values() if m.ready]
            if not ready:
                await asyncio.sleep(self.refresh_seconds)
                continue
            member = min(ready, key=lambda m: m.in_flight / m.capacity)
            member.in_flight += len(bodies)  # runs of its slots as a batch's cases are: the next goes elsewhere
            try:
                replies: list[RunCodeResult] = await member.handle.run_code.remote(bodies, process_caller())
                return replies
            except Exception as exc:
                cause = _cause(exc)
                self._counts["retries"] += 1
                if self._is_death(exc):
                    self._drop(member, cause)
            finally:
                member.in_flight -= len(bodies)
                self._pump()
        return [RunCodeResult(None, f"API Call Failed: Ray judge: {cause}")] * len(bodies)

    async def _shut(self) -> None:
        self._refresher.cancel()
        for member in list(self._members.values()):  # another judge's actors go on serving it
            self._drop(member, "the judge was closed", end=member.info.get("creator") == self._token)
        for work in [*self._queue, *self._sent]:  # nothing is left waiting: the loop stops after this
            self._settle(work, failed(work.submission, "the Ray judge was closed before judging it"))
        self._queue.clear()


def _cause(exc: BaseException) -> str:
    first = next(iter(str(exc).strip().splitlines()), "")
    return f"{type(exc).__name__}: {first[:300]}"
