"""A real ``judgebox serve`` on loopback, and free ports for servers a test starts itself."""

from __future__ import annotations


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A real ``judgebox serve`` process on a loopback port, for as long as the context lasts."""

    def __init__(self, *args: str, env: dict | None = None, port: int | None = None,
                 open_files: int | None = None) -> None:
        """``open_files``: the server runs under that descriptor limit (soft and hard), as a small machine's would."""
        import os
        import subprocess
        import sys
        import time

        import httpx

        self.port = port or free_port()  # a given port: a server restarted where a killed one was
        self.url = f"http://127.0.0.1:{self.port}"
        start = ["-m", "judgebox.tools.cli"] if open_files is None else [
            "-c", f"import resource, sys; resource.setrlimit(resource.RLIMIT_NOFILE, ({open_files}, {open_files})); "
                  "from judgebox.tools.cli import main; sys.exit(main(sys.argv[1:]))"]
        command = [sys.executable, *start, "serve", "--port", str(self.port), "--log-level", "warning", *args]
        self.process = subprocess.Popen(command, env={**os.environ, **(env or {})})
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"judgebox serve exited with {self.process.returncode}")
            try:
                if httpx.get(self.url + "/v1/ping", timeout=1).status_code == 200:
                    return
            except httpx.TransportError:
                time.sleep(0.1)
        self.close()
        raise RuntimeError("judgebox serve did not come up within 60 s")

    def wait_for_self_tests(self, timeout: float = 180) -> None:
        """Until the start-up language self-tests (which occupy slots) are done: for tests that need to
        know which job a slot is running."""
        import time

        import httpx

        deadline = time.monotonic() + timeout
        while httpx.get(self.url + "/health", timeout=10).json()["languages"] == "pending":
            if time.monotonic() > deadline:
                raise RuntimeError("the language self-tests did not finish")
            time.sleep(0.2)

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except Exception:  # a stuck server must not hang the test session
            self.process.kill()
            self.process.wait()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
