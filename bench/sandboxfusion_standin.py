"""A stand-in for SandboxFusion's ``POST /run_code`` (Python only), for bench/verl_reward.py: its cost
model, not its code.

SandboxFusion cannot run here (no Docker). This does per request what its runner does under its default
``isolation: none`` (sandbox/runners/major.py ``run_python``, base.py ``run_command_bare``): a temporary directory,
the code in a ``tmp*.py`` file there, a FRESH interpreter as ``/bin/bash -c "python <file>"`` in a new session with
``memory_limit_MB`` as the soft RLIMIT_AS, RLIMIT_DATA and RLIMIT_STACK (``preexec_fn``), stdin written to a pipe
and closed, stdout and stderr read to the end (1 MiB of each kept), ``run_timeout`` on the wall clock (then
TimeLimitExceeded with a null return code), the process group killed afterwards. The answer is its
``RunCodeResponse``, status by ``parse_run_status``: Error -> "SandboxError", TLE or return code != 0 -> "Failed",
else "Success". No admission control: every request runs at once, as in SandboxFusion.

NO ISOLATION, like SandboxFusion's default: programs run as this server's user. Only for known programs (the
benchmark's reference solutions), on loopback.

Interpreter: SandboxFusion runs ``python`` from its conda env (a real, optimised CPython binary first on PATH).
``python3`` on PATH here is pyenv's shim, a bash script costing ~40 ms a start (reference/machine-costs.md) that
no deployment pays, so the default is Debian's ``/usr/bin/python3`` (3.11.2), run plainly (site on, no -I/-S): the
interpreter judgebox's sandbox runs too, so programs run at the same speed in both. Left out, so the stand-in is if
anything cheaper than SandboxFusion: its env's ~120 packages on sys.path, FastAPI/pydantic, uvloop's child reaping
(0.2-0.4 s a run measured here) and its blocking work on the event loop.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MAX_OUTPUT = 1 << 20  # SandboxFusion keeps the first 1 MiB of each stream
PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else shutil.which("python3") or "python3"


def decode(data: bytes) -> str:
    try:
        return data[:MAX_OUTPUT].decode()
    except UnicodeDecodeError as e:
        return f"[DecodeError] {e}"


def error(message: str) -> dict[str, Any]:  # CommandRunStatus.Error: the request becomes a SandboxError
    return {"status": "Error", "execution_time": None, "return_code": None, "stdout": None, "stderr": message}


def run_python(code: str, stdin: str | None, run_timeout: float, memory_mb: int, python: str) -> dict[str, Any]:
    def limit_memory() -> None:
        for which in (resource.RLIMIT_AS, resource.RLIMIT_DATA, resource.RLIMIT_STACK):
            resource.setrlimit(which, (memory_mb << 20, resource.getrlimit(which)[1]))

    with tempfile.TemporaryDirectory() as tmp:
        with tempfile.NamedTemporaryFile("w", dir=tmp, suffix=".py", delete=False) as f:
            f.write(code)
        try:
            p = subprocess.Popen(f"{shlex.quote(python)} {f.name}", shell=True, executable="/bin/bash", cwd=tmp,
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True, preexec_fn=limit_memory if memory_mb > 0 else None)
        except Exception as e:
            return error(f"exception on running command: {e}")
        started = time.time()
        try:
            out, err = p.communicate(None if stdin is None else stdin.encode(), timeout=run_timeout)
            status, return_code = "Finished", p.returncode
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            status, return_code = "TimeLimitExceeded", None
        elapsed = time.time() - started
        with contextlib.suppress(ProcessLookupError):  # what it left running in its session, as SandboxFusion does
            os.killpg(p.pid, signal.SIGKILL)
    return {"status": status, "execution_time": elapsed, "return_code": return_code, "stdout": decode(out),
            "stderr": decode(err)}


def run_code(request: dict[str, Any], python: str) -> dict[str, Any]:
    run = (run_python(request["code"], request.get("stdin"), float(request.get("run_timeout", 10)),
                      int(request.get("memory_limit_MB", -1)), python) if request["language"] == "python"
           else error(f"the stand-in runs only python, not {request['language']!r}"))
    status = ("SandboxError" if run["status"] == "Error" else
              "Failed" if run["status"] == "TimeLimitExceeded" or run["return_code"] != 0 else "Success")
    return {"status": status, "message": run["stderr"] if status == "SandboxError" else "", "compile_result": None,
            "run_result": run, "executor_pod_name": None, "files": {}}


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 2048  # uvicorn's backlog; http.server's 5 would drop verl's bursts of connections


class Handler(BaseHTTPRequestHandler):
    python = PYTHON

    def reply(self, code: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self.reply(200, "pong") if self.path == "/v1/ping" else self.reply(404, {"detail": "Not Found"})

    def do_POST(self) -> None:
        if self.path != "/run_code":
            return self.reply(404, {"detail": "Not Found"})
        try:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            if not isinstance(request["code"], str) or not isinstance(request["language"], str):
                raise TypeError("code and language must be strings")
        except (ValueError, KeyError, TypeError) as e:
            return self.reply(422, {"detail": f"invalid request: {e!r}"})
        self.reply(200, run_code(request, self.python))

    def log_message(self, format: str, *args: Any) -> None:  # no access log
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--python", default=PYTHON, help=f"the interpreter run per request (default {PYTHON})")
    args = parser.parse_args()
    Handler.python = args.python
    with Server((args.host, args.port), Handler) as server:
        server.serve_forever()


if __name__ == "__main__":
    main()
