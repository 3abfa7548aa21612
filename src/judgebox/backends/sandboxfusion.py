"""A SandboxFusion-compatible ``/run_code`` server: the one foreign transport.

It runs programs, not submissions: judgebox.verl's presets send it one request per case (checking the
answers here), and a ``judgebox serve`` answers its ``/run_code`` the same way (:class:`ServerJudge`
sends through one of these). Requests go over the balanced client's pooled keep-alive connections,
retried with backoff and jitter on 429/502/503/504 and connection errors.

The HTTP client loads when a server is named (:meth:`RunCodeServer.at`): the embedded judge's callers
(judgebox.verl, judgebox.rewards) import this module, for :func:`held` and to tell this transport from a
backend, and never load httpx.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from judgebox.backend import RunCodeResult
from judgebox.errors import ClientError, UnknownAddress

if TYPE_CHECKING:
    from judgebox.client import Client

REQUEST_THREADS = 64  # per process, for per-case HTTP requests of all samples together


@contextmanager
def held(semaphore: Any) -> Iterator[None]:
    """Hold verl's ``concurrent_semaphore``: None, a threading.Semaphore or a multiprocessing.Manager proxy."""
    if semaphore is None:
        yield
        return
    semaphore.acquire()
    try:
        yield
    finally:
        semaphore.release()


class RunCodeServer:
    """POSTs SandboxFusion request bodies to ``path`` on ``client``'s endpoints."""

    def __init__(self, client: Client, path: str = "/run_code") -> None:
        self.client, self.path = client, path

    @classmethod
    def at(cls, url: str | Sequence[str]) -> RunCodeServer:
        """The server(s) of a ``/run_code`` URL, the path used as given (several must name the same one)."""
        from judgebox.client import Client, balance  # the HTTP client, for a server named now

        splits = [urlsplit(one) for one in balance.endpoint_urls(url)]
        if len({parts.path for parts in splits}) > 1:
            raise UnknownAddress(f"{url!r}: several servers must all name the same path")
        bases = [urlunsplit((parts.scheme, parts.netloc, parts.path.rpartition("/")[0], "", "")) for parts in splits]
        # no token by default: $JUDGEBOX_TOKEN is for judgebox servers, not for someone else's
        return cls(Client(bases, token="", timeout=60, max_attempts=4, declare_caller=False),
                   "/" + splits[0].path.rpartition("/")[2])

    def run_code(self, requests: list[dict[str, Any]], semaphore: Any = None) -> list[RunCodeResult]:
        """One request per body, each under ``semaphore`` (as verl holds it, per case), all at once."""
        if len(requests) == 1:
            return [self._post(requests[0], semaphore)]
        return list(_requests().map(lambda body: self._post(body, semaphore), requests))

    def close(self) -> None:
        self.client.close()

    def _post(self, body: dict[str, Any], semaphore: Any) -> RunCodeResult:
        deadline = body.get("compile_timeout", 10) + body.get("run_timeout", 10) + 30
        try:
            with held(semaphore):
                reply = self.client.post_json(self.path, body, deadline)
        except ClientError as exc:
            return RunCodeResult(None, f"API Call Failed: API Request Error: {exc}")
        if not isinstance(reply, dict):
            return RunCodeResult(None, f"API Call Failed: API Response is not a JSON object: {str(reply)[:200]}")
        return RunCodeResult(reply, None)


_executors: dict[int, ThreadPoolExecutor] = {}
_lock = threading.Lock()


def _requests() -> ThreadPoolExecutor:
    pid = os.getpid()  # a forked process makes its own: its parent's threads did not come with it
    with _lock:
        if pid not in _executors:
            _executors[pid] = ThreadPoolExecutor(REQUEST_THREADS, thread_name_prefix="judgebox-run-code")
        return _executors[pid]
