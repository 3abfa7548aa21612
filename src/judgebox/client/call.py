"""One call to judgebox servers, without I/O: its request id, deadline and attempts, the timeouts of each
attempt (keepalive's idle timeout, or a share of the time left), and whether and when to try again; the
sync and async clients in ``client/__init__.py`` do the I/O around it."""

from __future__ import annotations

import email.utils
import json
import random
import time
import uuid
from typing import Any, TypeVar

import httpx
from pydantic import ValidationError

from judgebox.client.answers import (
    BadAnswer,
    BatchReply,
    ClientError,
    DeadlineExceeded,
    ServerRejected,
    ServerUnavailable,
    _Traced,
)
from judgebox.client.balance import Endpoint, Lease
from judgebox.types import MAX_RECORD_BYTES
from judgebox.wire.schemas import JudgeResponse, RunCodeResponse

RETRY_STATUSES = frozenset({429, 502, 503, 504})
ATTEMPT_SHARE = 0.5  # of the time left, an attempt's timeouts when another endpoint is left to try (no keepalive)
KEEPALIVE_HEADER = "X-Judgebox-Keepalive"  # "1": the server is to keep the request alive while it judges
KEEPALIVE_PATHS = frozenset({"/judge", "/judge/batch"})  # the paths the client asks it on
KEEPALIVE = 1.0  # seconds between a kept-alive request's whitespace bytes (the server's side)
IDLE_TIMEOUT = 3 * KEEPALIVE  # seconds without a byte after which a kept-alive attempt is its endpoint's failure
# An answer (or one line of a batch stream), as decoded: past it, the endpoint's failure. A gzip body inflates
# about a thousandfold, so a small answer could otherwise fill the caller's memory.
MAX_ANSWER_BYTES = MAX_RECORD_BYTES


Reply = TypeVar("Reply", bound=_Traced)


class _Call:
    """One call's request id, deadline and attempts; decides whether and when to try again. ``owner`` is the
    client (``client._Base``) whose timeouts, attempts and endpoint pool it uses."""

    def __init__(self, owner: Any, deadline: float | None, expected: int = 0, line_timeout: float | None = None,
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
        self.taken = 0  # bytes of the answer being read (of a batch: of its line being read)
        self.partial = bytearray()  # of a batch: the line being read

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
        self.taken, self.partial = 0, bytearray()
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

    def take(self, chunk: bytes) -> bytes:
        """A chunk of an answer. The call's deadline and the answer's bound are checked at every chunk: a
        server trickling bytes, or inflating a small body, holds the call no longer and no larger than they
        allow (httpx's timeouts are per read)."""
        self.taken += len(chunk)
        if self.taken > MAX_ANSWER_BYTES:
            raise httpx.RemoteProtocolError(f"an answer (or a batch line) over {MAX_ANSWER_BYTES} bytes")
        return self.beat(chunk)

    def lines(self, chunk: bytes) -> list[str]:
        """The batch stream's lines that ``chunk`` completes, each bounded as an answer is."""
        self.take(chunk)
        self.partial += chunk
        *complete, rest = self.partial.split(b"\n")
        if complete:
            self.partial, self.taken = bytearray(rest), len(rest)
        return [line.decode("utf-8", "replace").rstrip("\r") for line in complete]

    def rest(self) -> list[str]:
        """The stream ended: its last line, if it had no line break."""
        rest, self.partial = self.partial, bytearray()
        return [rest.decode("utf-8", "replace")] if rest.strip() else []

    def beat(self, chunk: bytes = b"") -> bytes:
        """A chunk of an answer came (a keepalive's or a batch's blank line: none): raises when the deadline
        passed, or (of a batch) no line came within ``line_timeout`` while another endpoint is left."""
        if self.left() <= 0:
            raise self.expired()  # a live endpoint, slower than the caller (or trickling): not its failure
        if (chunk.isspace() or not chunk) and self.line_timeout is not None \
                and time.monotonic() - self.lined > self.line_timeout \
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
        except (ValidationError, ValueError, RecursionError) as exc:  # (JSON nested past the parser's depth)
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
