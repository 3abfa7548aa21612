"""Tiny loopback HTTP servers that answer as scripted (504s, 429 with Retry-After, 500, broken streams, keep-alive
bytes, hang-ups): stand-ins for endpoints that misbehave on purpose, for the client's and the pool's tests."""

from __future__ import annotations

import http.server
import json
import threading
import time


def case_result(verdict: str = "AC", stdout: str = "") -> dict:
    """One case's result, as a judgebox serve writes it."""
    return {"verdict": verdict, "cpu_time": 0.0, "wall_time": 0.0, "memory_bytes": 0, "exit_code": 0, "signal": None,
            "stdout": stdout, "stderr": "", "stdout_truncated": False, "stderr_truncated": False,
            "stdout_length": len(stdout), "stderr_length": 0, "message": ""}


def batch_line(index: int, verdict: str = "AC") -> bytes:
    """A /judge/batch line for a one-case submission, as a judgebox serve writes it."""
    result = {"verdict": verdict, "score": 1.0, "passed": 1, "total": 1, "message": "", "cases": [case_result(verdict)],
              "wall_time": 0.0, "cpu_time": 0.0, "queue_time": 0.0}
    return json.dumps({"index": index, "result": result}).encode() + b"\n"


def kept_alive(seconds: float, payload: object | None, every: float = 0.5, hang: float = 30.0, prefix: bytes = b"",
               beat: bytes = b" "):
    """A 200 kept alive as ``judgebox serve`` keeps /judge: a space every ``every`` seconds for ``seconds``, then
    ``payload``'s JSON, which ends the body (the connection closes); with None, it hangs instead (for ``hang``
    seconds), its headers and spaces sent. ``prefix`` goes first, and ``beat`` may be another byte than a space:
    a server that trickles an answer which never ends."""
    def answer(handler: http.server.BaseHTTPRequestHandler) -> None:
        handler.close_connection = True
        try:
            handler.send_response(200)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Connection", "close")
            handler.end_headers()
            handler.wfile.write(prefix)
            handler.wfile.flush()
            ends = time.monotonic() + seconds
            while time.monotonic() < ends:
                handler.wfile.write(beat)
                handler.wfile.flush()
                time.sleep(every)
            if payload is None:
                time.sleep(hang)
                return
            handler.wfile.write(json.dumps(payload).encode())
            handler.wfile.flush()
        except OSError:
            pass  # the client gave up on it
    return answer


def reply(status: int, payload: object, headers: dict[str, str] | None = None):
    def answer(handler: http.server.BaseHTTPRequestHandler) -> None:
        data = json.dumps(payload).encode()
        handler.send_response(status)
        for name, value in {**(headers or {}), "Content-Type": "application/json"}.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
    return answer


def hang_up(handler: http.server.BaseHTTPRequestHandler) -> None:
    handler.close_connection = True  # no answer at all: the client sees the connection drop


def slowly(seconds: float, answer):
    def late(handler: http.server.BaseHTTPRequestHandler) -> None:
        time.sleep(seconds)
        answer(handler)
    return late


def stream(body: bytes):
    return lambda handler: reply_raw(handler, body, len(body))


def cut(body: bytes):
    """A 200 that promises more than it sends, then hangs up: the client sees a broken stream."""
    def answer(handler: http.server.BaseHTTPRequestHandler) -> None:
        reply_raw(handler, body, len(body) + 10_000)
        handler.close_connection = True
    return answer


def reply_raw(handler: http.server.BaseHTTPRequestHandler, body: bytes, length: int) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "application/x-ndjson")
    handler.send_header("Content-Length", str(length))
    handler.end_headers()
    handler.wfile.write(body)
    handler.wfile.flush()


class Scripted:
    """A real HTTP/1.1 server on loopback answering the n-th request with ``answers[n]`` (the last one repeats);
    records (path, headers, body) of every request. ``start_after`` delays listening, so early connects are refused."""

    def __init__(self, *answers, port: int = 0, start_after: float = 0.0) -> None:
        self.answers, self.requests, self.lock = list(answers), [], threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with outer.lock:
                    outer.requests.append((self.path, dict(self.headers), body))
                    answer = outer.answers[min(len(outer.requests), len(outer.answers)) - 1]
                answer(self)

            do_GET = do_POST

            def log_message(self, *args: object) -> None:
                pass

        self.handler, self.port, self.httpd = Handler, port, None
        self.starter = threading.Timer(start_after, self._start)
        self.starter.start()
        if not start_after:
            self.starter.join()

    def _start(self) -> None:
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), self.handler)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Scripted:
        return self

    def __exit__(self, *exc: object) -> None:
        self.starter.join()
        self.httpd.shutdown()
        self.httpd.server_close()
