"""The HTTP client of ``judgebox serve``: :class:`Client` (thread-safe) and its asyncio twin :class:`AsyncClient`.

    from judgebox.client import Client

    with Client("http://127.0.0.1:8080") as client:
        client.run_code("print(input()[::-1])", stdin="abc").run_result.stdout        # 'cba\\n'
        client.judge("print(int(input()) * 2)", cases=[{"stdin": "2", "expected_output": "4"}]).verdict  # 'AC'

The base URL may name several servers (a list, one string joined by commas, or a host name that resolves
to several addresses): requests are balanced over them, a failed one ejected and checked until it is back,
and the requests in flight to them bounded by one budget for the whole process (:mod:`judgebox.balance`;
``client.endpoints()`` shows each one's counts). Each object keeps one pool of keep-alive connections.
The token (``token=``, else ``$JUDGEBOX_TOKEN``) goes as ``Authorization: Bearer <token>``. Each call
sends its own ``X-Request-ID`` (the same on all its attempts), kept as ``request_id`` on the answer or the
exception, to find the call in the server's log.

Each call has a deadline: ``deadline=`` seconds, by default the client's ``timeout``. HTTP 429, 502, 503, 504
and transport errors (refused or dropped connections, protocol errors, connect timeouts) are retried, up to
``max_attempts`` attempts (at least one per endpoint), after the server's ``Retry-After`` or an exponential
backoff with full jitter; a retry goes at once to another endpoint when there is one the call has not tried.
No sleep runs past the deadline, and no attempt's wait. How long an attempt may wait depends on the path:

- ``/judge`` and ``/judge/batch`` go with ``X-Judgebox-Keepalive: 1``, and a judgebox server keeps such a
  request visibly alive while it judges (a whitespace byte every ``KEEPALIVE`` seconds before /judge's JSON,
  a blank line between /judge/batch's lines). An attempt there has all the time left, as long as bytes keep
  coming: ``IDLE_TIMEOUT`` without one (an endpoint whose /health is fine and whose requests hang, before or
  after its headers) is that endpoint's failure, and the call goes on elsewhere within its deadline; a slow
  program on a live endpoint keeps its attempt until the deadline (checked between the bytes), which ejects
  nothing. A 200 kept alive whose JSON is ``{"detail": ..., "status": 504, "retry": true}`` (the server
  overloaded after it committed to 200) is a 504 with ``Retry-After: 1``.
- any other path (SandboxFusion's ``/run_code``, whose servers send no such bytes): an attempt's timeouts are
  the time left, or half of it (``ATTEMPT_SHARE``) while another endpoint is left for the call to try, so an
  endpoint that never answers costs half the time and the other half asks the next one; such a timeout is
  that endpoint's failure.

A ``/judge/batch`` stream that breaks midway is sent again with only the
submissions whose lines had not come, to another endpoint when there is one. A judge-side SE answer (a
/judge result's SE, a /run_code ``SandboxError``, a batch line's SE or error) is asked again of an endpoint
the call has not tried, at once, when the pool doubts it (:meth:`judgebox.balance.Pool.doubts`: an endpoint
whose sandbox fails while the others' do not), and the first answer that is not SE is the call's; the SE
answer is given when no other endpoint answers in time. Retrying is safe because every call is pure:
/run_code and /judge run the same program on the same input under the same limits, and a run twice gives the
same verdict, so an answer lost with a dying server is asked of the next one, and SE is never a verdict on
the program. Exceptions, all with ``request_id``:

    ClientError              base of them all
    ├── BadAnswer            a success status whose answer does not parse (a batch stream's lines included),
    │                        from every endpoint tried: such an endpoint is not a working judgebox, so
    │                        it counts towards its ejection and the call goes to an untried one if any
    ├── ServerRejected       any other non-2xx answer (4xx but 429, 500, ...), not retried: ``status``, ``detail``
    ├── ServerUnavailable    still failing after its attempts (every endpoint down or overloaded):
    │                        ``attempts``, ``status`` and ``detail`` of the last answer (None after a transport error)
    └── DeadlineExceeded     the deadline passed, or the next attempt could not start before it (a TimeoutError)

Answers are the models of :mod:`judgebox.server.schemas`, subclassed only to carry ``request_id``.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import random
import time
import uuid
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import Any, TypeVar

import httpx
from pydantic import ValidationError

from . import __version__, balance, callers
from .balance import Endpoint, Lease
from .client_answers import (
    BadAnswer,
    BatchReply,
    ClientError,
    DeadlineExceeded,
    JudgeReply,
    RunCodeReply,
    ServerRejected,
    ServerUnavailable,
    _Traced,
)
from .client_bodies import judge_body, run_code_body, submission_body
from .server.schemas import JudgeResponse, LimitsModel, RunCodeResponse
from .types import Case, Limits, Submission

__all__ = ["AsyncClient", "BadAnswer", "BatchReply", "Client", "ClientError", "DeadlineExceeded", "JudgeReply",
           "RunCodeReply", "ServerRejected", "ServerUnavailable"]
RETRY_STATUSES = frozenset({429, 502, 503, 504})
ATTEMPT_SHARE = 0.5  # of the time left, an attempt's timeouts when another endpoint is left to try (no keepalive)
KEEPALIVE_HEADER = "X-Judgebox-Keepalive"  # "1": the server is to keep the request alive while it judges
KEEPALIVE_PATHS = frozenset({"/judge", "/judge/batch"})  # the paths the client asks it on
KEEPALIVE = 1.0  # seconds between a kept-alive request's whitespace bytes (the server's side)
IDLE_TIMEOUT = 3 * KEEPALIVE  # seconds without a byte after which a kept-alive attempt is its endpoint's failure


Reply = TypeVar("Reply", bound=_Traced)


class _Call:
    """One call's request id, deadline and attempts; decides whether and when to try again."""

    def __init__(self, owner: _Base, deadline: float | None, expected: int = 0, line_timeout: float | None = None,
                 path: str = "") -> None:
        self.owner, self.seconds = owner, owner.timeout if deadline is None else deadline
        self.line_timeout = line_timeout  # of a batch: the longest wait for its next line, while an attempt is left
        self.keepalive = path in KEEPALIVE_PATHS  # the server keeps the request alive: idle timeouts, no share
        self.ends = time.monotonic() + self.seconds
        self.lined = time.monotonic()  # when the last batch line came, or the attempt started
        self.request_id, self.attempts, self.expected = uuid.uuid4().hex, 0, expected
        self.last = ""  # the last failure, for messages
        self.tried: set[Endpoint] = set()
        self.received: set[int] = set()  # of a batch: the submissions whose lines came
        self.sent: list[int] = []  # of a batch: the submissions of the stream being read, in its order
        self.streamed: set[int] = set()  # of a batch: the submissions whose lines the stream being read gave
        self.reserved = False  # the last attempt's read timeout was short of the time left (its endpoint's failure)
        self.doubted: set[int] = set()  # the answers (a batch's indices; 0 for a call's) asked again after an SE
        self.held: dict[int, Any] = {}  # SE answers held back while another endpoint is asked (keys as doubted)

    def left(self) -> float:
        return self.ends - time.monotonic()

    def expired(self) -> DeadlineExceeded:
        last = f"; last failure: {self.last}" if self.last else ""
        return DeadlineExceeded(f"the deadline of {self.seconds:g} s passed after {self.attempts} attempt(s){last}",
                                self.request_id)

    def timeout(self) -> httpx.Timeout:
        """The next attempt's timeouts (its endpoint leased). Kept alive: ``IDLE_TIMEOUT`` per read (the call's
        deadline is checked between reads, :meth:`beat`). Else the time left, or ``ATTEMPT_SHARE`` of it when
        another attempt could go to an endpoint the call has not tried, which keeps the rest for it."""
        left = self.left()
        if left <= 0:
            raise self.expired()
        self.attempts += 1
        self.lined = time.monotonic()
        if self.keepalive:
            self.reserved = IDLE_TIMEOUT < left
            wait = min(IDLE_TIMEOUT, left)
            return httpx.Timeout(wait, connect=min(self.owner.connect_timeout, left), pool=left)
        self.reserved = not self.spent() and self.owner._pool.untried(self.tried)
        wait = min(left * ATTEMPT_SHARE, self.line_timeout or left) if self.reserved else left
        return httpx.Timeout(wait, connect=min(self.owner.connect_timeout, wait))

    def spent(self) -> bool:
        """Whether the call has made all its attempts."""
        return self.attempts >= max(self.owner.max_attempts, self.owner._pool.size())

    def retry(self, failure: httpx.Response | httpx.TransportError) -> float:
        """Seconds to wait before the next attempt; raises when there is to be none."""
        status = detail = delay = cause = None
        if isinstance(failure, httpx.Response):
            status, detail = failure.status_code, _detail(failure)
            if status not in RETRY_STATUSES:
                raise ServerRejected(status, detail, self.request_id)
            self.last, delay = f"HTTP {status}: {detail}", _retry_after(failure)
        else:
            self.last, cause = f"{type(failure).__name__}: {failure}", failure
            if isinstance(failure, httpx.UnsupportedProtocol):
                raise ClientError(str(failure), self.request_id) from failure
            if isinstance(failure, httpx.TimeoutException) and not isinstance(failure, httpx.ConnectTimeout) \
                    and not self.reserved:
                raise self.expired() from failure  # the attempt had all the time left: the deadline passed
        if self.spent():
            raise ServerUnavailable(f"no answer after {self.attempts} attempt(s); last failure: {self.last}",
                                    self.request_id, self.attempts, status, detail) from cause
        if self.owner._pool.untried(self.tried):
            return 0.0  # another endpoint: no reason to wait
        if delay is None:
            delay = random.uniform(0, min(self.owner.max_backoff, self.owner.backoff * 2 ** (self.attempts - 1)))
        if delay >= self.left():
            raise self.expired() from cause
        return delay

    def beat(self, chunk: bytes = b"") -> bytes:
        """A chunk of a kept-alive answer came (a batch's blank line: none): raises when the deadline passed
        during a keepalive, or (of a batch) no line came within ``line_timeout`` while another endpoint is left."""
        if chunk.isspace() or not chunk:
            if self.left() <= 0:
                raise self.expired()  # a live endpoint, slower than the caller: not its failure
            if self.line_timeout is not None and time.monotonic() - self.lined > self.line_timeout \
                    and not self.spent() and self.owner._pool.untried(self.tried):
                self.reserved = True
                raise httpx.ReadTimeout(f"no batch line within line_timeout={self.line_timeout:g} s")
        return chunk

    def kept_error(self, content: bytes) -> httpx.Response | None:
        """A kept-alive 200 whose JSON is an error the server met after committing to 200
        (``{"detail": ..., "status": 504, "retry": true}``), as the answer it stands for; else None."""
        if not self.keepalive or b'"status"' not in content or b'"detail"' not in content:
            return None
        try:
            answer = json.loads(content)
        except ValueError:
            return None
        if not isinstance(answer, dict) or "verdict" in answer or not isinstance(answer.get("status"), int):
            return None
        headers = {"Retry-After": "1"} if answer.get("retry") is True else {}
        return httpx.Response(answer["status"], json={"detail": answer.get("detail")}, headers=headers)

    def parse(self, content: bytes | str, model: type[Reply] | None = None) -> Any:
        """The answer as ``model`` (with the call's request id), or as plain JSON without one."""
        try:
            reply = model.model_validate_json(content) if model else json.loads(content)
        except (ValidationError, ValueError) as exc:
            expected = f"a {model.__name__}" if model else "JSON"
            raise BadAnswer(f"the server's answer is not {expected}: {exc}", self.request_id) from None
        if model:
            reply.request_id = self.request_id
        return reply

    def batch(self, submissions: list[dict]) -> dict:
        """The body of the next ``/judge/batch`` attempt: the submissions whose lines have not come (or came SE
        and are asked again)."""
        self.sent = [i for i in range(len(submissions)) if i not in self.received]
        self.streamed = set()
        return {"submissions": [submissions[i] for i in self.sent]}

    def line(self, text: str, lease: Lease) -> BatchReply | None:
        """A line of the stream, its index that of the call's own submissions; None for an SE line held back
        while another endpoint is asked."""
        if not text.strip():
            self.beat()  # a keepalive
            return None
        if self.left() <= 0:
            raise self.expired()
        self.lined = time.monotonic()
        reply = self.parse(text, BatchReply)
        if not 0 <= reply.index < len(self.sent) or self.sent[reply.index] in self.streamed:
            raise BadAnswer(f"the batch stream sent a line for index {reply.index}: not one of the {len(self.sent)} "
                              "submissions sent, or a second line for one", self.request_id)
        reply.index = self.sent[reply.index]
        self.streamed.add(reply.index)
        self.held.pop(reply.index, None)
        se = reply.result is None or reply.result.verdict == "SE"
        lease.judge(se)
        if se and self.doubt(lease.endpoint, reply.index):
            self.held[reply.index] = reply
            return None
        self.received.add(reply.index)
        return reply

    def finished(self, lease: Lease) -> list[BatchReply] | None:
        """The stream ended: the SE lines held back, to be given now that the call is done; None when they are
        to be asked of another endpoint (the stream's lease is ended either way)."""
        if len(self.streamed) != len(self.sent):
            raise BadAnswer(f"the batch stream ended after {len(self.streamed)} of {len(self.sent)} lines",
                              self.request_id)
        lease.answered()
        if self.held and not self.spent() and self.left() > 0 and self.owner._pool.untried(self.tried):
            return None
        return self.flush()

    def broken(self, lease: Lease, exc: httpx.TransportError | BadAnswer) -> float:
        """The stream broke (its connection, or a line that does not parse): seconds to wait before it is
        resumed; raises when it is not to be."""
        if isinstance(exc, BadAnswer):
            self.unusable(lease, exc)
            return 0.0
        _transport_failed(lease, exc)
        return self.retry(exc)

    def flush(self) -> list[BatchReply]:
        """The SE answers held back, given as they are: no other endpoint gave its own in time."""
        held, self.held = self.held, {}
        self.received.update(held)
        return list(held.values())

    def read(self, content: bytes, lease: Lease, model: type[Reply] | None) -> tuple[bool, Any]:
        """(True, the answer parsed), or (False, None) when another endpoint is to be asked: the answer does not
        parse, or it is an SE the pool doubts (held back, given if no other endpoint answers: :meth:`given_up`)."""
        try:
            reply = self.parse(content, model)
        except BadAnswer as exc:
            self.unusable(lease, exc)
            return False, None
        se = _judge_side_error(reply)
        if se is not None:
            lease.judge(se)
        lease.answered()
        if se and self.doubt(lease.endpoint, 0):
            self.held[0] = reply
            return False, None
        self.held.clear()
        return True, reply

    def given_up(self, exc: ClientError) -> Any:
        """The call's SE answer held back when asking another endpoint failed with ``exc``; raises ``exc``
        when there is none."""
        if 0 in self.held:
            return self.held.pop(0)
        raise exc

    def doubt(self, endpoint: Endpoint, index: int) -> bool:
        """Whether an SE answer (the call's, or of a batch's submission ``index``) from ``endpoint`` is to be
        asked of another endpoint: the pool doubts it, and there is one the call has not tried, an attempt
        and time left."""
        if self.spent() or self.left() <= 0 or not self.owner._pool.untried(self.tried):
            return False
        if not self.owner._pool.doubts(endpoint, first=index not in self.doubted):
            return False
        self.doubted.add(index)
        return True

    def unusable(self, lease: Lease, exc: BadAnswer) -> None:
        """An answer that does not parse: the endpoint's failure; the call goes on at once to an endpoint
        it has not tried (raises ``exc`` when there is none, as a sole server answering so would again)."""
        lease.failed(str(exc)[:200])
        self.last = str(exc)
        if self.spent() or not self.owner._pool.untried(self.tried):
            raise exc

    def lease(self, lease: Lease | None) -> Lease:
        if lease is None:
            raise self.expired()
        return lease


