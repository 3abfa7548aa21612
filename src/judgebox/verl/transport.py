"""Where judgebox.verl's programs run, chosen by the ``sandbox_fusion_url`` verl passes:

    None or "local"                 Embedded: the process-wide judge of this process (one worker pool,
                                    however many reward threads call in)
    judgebox://host:port[/prefix]   JudgeboxServer: a ``judgebox serve``; judgebox+https:// for TLS
    http(s)://host:port/run_code    RunCodeServer: any SandboxFusion-compatible server, the URL used as
                                    given; a judgebox server behind it is recognised by its /health
    ray:// or ray://host:port       RayCluster: every node of a Ray cluster (the one this process is on, or
                                    the one whose GCS is at host:port, as ``ray start --address`` names it)

Several servers of one kind, balanced by one client (:mod:`judgebox.balance`): ``judgebox://h1:p1,h2:p2``
(a later item without a scheme takes the first one's), ``http://h1:p1/run_code,http://h2:p2/run_code``,
or a list (a Python list, or verl's config list) of such URLs.

Every transport answers ``run_code(bodies, semaphore)`` with one ``(response, error)`` pair per
SandboxFusion request body, as verl's ``call_sandbox_api`` does; judgebox transports also ``judge`` whole
submissions. Transports are kept per process and URL: a forked or pickled-then-rebuilt caller opens its own.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import ValidationError

from .. import balance, checkers
from ..client import Client, ClientError, DeadlineExceeded, ServerUnavailable
from ..errors import InvalidCases
from ..judging import default_judge
from ..server import translate
from ..server.schemas import RunCodeRequest, RunCodeResponse
from ..types import JudgeResult, Submission

Reply = tuple[dict[str, Any] | None, str | None]  # a SandboxFusion answer, or why there is none
DEFAULT_MEMORY_MB = 1024  # memory_limit_MB -1, as judgebox serve answers it
OUTPUT_BYTES = 64 * 1024 * 1024
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


class Embedded:
    """Programs run in this process's own sandbox slots."""

    kind = "embedded"

    def run_code(self, bodies: list[dict[str, Any]], semaphore: Any = None) -> list[Reply]:
        """All of a sample's requests are started at once (the pool queues them) under one hold of the
        semaphore; the pool, not the semaphore, bounds the work."""
        with held(semaphore):
            pending = [self._start(body) for body in bodies]
            return [finish() for finish in pending]

    def judge(self, submission: Submission, semaphore: Any = None) -> JudgeResult:
        with held(semaphore):
            return default_judge().judge_submission(submission)

    @staticmethod
    def _start(body: dict[str, Any]) -> Callable[[], Reply]:
        """Queue one request; the returned function waits for its answer."""
        try:
            request = RunCodeRequest.model_validate(body)
        except ValidationError as exc:
            invalid = f"API Call Failed: API Request Error: invalid request: {exc}"
            return lambda: (None, invalid)
        spec = translate.run_code_language(request.language, default_judge().programs)
        if isinstance(spec, str):
            refused = RunCodeResponse(status="SandboxError", message=spec).model_dump(mode="json")
            return lambda: (refused, None)
        try:
            arguments = translate.run_once_arguments(spec, request, DEFAULT_MEMORY_MB, OUTPUT_BYTES)
            built, future = default_judge().programs.run_once(*arguments)
        except Exception as exc:  # the judge itself failed (no isolation here, a broken slot): not the program
            failure = _judge_failed(exc)
            return lambda: (None, failure)

        def finish() -> Reply:
            try:
                outcome = future.result() if future is not None else None
            except Exception as exc:
                return None, _judge_failed(exc)
            return translate.run_code_response(spec, built, outcome, 0.0, None).model_dump(mode="json"), None
        return finish


def _judge_failed(exc: Exception) -> str:
    return f"API Call Failed: Unexpected Error: {type(exc).__name__}: {exc}"


class RunCodeServer:
    """A SandboxFusion-compatible server: one ``POST`` per request body to the URL as given, over pooled
    keep-alive connections, retried with backoff and jitter on 429/502/503/504 and connection errors."""

    kind = "run_code"

    def __init__(self, url: str | Sequence[str], token: str | None = "") -> None:
        splits = [urlsplit(one) for one in balance.endpoint_urls(url)]
        if len({parts.path for parts in splits}) > 1:
            raise ValueError(f"sandbox_fusion_url {url!r}: several servers must all name the same path")
        self.path = "/" + splits[0].path.rpartition("/")[2]
        bases = [urlunsplit((parts.scheme, parts.netloc, parts.path.rpartition("/")[0], "", "")) for parts in splits]
        # no token by default: $JUDGEBOX_TOKEN is for judgebox servers, not for someone else's
        self.client = Client(bases, token=token, timeout=60, max_attempts=4)

    def run_code(self, bodies: list[dict[str, Any]], semaphore: Any = None) -> list[Reply]:
        """One request per body, each under the semaphore (as verl holds it, per case)."""
        if len(bodies) == 1:
            return [self._post(bodies[0], semaphore)]
        return list(_requests().map(lambda body: self._post(body, semaphore), bodies))

    def _post(self, body: dict[str, Any], semaphore: Any) -> Reply:
        deadline = body.get("compile_timeout", 10) + body.get("run_timeout", 10) + 30
        try:
            with held(semaphore):
                reply = self.client.post_json(self.path, body, deadline)
        except ClientError as exc:
            return None, f"API Call Failed: API Request Error: {exc}"
        if not isinstance(reply, dict):
            return None, f"API Call Failed: API Response is not a JSON object: {str(reply)[:200]}"
        return reply, None


