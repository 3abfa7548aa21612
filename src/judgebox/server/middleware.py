"""Pure ASGI middlewares (cheaper than Starlette's BaseHTTPMiddleware on every request):
:class:`RequestFrame` (request id, bearer token, metrics and log line) and :class:`BodySizeLimit`
(413 for bodies over the limit, without buffering them: over its bytes, or over the JSON values one
record may make, :data:`judgebox.judging.cases.MAX_JSON_VALUES`, counted as the body streams in)."""

from __future__ import annotations

import hmac
import json
import logging
import time
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from starlette.exceptions import HTTPException

from judgebox.judging.cases import JsonValues, over_values

log = logging.getLogger("judgebox.server")
request_id: ContextVar[str] = ContextVar("request_id", default="-")


class BodySizeLimit:
    def __init__(self, app: Any, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await self._refuse(send)
            return
        seen = 0
        values = JsonValues()  # what json.loads would make of the body: 25 bytes of objects a byte of [{},...]
        started = False

        async def counted_receive() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                body = message.get("body", b"")
                seen += len(body)
                if seen > self.max_bytes:
                    raise _TooLarge(self.max_bytes)
                values.feed(body)
                if values.over:
                    raise _TooLarge(self.max_bytes, over_values("the request body", values.count))
            return message

        async def tracked_send(message: dict) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except _TooLarge as refused:
            if not started:
                await self._refuse(send, refused)

    async def _refuse(self, send: Any, refused: _TooLarge | None = None) -> None:
        await _send_json(send, 413, {"detail": (refused or _TooLarge(self.max_bytes)).detail})


class _TooLarge(HTTPException):
    """Raised from the body stream. An ``HTTPException`` so that FastAPI, which turns any other error while it
    reads a body into "400 There was an error parsing the body", passes it on and answers it as a 413."""

    def __init__(self, max_bytes: int, detail: str | None = None) -> None:
        super().__init__(413, detail or f"request body larger than {max_bytes} bytes")


class RequestFrame:
    """Gives every request an id (``X-Request-ID``, taken from the request or made), checks the bearer
    token on every path but ``open_paths``, counts the request and logs one line with its id."""

    def __init__(self, app: Any, token: str | None, open_paths: set[str],
                 count: Callable[[str, int], None]) -> None:
        self.app = app
        self.token = token.encode() if token else None
        self.open_paths = open_paths
        self.count = count

    def _authorized(self, header: bytes | None) -> bool:
        scheme, _, credentials = (header or b"").partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(credentials.strip(), self.token or b"")

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", []))
        rid = headers.get(b"x-request-id", b"").decode("latin-1")[:128] or uuid.uuid4().hex
        request_id.set(rid)
        started = time.monotonic()
        status = 500

        async def framed_send(message: dict) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", rid.encode("latin-1"))]
            await send(message)

        path = scope["path"]
        try:
            if self.token and path not in self.open_paths and not self._authorized(headers.get(b"authorization")):
                await _send_json(framed_send, 401, {"detail": "missing or wrong bearer token"},
                                 [(b"www-authenticate", b"Bearer")])
            else:
                await self.app(scope, receive, framed_send)
        finally:
            self.count(path, status)
            log.info("%s %s %s %.1f ms [%s]", scope["method"], path, status, (time.monotonic() - started) * 1000, rid)


async def _send_json(send: Any, status: int, payload: dict, headers: list[tuple[bytes, bytes]] = ()) -> None:  # type: ignore[assignment]
    body = json.dumps(payload).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            *headers]})
    await send({"type": "http.response.body", "body": body})
