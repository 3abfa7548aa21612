"""The endpoint pool (judgebox.client.balance) through judgebox.client, against small real HTTP servers on loopback that
count what reaches them: least outstanding requests, random ties, fail-over, ejection and re-admission, the
process-wide budget for threads and asyncio, and a host name that resolves to several addresses (looked up in
a private mount namespace whose /etc/hosts names two loopback addresses)."""

from __future__ import annotations

import asyncio
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from judgebox.client import AsyncClient, BadAnswer, Client, DeadlineExceeded, ServerUnavailable, budget
from support.server import free_port

OK = {"status": "Success", "run_result": {"status": "Finished", "return_code": 0, "stdout": "ok\n"}}


class Counting:
    """A real HTTP/1.1 server answering POSTs with ``status`` (and ``headers``) after ``delay`` seconds, and
    ``/health`` with ok; counts the POSTs, how many were in progress at once at most, and their Host headers."""

    def __init__(self, status: int = 200, delay: float = 0.0, headers: dict | None = None,
                 host: str = "127.0.0.1", port: int = 0, body: bytes | None = None) -> None:
        self.status, self.delay, self.headers, self.body = status, delay, headers or {}, body
        self.posts, self.now, self.most, self.hosts, self.lock = 0, 0, 0, set(), threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                self._answer(200, {"status": "ok", "slots": 1}, {})

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with outer.lock:
                    outer.posts, outer.now = outer.posts + 1, outer.now + 1
                    outer.most = max(outer.most, outer.now)
                    outer.hosts.add(self.headers.get("Host"))
                time.sleep(outer.delay)
                with outer.lock:
                    outer.now -= 1
                self._answer(outer.status, OK if outer.status == 200 else {"detail": "no"}, outer.headers,
                             outer.body)

            def _answer(self, status: int, payload: dict, headers: dict, body: bytes | None = None) -> None:
                data = json.dumps(payload).encode() if body is None else body
                self.send_response(status)
                for name, value in {**headers, "Content-Type": "application/json"}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = http.server.ThreadingHTTPServer((host, port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://{host}:{self.port}"
        threading.Thread(target=self.httpd.serve_forever, args=(0.02,), daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> Counting:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run(client: Client, calls: int, threads: int = 1) -> None:
    with ThreadPoolExecutor(threads) as pool:
        outs = list(pool.map(lambda _: client.post_json("/run_code", {"code": "x"}), range(calls)))
    assert outs == [OK] * calls


def test_least_outstanding_requests_keeps_the_servers_within_one():
    with Counting(delay=0.1) as a, Counting(delay=0.1) as b, Client([a.url, b.url]) as client:
        run(client, 64, threads=8)
        stats = client.endpoints()
    # a request goes to the less busy one: neither ever had more than half of the 8 in flight
    assert (a.most, b.most) == (4, 4) and a.posts + b.posts == 64
    assert [e["requests"] for e in stats] == [a.posts, b.posts] and all(e["in_flight"] == 0 for e in stats)


def test_ties_are_broken_at_random():
    with Counting() as a, Counting() as b, Counting() as c, Client(f"{a.url}, {b.url},{c.url}/") as client:
        run(client, 60)  # one at a time: every choice is a three-way tie
        assert [e["url"] for e in client.endpoints()] == [a.url, b.url, c.url]
    assert min(a.posts, b.posts, c.posts) > 0 and a.posts + b.posts + c.posts == 60


def test_a_refused_endpoint_fails_over_and_is_ejected():
    dead = f"http://127.0.0.1:{free_port()}"
    with Counting() as alive, Client([dead, alive.url], max_attempts=1) as client:
        for _ in range(100):  # one attempt per call, yet each reaches the live server: fail-over is per endpoint
            run(client, 1)
            if client.endpoints()[0]["ejected"]:
                break
        down = client.endpoints()[0]
        assert down["ejected"] and down["failures"] == down["consecutive_failures"] == 3
        assert "ConnectError" in down["last_failure"]
        run(client, 10)
        assert client.endpoints()[0]["requests"] == 3 and alive.posts == client.endpoints()[1]["requests"]


def test_5xx_counts_towards_ejection_but_a_busy_answer_does_not():
    with Counting(status=503) as failing, Counting(status=504, headers={"Retry-After": "30"}) as busy, \
            Counting() as alive, Client([failing.url, busy.url, alive.url], backoff=0.01) as client:
        for _ in range(100):
            run(client, 1)
            if client.endpoints()[0]["ejected"]:
                break
        stats = client.endpoints()
    assert stats[0]["ejected"] and stats[0]["last_failure"] == "HTTP 503"
    # a 504 that says when to come back: the call moved on (without waiting its 30 s) and the server stays in
    assert busy.posts > 0 and not stats[1]["ejected"] and stats[1]["failures"] == 0


def test_a_success_that_does_not_parse_fails_over_and_a_sole_one_is_raised_at_once():
    with Counting(body=b"<html>Please sign in</html>") as login, Counting() as alive:  # 200, not JSON
        with Client([login.url, alive.url]) as client:
            for _ in range(100):
                assert client.run_code("print(1)").run_result.stdout == "ok\n"
                if client.endpoints()[0]["ejected"]:
                    break
            wrong = client.endpoints()[0]
        assert wrong["ejected"] and "not a RunCodeReply" in wrong["last_failure"]
        with Client(login.url) as sole, pytest.raises(BadAnswer, match="not a RunCodeReply"):
            sole.run_code("print(1)")
        assert login.posts == wrong["requests"] + 1  # the sole one was asked once, not retried


def test_every_endpoint_down_is_server_unavailable_for_both_clients():
    urls = [f"http://127.0.0.1:{free_port()}", f"http://127.0.0.1:{free_port()}"]
    with Client(urls, max_attempts=3, backoff=0.01) as client, pytest.raises(ServerUnavailable) as down:
        client.run_code("print(1)")
    assert down.value.attempts == 3

    async def twin() -> None:
        async with AsyncClient(urls, max_attempts=3, backoff=0.01) as client:
            await client.run_code("print(1)")

    with pytest.raises(ServerUnavailable):
        asyncio.run(twin())


def test_an_ejected_endpoint_comes_back_when_its_health_answers():
    first, alive = Counting(), Counting()
    with alive, Client([first.url, alive.url]) as client:
        first.close()
        for _ in range(100):
            run(client, 1)
            if client.endpoints()[0]["ejected"]:
                break
        assert client.endpoints()[0]["ejected"]
        with Counting(port=first.port) as again:  # restarted on its port
            deadline = time.monotonic() + 20
            while client.endpoints()[0]["ejected"] and time.monotonic() < deadline:
                time.sleep(0.05)
            back = client.endpoints()[0]
            assert not back["ejected"] and back["slots"] == 1 and back["ejections"] == 1
            run(client, 30)
            assert again.posts > 0


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_one_budget_for_the_threads_and_tasks_of_a_process():
    async def tasks(url: str) -> tuple[list, dict]:
        async with AsyncClient(url, concurrency=3) as twin:
            return await asyncio.gather(*(twin.post_json("/run_code", {}) for _ in range(6))), twin.budget()

    with Counting(delay=0.5) as server:
        with Client(server.url, concurrency=3) as client:
            threads = threading.Thread(target=run, args=(client, 12, 6))
            threads.start()
            answers, seen = asyncio.run(tasks(server.url))
            threads.join()
            assert answers == [OK] * 6 and seen["limit"] == 3
            assert client.budget() == {"limit": 3, "in_flight": 0, "waiting": 0, "peak": 3}
        assert server.most == 3 and server.posts == 18


def test_waiting_for_the_budget_ends_at_the_deadline():
    with Counting(delay=1.5) as server, Client(server.url, concurrency=1) as client:
        holder = threading.Thread(target=run, args=(client, 1))
        holder.start()
        while not client.budget()["in_flight"]:
            time.sleep(0.01)
        with pytest.raises(DeadlineExceeded):
            client.post_json("/run_code", {}, deadline=0.2)
        holder.join()
        assert server.posts == 1 and client.budget()["waiting"] == 0


def test_the_budget_setting(monkeypatch):
    monkeypatch.setenv(budget.CONCURRENCY_ENV, "5")
    assert budget.concurrency_setting(None) == 5 and budget.concurrency_setting(2) == 2
    for wrong in ("many", "0"):
        monkeypatch.setenv(budget.CONCURRENCY_ENV, wrong)
        with pytest.raises(ValueError, match=r"concurrency|JUDGEBOX_CLIENT_CONCURRENCY"):
            budget.concurrency_setting(None)
    with pytest.raises(ValueError, match="at least 1"):
        Client("http://127.0.0.1:1", concurrency=0)
    with pytest.raises(ValueError, match="no server URL"):
        Client(" , ")


NAME_PROBE = """
import json, sys, time
from judgebox.client import balance
from judgebox.client import Client
balance.HEALTH_INTERVAL = 0.2  # look the name up again soon
hosts, lines = sys.argv[2], sys.stdin.read().split("|")
with Client(sys.argv[1]) as client:
    for _ in range(40):
        client.post_json("/run_code", {})
    first = client.endpoints()
    with open(hosts, "w") as f:  # the same file: the bind mount shows the new lines
        f.write(lines[1])
    deadline = time.monotonic() + 20
    urls = [e["url"] for e in first]
    while [e["url"] for e in client.endpoints()] == urls and time.monotonic() < deadline:
        time.sleep(0.05)
    for _ in range(20):
        client.post_json("/run_code", {})
    print(json.dumps([first, client.endpoints()]))
"""


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root and unshare")
def test_a_name_that_resolves_to_several_addresses_is_several_endpoints_and_followed():
    port = free_port()
    with Counting(host="127.0.0.2", port=port) as two, Counting(host="127.0.0.3", port=port) as three, \
            Counting(host="127.0.0.4", port=port) as four, \
            tempfile.NamedTemporaryFile("w", suffix=".hosts") as hosts:
        before = "127.0.0.2 judges.test\n127.0.0.3 judges.test\n"
        after = "127.0.0.3 judges.test\n127.0.0.4 judges.test\n"
        hosts.write(before)
        hosts.flush()
        shown = subprocess.run(
            ["unshare", "--mount", "sh", "-c", 'mount --bind "$0" /etc/hosts && exec "$1" -c "$2" "$3" "$0"',
             hosts.name, sys.executable, NAME_PROBE, f"http://judges.test:{port}"],
            input=f"{before}|{after}", capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    first, then = json.loads(shown.stdout)
    assert [e["url"] for e in first] == [f"http://127.0.0.2:{port}", f"http://127.0.0.3:{port}"]
    assert all(e["host"] == f"judges.test:{port}" for e in first + then)
    assert two.hosts == three.hosts == four.hosts == {f"judges.test:{port}"}  # the name, not the address, as Host
    # the lookup changed: 127.0.0.2 left the choice, 127.0.0.4 joined, 127.0.0.3 kept its counts
    assert [e["url"] for e in then] == [f"http://127.0.0.3:{port}", f"http://127.0.0.4:{port}"]
    assert two.posts == first[0]["requests"] and two.posts + three.posts + four.posts == 60 and four.posts > 0
    assert then[0]["requests"] == three.posts


def test_the_async_client_fails_over_too():
    dead = f"http://127.0.0.1:{free_port()}"

    async def calls(url: str) -> tuple[list, list]:
        async with AsyncClient([dead, url], max_attempts=1) as client:
            answers = [await client.post_json("/run_code", {}) for _ in range(30)]
            return answers, client.endpoints()

    with Counting() as alive:
        answers, stats = asyncio.run(calls(alive.url))
    assert answers == [OK] * 30 and alive.posts == 30
    assert stats[0]["failures"] == stats[0]["requests"] >= 1  # chosen, refused, and the call went on