class JudgeboxServer(RunCodeServer):
    """A ``judgebox serve``: /run_code per case, or one /judge request per sample."""

    kind = "judgebox"

    def __init__(self, base_url: str | Sequence[str]) -> None:
        bases = balance.endpoint_urls(base_url)
        super().__init__([base + "/run_code" for base in bases], token=None)  # None: $JUDGEBOX_TOKEN
        self.judge_client = Client(bases, timeout=600, max_attempts=4)  # the same endpoints: one shared pool

    def judge(self, submission: Submission, semaphore: Any = None) -> Any:
        """The server's /judge answer (a JudgeReply); raises judgebox.client.ClientError, and InvalidCases for
        an interactive problem (/judge takes cases, not an interactor: judged without it, a program that
        prints nothing would pass every case)."""
        if submission.interactor is not None:
            raise InvalidCases("an interactive problem needs the embedded judge or ray:// (sandbox_fusion_url=None): "
                               "a judgebox server's /judge takes no interactor")
        limits = submission.limits
        with held(semaphore):
            return self.judge_client.judge(
                submission.code, cases=list(submission.cases), language=submission.language, limits=limits,
                checker=checkers.parse(submission.checker).setting(),
                stop_on_first_failure=submission.stop_on_first_failure,
                deadline=60 + 3 * limits.wall_backstop * len(submission.cases))


class RayCluster:
    """A Ray cluster: the process-wide :class:`judgebox.backends.ray.RayJudge` of ``address`` (None: the cluster
    this process is on), which judges on every node's sandbox slots."""

    kind = "ray"

    def __init__(self, address: str | None) -> None:
        self.address = address

    def judge(self, submission: Submission, semaphore: Any = None) -> JudgeResult:
        from ..backends.ray import ray_judge

        with held(semaphore):
            return ray_judge(self.address).judge_submission(submission)

    def run_code(self, bodies: list[dict[str, Any]], semaphore: Any = None) -> list[Reply]:
        from ..backends.ray import ray_judge

        with held(semaphore):
            return ray_judge(self.address).run_code(bodies)


Transport = Embedded | RunCodeServer | JudgeboxServer | RayCluster
_transports: dict[tuple[int, str | None], Transport] = {}
_lock = threading.Lock()
_executors: dict[int, ThreadPoolExecutor] = {}


def transport_for(url: str | None) -> Transport:
    """The transport of a ``sandbox_fusion_url``, made once per process."""
    key = (os.getpid(), tuple(url) if _several(url) else url)
    with _lock:
        transport = _transports.get(key)
    if transport is None:
        transport, keep = _make(url)
        if keep:
            with _lock:
                transport = _transports.setdefault(key, transport)
    return transport


def _make(url: str | None) -> tuple[Transport, bool]:
    """The transport, and whether it may be kept for the next calls."""
    if url is None or url == "local":
        return Embedded(), True
    if isinstance(url, str) and url.startswith("ray://"):
        return RayCluster(url[len("ray://"):] or None), True
    if not isinstance(url, str) and not _several(url):
        raise TypeError(f"sandbox_fusion_url must be a URL, several, 'local' or None, got {type(url).__name__}")
    urls = _same_scheme(balance.endpoint_urls(url))
    scheme = urlsplit(urls[0]).scheme
    if scheme in ("judgebox", "judgebox+https"):
        plain = "https" if scheme == "judgebox+https" else "http"
        return JudgeboxServer([plain + one[len(scheme):] for one in urls]), True
    if scheme not in ("http", "https"):
        raise ValueError(f"sandbox_fusion_url {url!r}: expected http(s)://.../run_code, judgebox://host:port, "
                         "'local' or None")
    server = RunCodeServer(urls)
    if server.path != "/run_code":
        return server, True
    judgebox = _is_judgebox(server.client)
    if judgebox:
        return JudgeboxServer([one[: -len("/run_code")] for one in urls]), True
    return server, judgebox is not None  # unreachable now: ask again next time


def _several(url: object) -> bool:
    """A list of URLs (a Python list or tuple, or verl's config list, which is a Sequence)."""
    return isinstance(url, Sequence) and not isinstance(url, (str, bytes))


def _same_scheme(urls: tuple[str, ...]) -> list[str]:
    """The URLs with the first one's scheme given to those without one; several kinds at once are refused."""
    scheme = urlsplit(urls[0]).scheme
    full = [one if "://" in one else f"{scheme}://{one}" for one in urls]
    if any(urlsplit(one).scheme != scheme for one in full):
        raise ValueError(f"sandbox_fusion_url {', '.join(urls)!r}: several servers must be of one kind (one scheme)")
    return full


def _is_judgebox(client: Client) -> bool | None:
    """Whether the server at ``client``'s base URL is a judgebox (its /health lists isolation and slots);
    None when it cannot be reached."""
    try:
        health = client.health(deadline=10)
    except (ServerUnavailable, DeadlineExceeded):
        return None
    except ClientError:  # it answered, but not as a judgebox does
        return False
    return isinstance(health, dict) and "isolation" in health and "slots" in health


def _requests() -> ThreadPoolExecutor:
    pid = os.getpid()
    with _lock:
        if pid not in _executors:
            _executors[pid] = ThreadPoolExecutor(REQUEST_THREADS, thread_name_prefix="judgebox-verl")
        return _executors[pid]
