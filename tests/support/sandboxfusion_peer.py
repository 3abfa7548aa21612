"""SandboxFusion itself, the peer judgebox's sandboxfusion preset imitates, for the tests that run its own
graders: a server on a free loopback port, from a SandboxFusion built from its source outside the repository
(/tmp/sf-src, its venv /tmp/sf-venv, the interpreter its Python runner execs in /tmp/sf-pybin). It is an
optional peer, not part of judgebox: without that build the tests that need it skip, saying so.

It runs programs with no isolation (its default config): give it known programs only."""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from support.server import free_port

SOURCE, VENV, PYBIN = Path("/tmp/sf-src"), Path("/tmp/sf-venv"), Path("/tmp/sf-pybin")


@contextmanager
def running() -> Iterator[str]:
    """The base URL of a SandboxFusion server started for the caller and stopped afterwards."""
    if not ((VENV / "bin" / "python").exists() and (SOURCE / "sandbox").is_dir() and (PYBIN / "python").exists()):
        pytest.skip("SandboxFusion is not built here (no /tmp/sf-src, /tmp/sf-venv, /tmp/sf-pybin): an optional peer")
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env.update(PATH=f"{PYBIN}:{env.get('PATH', '')}", SANDBOX_CONFIG="local")
    with tempfile.TemporaryFile() as log:
        server = subprocess.Popen([str(VENV / "bin" / "python"), "-m", "uvicorn", "sandbox.server.server:app",
                                   "--host", "127.0.0.1", "--port", str(port), "--loop", "asyncio"],
                                  cwd=SOURCE, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                if server.poll() is not None:
                    log.seek(0)
                    tail = log.read()[-2000:].decode(errors="replace")
                    pytest.fail(f"SandboxFusion exited {server.returncode}: {tail}")
                try:
                    if httpx.get(url + "/v1/ping", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail("SandboxFusion did not answer on /v1/ping within 60 s")
                time.sleep(0.2)
            yield url
        finally:
            os.killpg(server.pid, 15)
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, 9)
                server.wait()


def common_oj(url: str, code: str, inputs: list[str], outputs: list[str]) -> tuple[float, list[bool]]:
    """SandboxFusion's CommonOJ grader (its code_contests and other OJ datasets) on ``code``, through its own
    /submit with the cases given as the problem's data: 1.0 when it accepts, and each case's passed."""
    tests = [{"input": {"stdin": stdin}, "output": {"stdout": stdout}} for stdin, stdout in zip(inputs, outputs)]
    body = {"dataset": "judgebox_parity", "id": 1, "completion": f"```python\n{code}\n```",
            "config": {"language": "python", "dataset_type": "CommonOJDataset",
                       "provided_data": {"id": 1, "test": tests}}}
    answer = httpx.post(url + "/submit", json=body, timeout=120)
    answer.raise_for_status()
    result = answer.json()
    return (1.0 if result["accepted"] else 0.0), [test["passed"] for test in result["tests"]]