class _Base:
    def __init__(self, base_url: str | Sequence[str], token: str | None = None, timeout: float = 60.0,
                 max_attempts: int = 5, backoff: float = 0.25, max_backoff: float = 8.0, connect_timeout: float = 5.0,
                 pool_limits: httpx.Limits | None = None, concurrency: int | None = None) -> None:
        token = os.environ.get("JUDGEBOX_TOKEN") if token is None else token
        # Who this process is to the server: the caches there serve a caller only its own work (judgebox.callers)
        headers = {"User-Agent": f"judgebox-client/{__version__}", callers.HEADER: callers.process_caller()}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.timeout, self.max_attempts, self.backoff = timeout, max(1, max_attempts), backoff
        self.max_backoff, self.connect_timeout = max_backoff, connect_timeout
        self._pool = balance.shared(balance.endpoint_urls(base_url), concurrency)
        size = self._pool.size()
        limits = pool_limits or httpx.Limits(max_connections=64 * size, max_keepalive_connections=32 * size)
        self._http = self._open(headers=headers, limits=limits, timeout=timeout)
        self._left = False

    def endpoints(self) -> list[dict[str, Any]]:
        """Per endpoint: its URL (and the name it came from), requests in flight and sent, failures (and
        consecutive ones), whether it is ejected and how often it was, the last failure, its /health slots."""
        return self._pool.stats()

    def budget(self) -> dict[str, Any]:
        """The process-wide budget of these endpoints: its limit, requests in flight and waiting, the peak."""
        return self._pool.budget.stats()

    def _leave_pool(self) -> None:
        if not self._left:
            self._left = True
            balance.leave(self._pool)

    def _open(self, **options: Any) -> Any:
        raise NotImplementedError

    def _request(self, call: _Call, endpoint: Endpoint, path: str, body: dict | None) -> httpx.Request:
        headers = {"X-Request-ID": call.request_id, **endpoint.headers()}
        if call.keepalive:
            headers[KEEPALIVE_HEADER] = "1"
        url, extensions = endpoint.url + path, endpoint.extensions()
        if body is None:
            return self._http.build_request("GET", url, headers=headers, timeout=call.timeout(),
                                            extensions=extensions)
        try:
            content = json.dumps(body, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates (stdin bytes that are not UTF-8) travel as JSON escapes
            content = json.dumps(body).encode("ascii")
        headers["Content-Type"] = "application/json"
        return self._http.build_request("POST", url, content=content, headers=headers, timeout=call.timeout(),
                                        extensions=extensions)


class Client(_Base):
    """A thread-safe client of ``judgebox serve``, with pooled keep-alive connections.

        with Client("http://judge:8080", token="secret", timeout=30) as client:
            reply = client.judge("print(input())", test_cases={"inputs": ["x"], "outputs": ["x"]})
            assert reply.verdict == "AC", (reply.message, reply.request_id)
            for line in client.judge_batch([{"code": "print(1)", "cases": [{"expected_output": "1"}]}]):
                print(line.index, line.result.verdict if line.result else line.error)

    ``base_url`` is one server, or several (``"http://a:8080,http://b:8080"``, a list, or a name with several
    addresses), balanced; ``concurrency`` bounds the requests in flight to them from this process (else
    ``$JUDGEBOX_CLIENT_CONCURRENCY``). ``timeout`` is the default deadline of a call (seconds, retries
    included); ``max_attempts``, ``backoff`` and ``max_backoff`` shape the retries; ``pool_limits`` sizes the
    connection pool.
    """

    def _open(self, **options: Any) -> httpx.Client:
        return httpx.Client(**options)

    def run_code(self, code: str, language: str = "python", stdin: str | None = None, run_timeout: float = 10,
                 compile_timeout: float = 10, memory_limit_mb: int = -1, files: dict[str, str | bytes] | None = None,
                 fetch_files: list[str] | None = None, deadline: float | None = None) -> RunCodeReply:
        """Run one program (SandboxFusion's ``/run_code``); ``files`` maps paths to base64 text or bytes."""
        body = run_code_body(code, language, stdin, run_timeout, compile_timeout, memory_limit_mb, files, fetch_files)
        return self._fetch("/run_code", body, deadline, RunCodeReply)

    def judge(self, code: str, cases: Iterable[Case | dict] | None = None, test_cases: dict | str | None = None,
              language: str = "python", limits: Limits | LimitsModel | dict | None = None,
              checker: str | dict | None = None, stop_on_first_failure: bool = False,
              deadline: float | None = None) -> JudgeReply:
        """Judge one program on ``cases`` (``Case`` records or dicts) or on verl's ``test_cases``."""
        body = judge_body(code, cases, test_cases, language, limits, checker, stop_on_first_failure)
        return self._fetch("/judge", body, deadline, JudgeReply)

    def judge_batch(self, submissions: Iterable[Submission | dict], deadline: float | None = None,
                    line_timeout: float | None = None) -> Iterator[BatchReply]:
        """Judge many submissions (``Submission`` records or dicts in ``/judge``'s shape); yields one line per
        submission as each finishes, in that order. The request goes out when iteration starts; the deadline
        covers the whole stream, checked at each line (a wait for a line is capped by the time left at the start,
        and by ``line_timeout`` while another endpoint is left to resume the stream on)."""
        return self._stream({"submissions": [submission_body(s) for s in submissions]}, deadline, line_timeout)

    def health(self, deadline: float | None = None) -> dict:
        """A server's ``/health`` report (one endpoint's): status, isolation layers, languages, slots, queue depth."""
        return self._fetch("/health", None, deadline)

    def post_json(self, path: str, body: dict, deadline: float | None = None) -> Any:
        """POST ``body`` to ``path`` and return the answer as plain JSON, unvalidated (for servers that only
        resemble judgebox, such as SandboxFusion's ``/run_code``); retries and errors as everywhere."""
        return self._fetch(path, body, deadline)

    def ping(self, deadline: float | None = None) -> bool:
        """True when the server answers; raises a :class:`ClientError` when it cannot be reached."""
        return self._fetch("/v1/ping", None, deadline) == "pong"

    def close(self) -> None:
        self._http.close()
        self._leave_pool()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _fetch(self, path: str, body: dict | None, deadline: float | None, model: type[Reply] | None = None) -> Any:
        """POST ``body`` (GET when None) and parse the answer."""
        call = _Call(self, deadline, path=path)
        while True:
            try:
                _, lease, content = self._send(call, path, body)
                usable, reply = call.read(content, lease, model)
            except ClientError as exc:
                return call.given_up(exc)
            if usable:
                return reply

    def _send(self, call: _Call, path: str, body: dict | None, stream: bool = False
              ) -> tuple[httpx.Response, Lease, bytes]:
        """The first successful answer (its content read unless ``stream``), with its lease still held."""
        while True:
            lease = call.lease(self._pool.lease(call.tried, call.left()))
            try:
                response = self._http.send(self._request(call, lease.endpoint, path, body), stream=True)
                content = b"" if stream and response.is_success else self._body(call, response)
            except httpx.TransportError as exc:
                _transport_failed(lease, exc)
                time.sleep(call.retry(exc))
                continue
            except BaseException:
                lease.release()
                raise
            if response.is_success and (failure := call.kept_error(content)) is None:
                return response, lease, content
            response = failure if response.is_success else response
            _answered(lease, response)
            time.sleep(call.retry(response))

    def _body(self, call: _Call, response: httpx.Response) -> bytes:
        """The answer's content, read chunk by chunk: the call's deadline is checked between them."""
        if not response.is_success:
            return response.read()
        try:
            return b"".join(call.beat(chunk) for chunk in response.iter_bytes())
        finally:
            response.close()

    def _stream(self, body: dict, deadline: float | None, line_timeout: float | None) -> Iterator[BatchReply]:
        submissions = body["submissions"]
        call = _Call(self, deadline, expected=len(submissions), line_timeout=line_timeout, path="/judge/batch")
        try:
            while True:
                response, lease, _ = self._send(call, "/judge/batch", call.batch(submissions), stream=True)
                try:
                    for text in response.iter_lines():
                        if (reply := call.line(text, lease)) is not None:
                            yield reply
                    done, delay = call.finished(lease), 0.0
                except (httpx.TransportError, BadAnswer) as exc:
                    done, delay = None, call.broken(lease, exc)
                finally:
                    response.close()
                    lease.release()
                if done is not None:
                    yield from done
                    return
                time.sleep(delay)
        except ClientError:
            yield from call.flush()  # the SE lines held back for an endpoint that could not be asked
            raise


class AsyncClient(_Base):
    """The asyncio twin of :class:`Client`: the same arguments and methods, awaited.

        async with AsyncClient("http://judge:8080") as client:
            reply = await client.run_code("print(6 * 7)")
            async for line in client.judge_batch(submissions):
                ...
    """

    def _open(self, **options: Any) -> httpx.AsyncClient:
        return httpx.AsyncClient(**options)

    async def run_code(self, code: str, language: str = "python", stdin: str | None = None, run_timeout: float = 10,
                       compile_timeout: float = 10, memory_limit_mb: int = -1,
                       files: dict[str, str | bytes] | None = None, fetch_files: list[str] | None = None,
                       deadline: float | None = None) -> RunCodeReply:
        body = run_code_body(code, language, stdin, run_timeout, compile_timeout, memory_limit_mb, files, fetch_files)
        return await self._fetch("/run_code", body, deadline, RunCodeReply)

    async def judge(self, code: str, cases: Iterable[Case | dict] | None = None, test_cases: dict | str | None = None,
                    language: str = "python", limits: Limits | LimitsModel | dict | None = None,
                    checker: str | dict | None = None, stop_on_first_failure: bool = False,
                    deadline: float | None = None) -> JudgeReply:
        body = judge_body(code, cases, test_cases, language, limits, checker, stop_on_first_failure)
        return await self._fetch("/judge", body, deadline, JudgeReply)

    def judge_batch(self, submissions: Iterable[Submission | dict], deadline: float | None = None,
                    line_timeout: float | None = None) -> AsyncIterator[BatchReply]:
        return self._stream({"submissions": [submission_body(s) for s in submissions]}, deadline, line_timeout)

    async def health(self, deadline: float | None = None) -> dict:
        return await self._fetch("/health", None, deadline)

    async def post_json(self, path: str, body: dict, deadline: float | None = None) -> Any:
        return await self._fetch(path, body, deadline)

    async def ping(self, deadline: float | None = None) -> bool:
        return await self._fetch("/v1/ping", None, deadline) == "pong"

    async def aclose(self) -> None:
        await self._http.aclose()
        self._leave_pool()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _fetch(self, path: str, body: dict | None, deadline: float | None,
                    model: type[Reply] | None = None) -> Any:
        call = _Call(self, deadline, path=path)
        while True:
            try:
                _, lease, content = await self._send(call, path, body)
                usable, reply = call.read(content, lease, model)
            except ClientError as exc:
                return call.given_up(exc)
            if usable:
                return reply

    async def _send(self, call: _Call, path: str, body: dict | None, stream: bool = False
                    ) -> tuple[httpx.Response, Lease, bytes]:
        while True:
            lease = call.lease(await self._pool.lease_async(call.tried, call.left()))
            try:
                response = await self._http.send(self._request(call, lease.endpoint, path, body), stream=True)
                content = b"" if stream and response.is_success else await self._body(call, response)
            except httpx.TransportError as exc:
                _transport_failed(lease, exc)
                await asyncio.sleep(call.retry(exc))
                continue
            except BaseException:
                lease.release()
                raise
            if response.is_success and (failure := call.kept_error(content)) is None:
                return response, lease, content
            response = failure if response.is_success else response
            _answered(lease, response)
            await asyncio.sleep(call.retry(response))

    async def _body(self, call: _Call, response: httpx.Response) -> bytes:
        if not response.is_success:
            return await response.aread()
        try:
            return b"".join([call.beat(chunk) async for chunk in response.aiter_bytes()])
        finally:
            await response.aclose()

    async def _stream(self, body: dict, deadline: float | None, line_timeout: float | None
                      ) -> AsyncIterator[BatchReply]:
        submissions = body["submissions"]
        call = _Call(self, deadline, expected=len(submissions), line_timeout=line_timeout, path="/judge/batch")
        try:
            while True:
                response, lease, _ = await self._send(call, "/judge/batch", call.batch(submissions), stream=True)
                try:
                    async for text in response.aiter_lines():
                        if (reply := call.line(text, lease)) is not None:
                            yield reply
                    done, delay = call.finished(lease), 0.0
                except (httpx.TransportError, BadAnswer) as exc:
                    done, delay = None, call.broken(lease, exc)
                finally:
                    await response.aclose()
                    lease.release()
                if done is not None:
                    for reply in done:
                        yield reply
                    return
                await asyncio.sleep(delay)
        except ClientError:
            for reply in call.flush():  # the SE lines held back for an endpoint that could not be asked
                yield reply
            raise


def _transport_failed(lease: Lease, exc: httpx.TransportError) -> None:
    """A refused, dropped or broken connection, or no answer within the attempt's time, is the endpoint's
    failure; a wait for one of this process's own pooled connections is not."""
    if isinstance(exc, httpx.PoolTimeout):
        lease.release()
    else:
        lease.failed(f"{type(exc).__name__}: {exc}")


def _judge_side_error(reply: Any) -> bool | None:
    """Whether a judging answer says the judge failed (the server's sandbox, not the program): a /judge
    result's SE, a /run_code ``SandboxError``; None for an answer that is not a judging one (/health, a ping)."""
    if isinstance(reply, JudgeResponse):
        return reply.verdict == "SE"
    if isinstance(reply, RunCodeResponse):
        return reply.status == "SandboxError"
    if not isinstance(reply, dict):
        return None
    if "verdict" in reply and "passed" in reply:  # /judge's answer as plain JSON
        return reply["verdict"] == "SE"
    if reply.get("status") in ("Success", "Failed", "SandboxError") and ("run_result" in reply or "message" in reply):
        return reply["status"] == "SandboxError"  # /run_code's
    return None


def _answered(lease: Lease, response: httpx.Response) -> None:
    """An error answer: a 5xx is the endpoint's failure, unless it says when to come back (alive but busy, as a
    429 is); any other status is an answer from a working server."""
    status = response.status_code
    if status == 429 or "retry-after" in response.headers:
        lease.release()
    elif status >= 500:
        lease.failed(f"HTTP {status}")
    else:
        lease.answered()


def _detail(response: httpx.Response) -> Any:
    try:
        return response.json()["detail"]
    except (ValueError, KeyError, TypeError):
        return response.text[:1000] or response.reason_phrase


def _retry_after(response: httpx.Response) -> float | None:
    """The server's ``Retry-After``, in seconds or as an HTTP date; None when absent or unreadable."""
    value = response.headers.get("retry-after", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None
