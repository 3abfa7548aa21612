"""A real HTTP/1.1 reverse proxy on loopback, in front of a server, that records requests and injects faults."""

from __future__ import annotations

import http.server
import json
import threading
from dataclasses import dataclass
from typing import Any

import httpx

DROP = "drop"  # a fault: the proxy hangs up without answering


class Proxy:
    """A real HTTP/1.1 reverse proxy on loopback in front of ``upstream``. It forwards requests to the paths in
    ``forward`` (all paths when None) and answers 404 to others, records every request, and answers the next
    POSTs with the faults given to ``fail_next`` (an HTTP status, or DROP to hang up without an answer)."""

    def __init__(self, upstream: str, forward: set[str] | None = None) -> None:
        self.forward, self.seen, self.faults, self.lock = forward, [], [], threading.Lock()
        self.upstream = httpx.Client(base_url=upstream, timeout=120)
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                proxy._handle(self)

            do_GET = do_POST

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()

    def _handle(self, handler: http.server.BaseHTTPRequestHandler) -> None:
        raw = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        with self.lock:
            fault = self.faults.pop(0) if handler.command == "POST" and self.faults else None
        if fault == DROP:
            self._record(handler, raw, None, b"")
            handler.close_connection = True
            return
        if fault is not None:
            status, content = fault, json.dumps({"detail": f"injected {fault}"}).encode()
        elif self.forward is None or handler.path in self.forward:
            headers = {k: v for k, v in handler.headers.items() if k.lower() in ("content-type", "authorization")}
            answer = self.upstream.request(handler.command, handler.path, content=raw, headers=headers)
            status, content = answer.status_code, answer.content
        else:
            status, content = 404, b'{"detail": "Not Found"}'
        self._record(handler, raw, status, content)
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(content)))
        handler.end_headers()
        handler.wfile.write(content)

    def _record(self, handler: http.server.BaseHTTPRequestHandler, raw: bytes, status: int | None,
                content: bytes) -> None:
        with self.lock:
            self.seen.append(Seen(handler.command, handler.path, _json_or_none(raw), status, _json_or_none(content)))

    def fail_next(self, *faults: int | str) -> None:
        with self.lock:
            self.faults = list(faults)

    def clear(self) -> Proxy:
        with self.lock:
            self.seen, self.faults = [], []
        return self

    def posts(self, path: str | None = None) -> list[Seen]:
        with self.lock:
            return [s for s in self.seen if s.method == "POST" and (path is None or s.path == path)]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.upstream.close()

    def __enter__(self) -> Proxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Seen:
    method: str
    path: str
    body: Any  # the request's JSON
    status: int | None  # None: the proxy hung up
    reply: Any  # the answer's JSON (None if not JSON)


def _json_or_none(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return None
