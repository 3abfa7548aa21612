"""Judge each distinct submission once: a content key for a submission, and a cache of results by key.

A GRPO step samples 16 completions of each prompt, and models repeat themselves: the same program, on the
same tests, under the same limits and checking, would be judged several times in one batch and again in
later epochs. :func:`submission_key` names everything that decides a submission's verdict;
:class:`ResultCache` keeps recent results by that key and shares a judgement in progress, so identical
submissions judged at the same time cost one judgement.

    cache = ResultCache()
    future, owner = cache.claim(submission_key(submission))
    if owner:                      # nobody judged it recently: this caller judges and settles the future
        future.set_result(judge(submission))      # or set_exception(exc), or cancel() to give up
    result = future.result()       # everyone else: the owner's result (Abandoned: claim again)

:meth:`ResultCache.run` and :meth:`ResultCache.run_async` do exactly that, claiming again after an owner
gave up; :class:`judgebox.Judge` judges every submission through them.

What is kept, and what a program can tell:

- The key is a SHA-256 over a canonical, type-tagged encoding of the whole submission (code, language,
  every case's fields, limits, checking, any checker or interactor program's source, stop_on_first_failure),
  and of the judge's own settings (its :class:`SandboxConfig`, the testlib folder it read), so two
  submissions share an entry only when nothing that decides the verdict differs. Values are tagged by exact
  type: ``1``, ``1.0`` and ``True`` as an expected value are three keys, as the ``value`` checker tells them
  apart; an object of any other type (a subclass of ``int``, a NumPy scalar) is :class:`Unkeyable`, and its
  submission is judged without the cache.
- A hit runs nothing, so a program cannot observe whether it was cached, and it cannot reach another
  sample's entry: a different program is a different key.
- The rule that keeps caching reward-neutral: **a key's first judgement is its verdict, whatever it was**
  (SE aside, which says nothing of the program: never kept, the next claim judges again). Every copy of a
  program then gets one draw of the distribution it would get judged alone, so its expected reward with
  the cache equals its expected reward without it, for a program that reads the clock or randomness, races
  threads or loops in some runs alike. A rule that re-judged some verdicts and not others would not be
  neutral: keeping AC while re-judging TLE (until a lucky run is kept) raises a flaky program's reward to
  1, and so would any "judge again until two runs agree" rule, for programs that pass more often than not.
  So TLE is kept too: a correct program that a loaded machine pushed past its CPU limit keeps that TLE for
  the cache's life, as the copies judged during the load would have. The price of neutrality is variance:
  the copies of one key share one draw (tests/adversarial/shared_work/test_shared_work.py measures the AC share
  with and without the cache on flaky programs).
- Entries serve only the caller that produced them (:mod:`judgebox.callers`: the caller is part of the key),
  so a cached result never carries another caller's output or timings, nor tells one caller what another
  judged.
- Entries are dropped least recently used first, past ``max_entries`` or ``max_bytes`` (a result's
  retained stdout, stderr and messages, and a fixed estimate per record).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import hashlib
import struct
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future, InvalidStateError
from contextlib import contextmanager
from typing import Any

from judgebox.errors import InvalidInput, JudgeClosed
from judgebox.types import JudgeResult
from judgebox.verdicts import Verdict

__all__ = ["Abandoned", "ResultCache", "Unkeyable", "retained_bytes", "submission_key"]

MiB = 1024 * 1024
ENCODING = b"judgebox-submission-key-1"  # changes with the encoding, so old keys never match new ones
RESULT_OVERHEAD, CASE_OVERHEAD = 512, 256  # bytes: an estimate of a JudgeResult's and a CaseResult's records


class Unkeyable(TypeError):
    """The submission holds a value with no canonical encoding (an object of a type the test data never
    has): it is judged without the cache."""


class Abandoned(Exception):
    """The owner of a judgement in progress gave up (its caller went away): claim the key again."""


# -- the key ----------------------------------------------------------------------------------------------

def submission_key(submission: Any, scope: Any = None) -> str:
    """The hex SHA-256 of everything that decides ``submission``'s verdict, and of ``scope`` (the judge's
    settings, when a cache could be shared by differently configured judges). Raises :class:`Unkeyable`
    for a value that has no canonical encoding."""
    digest = hashlib.sha256(ENCODING)
    _encode((submission, scope), digest.update)
    return digest.hexdigest()


_TAGS = {None: b"N", True: b"T", False: b"F"}
_SEQUENCES: dict[type, bytes] = {list: b"l", tuple: b"t", set: b"S", frozenset: b"Z"}
_BIG = 64 * 1024  # a payload this large goes to the digest as it is, not through the buffer


def _encode(value: Any, emit: Callable[[bytes], object]) -> None:
    """Emit a prefix-free, type-tagged encoding of ``value``, buffered (a large stdin is not copied). Walked
    with a stack of its own: test data may nest deeper than Python's recursion limit."""
    pending: list[Any] = [value]
    out = bytearray()
    while pending:
        item = pending.pop()
        kind: type = type(item)
        if kind is _Raw:
            out += item.data
        elif item is None or kind is bool:
            out += _TAGS[item]
        elif kind is int:
            data = item.to_bytes((item.bit_length() + 8) // 8, "big", signed=True)
            out += b"i" + _COUNT.pack(len(data)) + data
        elif kind is float:
            out += b"f" + _FLOAT.pack(item)  # -0.0 and 0.0 stay apart; the checker may tell them apart
        elif kind is str or kind is bytes:
            data = item.encode("utf-8", "surrogatepass") if kind is str else item
            out += (b"s" if kind is str else b"b") + _COUNT.pack(len(data))
            if len(data) < _BIG:
                out += data
            else:
                emit(bytes(out))
                out.clear()
                emit(data)
        elif kind is list or kind is tuple:
            out += _SEQUENCES[kind] + _COUNT.pack(len(item))
            pending.extend(reversed(item))
        elif kind is dict:  # in the order of the keys' encodings: equal dicts encode alike whatever their order
            out += b"d" + _COUNT.pack(len(item))
            pairs = sorted(((_whole(key), entry) for key, entry in item.items()), key=lambda pair: pair[0])
            pending.extend(reversed([part for key, entry in pairs for part in (_Raw(key), entry)]))
        elif kind is set or kind is frozenset:
            out += _SEQUENCES[kind] + _COUNT.pack(len(item))
            pending.extend(_Raw(element) for element in sorted(map(_whole, item), reverse=True))
        else:
            header, names = _layout(kind)
            out += header
            pending.extend(getattr(item, name) for name in reversed(names))
    emit(bytes(out))


@functools.cache
def _layout(kind: type) -> tuple[bytes, tuple[str, ...]]:
    """A judgebox record type's header (its name and its fields' names) and its fields, every one in order:
    a field added later is keyed with no change here."""
    if not (dataclasses.is_dataclass(kind) and kind.__module__.split(".")[0] == "judgebox"):
        raise Unkeyable(f"a {kind.__module__}.{kind.__qualname__} has no canonical encoding")
    names = tuple(f.name for f in dataclasses.fields(kind))
    layout = " ".join((f"{kind.__module__}.{kind.__qualname__}", *names)).encode()
    return b"D" + _COUNT.pack(len(layout)) + layout, names


@dataclasses.dataclass(frozen=True, slots=True)
class _Raw:
    """Bytes already encoded, fed to the digest as they are."""

    data: bytes


_COUNT, _FLOAT = struct.Struct(">Q"), struct.Struct(">d")


def _whole(value: Any) -> bytes:
    parts: list[bytes] = []
    _encode(value, parts.append)
    return b"".join(parts)


# -- the cache --------------------------------------------------------------------------------------------

def retained_bytes(result: JudgeResult) -> int:
    """What keeping ``result`` costs, as the cache counts it: the output and messages it holds, and an
    estimate per record."""
    return RESULT_OVERHEAD + len(result.message) + sum(
        CASE_OVERHEAD + len(case.stdout_raw) + len(case.stderr_raw) + len(case.message) for case in result.cases)


# A verdict that says nothing of the program: the judge's own failure. A result with one is shared with the
# identical submissions waiting for it, but not kept: the next one is judged afresh. Every other verdict is
# kept, TLE included, so that the cache never raises a program's expected reward (see the module's notes).
UNSTABLE = frozenset({Verdict.SE})


def keepable(result: JudgeResult) -> bool:
    """Every judgement but the judge's own failure is replayed."""
    return result.verdict not in UNSTABLE and all(case.verdict not in UNSTABLE for case in result.cases)


@dataclasses.dataclass(frozen=True)
class _Flight:
    """A judgement in progress: the owner's future, and what the owner said about itself to its waiters."""

    future: Future[JudgeResult]
    context: Any


class ResultCache:
    """Recent results by :func:`submission_key`, least recently used dropped first, and the judgements in
    progress; safe to use from many threads at once.

    :meth:`claim` returns a future of the key's result and whether the caller owns it. The owner judges and
    settles the future: ``set_result``, ``set_exception`` (the waiters get the exception; nothing is kept),
    or ``cancel()`` when its caller went away (the waiters get :class:`Abandoned` and claim again, so one
    of them judges; the key is not poisoned). Every waiter gets a future of its own, so a waiter that gives
    up, or is cancelled by ``asyncio.wrap_future``, cancels nothing of the others'.
    """

    def __init__(self, max_entries: int = 4096, max_bytes: int = 64 * MiB) -> None:
        for name, bound in (("max_entries", max_entries), ("max_bytes", max_bytes)):
            if type(bound) is not int or bound < 0:
                raise InvalidInput(f"{name} must be a whole number >= 0, got {bound!r}")
        self.max_entries, self.max_bytes = max_entries, max_bytes
        self._lock = threading.Lock()
        self._kept: OrderedDict[str, tuple[JudgeResult, int]] = OrderedDict()
        self._flying: dict[str, _Flight] = {}
        self._bytes = 0
        self._counts = dict.fromkeys(("hits", "misses", "shared_in_flight", "evictions", "not_kept"), 0)

    def claim(self, key: str) -> tuple[Future[JudgeResult], bool]:
        """The future of ``key``'s result, and True if the caller owns it (and must settle it)."""
        future, owner, _ = self._claim(key, None)
        return future, owner

    def run(self, key: str, judge: Callable[[], JudgeResult], context: Any = None,
            on_wait: Callable[[Any], Callable[[], object] | None] | None = None) -> JudgeResult:
        """``key``'s result: kept, or shared with its owner, or ``judge()``'s if this caller owns it.
        ``context`` is given to the waiters' ``on_wait`` before they wait on this caller's judgement; what
        that returns (if anything) is called when the wait is over."""
        while True:
            future, owner, leader = self._claim(key, context)
            if owner:
                with _owning(future):
                    future.set_result(result := judge())
                return result
            withdraw = on_wait(leader) if on_wait is not None else None
            try:
                return future.result()
            except Abandoned:
                continue
            finally:
                if withdraw is not None:
                    withdraw()

    async def run_async(self, key: str, judge: Callable[[], Awaitable[JudgeResult]], context: Any = None,
                        on_wait: Callable[[Any], Callable[[], object] | None] | None = None) -> JudgeResult:
        """The awaitable twin of :meth:`run`; a waiter waits without occupying a thread."""
        while True:
            future, owner, leader = self._claim(key, context)
            if owner:
                with _owning(future):
                    future.set_result(result := await judge())
                return result
            withdraw = on_wait(leader) if on_wait is not None else None
            try:
                return future.result() if future.done() else await asyncio.wrap_future(future)
            except Abandoned:
                continue
            finally:
                if withdraw is not None:
                    withdraw()

    def stats(self) -> dict[str, int]:
        """``hits`` (claims answered by a kept result), ``misses`` (claims that owned a judgement),
        ``shared_in_flight`` (claims that waited on one in progress), ``entries`` and ``bytes`` kept,
        ``in_flight``, ``evictions`` and ``not_kept`` (SE results, exceptions, abandoned judgements)."""
        with self._lock:
            return {**self._counts, "entries": len(self._kept), "bytes": self._bytes, "in_flight": len(self._flying)}

    def _claim(self, key: str, context: Any) -> tuple[Future[JudgeResult], bool, Any]:
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
                self._counts["hits"] += 1
                done: Future[JudgeResult] = Future()
                done.set_result(kept[0])
                return done, False, None
            flight = self._flying.get(key)
            if flight is not None:
                self._counts["shared_in_flight"] += 1
                view: Future[JudgeResult] = Future()
                flight.future.add_done_callback(functools.partial(_relay, view))
                return view, False, flight.context
            self._counts["misses"] += 1
            owned: Future[JudgeResult] = Future()
            self._flying[key] = _Flight(owned, context)
            # Registered before any waiter's relay, so the entry is settled before a waiter could claim again.
            owned.add_done_callback(functools.partial(self._settle, key))
            return owned, True, None

    def _settle(self, key: str, owned: Future[JudgeResult]) -> None:
        with self._lock:
            flight = self._flying.get(key)
            if flight is not None and flight.future is owned:
                del self._flying[key]
            result = None if owned.cancelled() or owned.exception() is not None else owned.result()
            if result is None or not keepable(result):
                self._counts["not_kept"] += 1
                return
            size = retained_bytes(result)
            if size > self.max_bytes or not self.max_entries:
                self._counts["evictions"] += 1  # larger than the whole cache: dropped at once
                return
            self._kept[key] = (result, size)
            self._bytes += size
            while len(self._kept) > self.max_entries or self._bytes > self.max_bytes:
                _, (_, dropped) = self._kept.popitem(last=False)
                self._bytes -= dropped
                self._counts["evictions"] += 1


@contextmanager
def _owning(future: Future[JudgeResult]) -> Iterator[None]:
    """The owner's judgement settles its future whatever happens: its exception reaches the waiters; its
    caller going away (cancellation, KeyboardInterrupt) or its judge closing before it ran (a waiter's
    judge, if the cache is shared, may be open) lets a waiter judge instead."""
    try:
        yield
    except JudgeClosed:
        future.cancel()
        raise
    except Exception as exc:
        future.set_exception(exc)
        raise
    except BaseException:
        future.cancel()
        raise


def _relay(view: Future[JudgeResult], owned: Future[JudgeResult]) -> None:
    """A waiter's own future gets the owner's outcome."""
    try:
        if owned.cancelled():
            view.set_exception(Abandoned("the judgement this waited for was abandoned by its caller"))
        elif owned.exception() is not None:
            view.set_exception(owned.exception())
        else:
            view.set_result(owned.result())
    except InvalidStateError:  # the waiter gave up on its future first
        pass
