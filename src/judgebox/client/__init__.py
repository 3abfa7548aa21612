"""The HTTP client of ``judgebox serve``: :class:`Client` (thread-safe) and its asyncio twin :class:`AsyncClient`.

    from judgebox.client import Client

    with Client("http://127.0.0.1:8080") as client:
        client.run_code("print(input()[::-1])", stdin="abc").run_result.stdout        # 'cba\\n'
        client.judge("print(int(input()) * 2)", cases=[{"stdin": "2", "expected_output": "4"}]).verdict  # 'AC'

The base URL may name several servers (a list, one string joined by commas, or a host name that resolves
to several addresses): requests are balanced over them, a failed one ejected and checked until it is back,
and the requests in flight to them bounded by one budget for the whole process (:mod:`judgebox.client.balance`;
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
the call has not tried, at once, when the pool doubts it (:meth:`judgebox.client.balance.Pool.doubts`: an endpoint
whose sandbox fails while the others' do not), and the first answer that is not SE is the call's; the SE
answer is given when no other endpoint answers in time. Retrying is safe because every call is pure:
/run_code and /judge run the same program on the same input under the same limits, and a run twice gives the
same verdict, so an answer lost with a dying server is asked of the next one, and SE is never a verdict on
the program. Exceptions, all with ``request_id`` (defined in :mod:`judgebox.errors`):

    ClientError              base of them all, a :class:`judgebox.JudgeboxError`
    ├── BadAnswer            a success status whose answer does not parse (a batch stream's lines included),
    │                        from every endpoint tried: such an endpoint is not a working judgebox, so
    │                        it counts towards its ejection and the call goes to an untried one if any
    ├── ServerRejected       any other non-2xx answer (4xx but 429, 500, ...), not retried: ``status``, ``detail``
    ├── ServerUnavailable    still failing after its attempts (every endpoint down or overloaded):
    │                        ``attempts``, ``status`` and ``detail`` of the last answer (None after a transport error)
    └── DeadlineExceeded     the deadline passed, or the next attempt could not start before it (a TimeoutError)

A base URL that names no server is :class:`judgebox.UnknownAddress`, and other arguments a call cannot send
:class:`judgebox.InvalidInput`, both raised before anything is sent; a client used after ``close()`` raises
:class:`judgebox.JudgeClosed`. Answers are the models of :mod:`judgebox.wire.schemas`, subclassed only to carry
``request_id``.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from typing import Any

import httpx

from judgebox import callers
from judgebox.client import balance
from judgebox.client.answers import (
    BadAnswer,
    BatchReply,
    ClientError,
    DeadlineExceeded,
    JudgeReply,
    RunCodeReply,
    ServerRejected,
    ServerUnavailable,
)
from judgebox.client.call import (  # noqa: F401 (re-exported: the protocol's constants, and the helpers as before)
    ATTEMPT_SHARE,
    IDLE_TIMEOUT,
    KEEPALIVE,
    KEEPALIVE_HEADER,
    KEEPALIVE_PATHS,
    RETRY_STATUSES,
    _answered,
    _Call,
    _detail,
    _judge_side_error,
    _retry_after,
    _transport_failed,
)
from judgebox.client.call import Reply as _Reply
from judgebox.errors import JudgeClosed
from judgebox.types import Case, Limits, Submission
from judgebox.version import __version__
from judgebox.wire.bodies import judge_body, run_code_body, submission_body
from judgebox.wire.schemas import LimitsModel

__all__ = ["ATTEMPT_SHARE", "IDLE_TIMEOUT", "KEEPALIVE", "KEEPALIVE_HEADER", "KEEPALIVE_PATHS", "RETRY_STATUSES",
           "AsyncClient", "BadAnswer", "BatchReply", "Client", "ClientError", "DeadlineExceeded", "JudgeReply",
           "RunCodeReply", "ServerRejected", "ServerUnavailable"]


class _Base:
    def __init__(self, base_url: str | Sequence[str], token: str | None = None, timeout: float = 60.0,
                 max_attempts: int = 5, backoff: float = 0.25, max_backoff: float = 8.0, connect_timeout: float = 5.0,
                 pool_limits: httpx.Limits | None = None, concurrency: int | None = None,
                 declare_caller: bool = True) -> None:
        token = os.environ.get("JUDGEBOX_TOKEN") if token is None else token
        headers = {"User-Agent": f"judgebox-client/{__version__}"}
        if declare_caller:
            # Who this process is to a judgebox server: its caches serve a caller only its own work
            # (judgebox.callers). The secret is for judgebox servers alone: a foreign one could replay it.
            headers[callers.HEADER] = callers.process_caller()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self.timeout, self.max_attempts, self.backoff = timeout, max(1, max_attempts), backoff
        self.max_backoff, self.connect_timeout = max_backoff, connect_timeout
        self._pool = balance.shared(balance.endpoint_urls(base_url), concurrency)
        size = self._pool.size()
        limits = pool_limits or httpx.Limits(max_connections=64 * size, max_keepalive_connections=32 * size)
        self._http = self._open(headers=headers, limits=limits, timeout=timeout)
        self._left = False

    @property
    def closed(self) -> bool:
        """True once the client is closed: its calls raise :class:`judgebox.JudgeClosed`."""
        return self._http.is_closed

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

    def _request(self, call: _Call, endpoint: balance.Endpoint, path: str, body: dict | None) -> httpx.Request:
        if self.closed:
            raise JudgeClosed("this client has been closed")
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
    connection pool. ``declare_caller=False`` sends no ``X-Judgebox-Caller`` (this process's secret, which a
    judgebox server keys its caches by): for a server that may not be a judgebox.
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

    def _fetch(self, path: str, body: dict | None, deadline: float | None, model: type[_Reply] | None = None) -> Any:
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
              ) -> tuple[httpx.Response, balance.Lease, bytes]:
        """The first successful answer (its content read unless ``stream``), with its lease still held."""
        while True:
            lease = call.lease(self._pool.lease(call.tried, call.left()))
            try:
                response = self._http.send(self._request(call, lease.endpoint, path, body), stream=True)
                content = b"" if stream and response.is_success else self._body(call, response)
                response = response if response.is_success else _read_as(response, content)
            except httpx.TransportError as exc:
                _transport_failed(lease, exc)
                time.sleep(call.retry(exc))
                continue
            except BaseException:
                lease.release()
                raise
            if response.is_success:
                failure = call.kept_error(content)
                if failure is None:
                    return response, lease, content
                response = failure
            _answered(lease, response)
            time.sleep(call.retry(response))

    def _body(self, call: _Call, response: httpx.Response) -> bytes:
        """The answer's content, read chunk by chunk: the call's deadline and the answer's bound are checked
        at each (:meth:`_Call.take`)."""
        try:
            return b"".join(call.take(chunk) for chunk in _chunks(response))
        finally:
            response.close()

    def _stream(self, body: dict, deadline: float | None, line_timeout: float | None) -> Iterator[BatchReply]:
        submissions = body["submissions"]
        call = _Call(self, deadline, expected=len(submissions), line_timeout=line_timeout, path="/judge/batch")
        try:
            while True:
                response, lease, _ = self._send(call, "/judge/batch", call.batch(submissions), stream=True)
                try:
                    for chunk in _chunks(response):
                        for text in call.lines(chunk):
                            if (reply := call.line(text, lease)) is not None:
                                yield reply
                    for text in call.rest():
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
                    model: type[_Reply] | None = None) -> Any:
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
                    ) -> tuple[httpx.Response, balance.Lease, bytes]:
        while True:
            lease = call.lease(await self._pool.lease_async(call.tried, call.left()))
            try:
                response = await self._http.send(self._request(call, lease.endpoint, path, body), stream=True)
                content = b"" if stream and response.is_success else await self._body(call, response)
                response = response if response.is_success else _read_as(response, content)
            except httpx.TransportError as exc:
                _transport_failed(lease, exc)
                await asyncio.sleep(call.retry(exc))
                continue
            except BaseException:
                lease.release()
                raise
            if response.is_success:
                failure = call.kept_error(content)
                if failure is None:
                    return response, lease, content
                response = failure
            _answered(lease, response)
            await asyncio.sleep(call.retry(response))

    async def _body(self, call: _Call, response: httpx.Response) -> bytes:
        try:
            return b"".join([call.take(chunk) async for chunk in _achunks(response)])
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
                    async for chunk in _achunks(response):
                        for text in call.lines(chunk):
                            if (reply := call.line(text, lease)) is not None:
                                yield reply
                    for text in call.rest():
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


def _chunks(response: httpx.Response) -> Iterator[bytes]:
    """The response's decoded bytes; a body that does not decode (gzip that is not) is a broken answer, as a
    broken connection is: the endpoint's failure."""
    try:
        yield from response.iter_bytes()
    except httpx.DecodingError as exc:
        raise httpx.RemoteProtocolError(f"the answer does not decode: {exc}") from exc


async def _achunks(response: httpx.Response) -> AsyncIterator[bytes]:
    try:
        async for chunk in response.aiter_bytes():
            yield chunk
    except httpx.DecodingError as exc:
        raise httpx.RemoteProtocolError(f"the answer does not decode: {exc}") from exc


def _read_as(response: httpx.Response, content: bytes) -> httpx.Response:
    """An error answer, its body read within the bound (:meth:`_Call.take`), as a response whose ``content`` and
    ``json()`` the retry rules read (its decoded body: no content encoding left)."""
    headers = [(name, value) for name, value in response.headers.multi_items()
               if name.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
    return httpx.Response(response.status_code, headers=headers, content=content, request=response.request)
