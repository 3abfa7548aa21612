"""judgebox.client against real servers: the shared ``judgebox serve``, one that wants a token, and tiny
loopback HTTP servers that misbehave on purpose (504s, 429 with Retry-After, 500, broken streams)."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

import judgebox
from judgebox.client import (
    IDLE_TIMEOUT,
    AsyncClient,
    Client,
    ClientError,
    DeadlineExceeded,
    ServerRejected,
    ServerUnavailable,
)
from support.scripted_http import Scripted, batch_line, cut, hang_up, kept_alive, reply, slowly, stream
from support.server import Server, free_port

ECHO_DOUBLE = "print(2 * int(input()))"
RUN_OK = {"status": "Success", "run_result": {"status": "Finished", "return_code": 0, "stdout": "ok\n"}}


# --- the real judgebox server ---------------------------------------------------------------------------------

@pytest.mark.slow  # about 6 s in all on this busy 2-core machine
def test_run_code_success_failure_and_timeout(server):
    with Client(server.url) as client:
        assert client.ping() is True
        assert client.health()["status"] == "ok"
        ok = client.run_code("print(input()[::-1])", stdin="abc")
        assert (ok.status, ok.run_result.stdout, ok.run_result.return_code) == ("Success", "cba\n", 0)
        assert len(ok.request_id) == 32
        failed = client.run_code("import sys\nprint('x', file=sys.stderr)\nsys.exit(3)")
        assert (failed.status, failed.run_result.return_code, failed.run_result.verdict) == ("Failed", 3, "RE")
        assert failed.run_result.stderr == "x\n"
        slow = client.run_code("while True: pass", run_timeout=0.5)
        assert (slow.status, slow.run_result.status, slow.run_result.verdict) == ("Failed", "TimeLimitExceeded", "TLE")
        files = client.run_code("open('out.txt', 'w').write(open('in.txt').read().upper())",
                                files={"in.txt": b"hello"}, fetch_files=["out.txt"])
        assert base64.b64decode(files.files["out.txt"]) == b"HELLO"


def test_judge_with_cases_and_verl_test_cases(server):
    with Client(server.url) as client:
        cases = [judgebox.Case.stdio("2\n", "4\n"), {"stdin": "3", "expected_output": "6"}]
        mixed = client.judge(ECHO_DOUBLE, cases=cases)
        assert (mixed.verdict, mixed.passed, mixed.total, len(mixed.cases)) == ("AC", 2, 2, 2)
        wrong = client.judge(ECHO_DOUBLE, cases=[{"stdin": "2", "expected_output": "5"}])
        assert (wrong.verdict, wrong.passed) == ("WA", 0)
        verl = client.judge(ECHO_DOUBLE, test_cases={"inputs": ["1", "5"], "outputs": ["2", "10"]})
        assert (verl.verdict, verl.total) == ("AC", 2)
        call = client.judge("def add(a, b):\n    return a + b",
                            test_cases=json.dumps({"fn_name": "add", "inputs": ["1\n2", "[1]\n[2]"],
                                                   "outputs": ["3", "[1, 2]"]}))
        assert (call.verdict, call.passed) == ("AC", 2)
        records = client.judge("def f(x):\n    return x * x", cases=[judgebox.Case.call("f", [3], 9),
                                                                      judgebox.Case.asserts("assert f(4) == 16")])
        assert records.verdict == "AC"
        tle = client.judge("while True: pass", cases=[{"expected_output": ""}], limits=judgebox.Limits(cpu_time=0.5))
        assert tle.verdict == "TLE"


def test_rejections_carry_status_detail_and_request_id(server):
    with Client(server.url) as client:
        with pytest.raises(ServerRejected) as missing:
            client.judge("print(1)")  # neither cases nor test_cases
        assert missing.value.status == 422 and "give cases or test_cases" in str(missing.value.detail)
        assert missing.value.request_id and missing.value.request_id in str(missing.value)
        with pytest.raises(ServerRejected) as checker:
            client.judge("print(1)", cases=[{"expected_output": "1"}], checker="no-such-checker")
        assert checker.value.status == 422 and "no-such-checker" in checker.value.detail


def test_judge_batch_streams_every_index_once(server):
    submissions = [{"code": ECHO_DOUBLE, "cases": [{"stdin": str(i), "expected_output": str(2 * i + i % 3 // 2)}]}
                   for i in range(40)]
    submissions.append(judgebox.Submission(ECHO_DOUBLE, (judgebox.Case.stdio("7", "14"),)))
    submissions.append({"code": "print(1)", "cases": [{"expected_output": "1"}], "checker": "no-such-checker"})
    with Client(server.url) as client:
        lines = list(client.judge_batch(submissions))
    assert sorted(line.index for line in lines) == list(range(len(submissions)))
    by_index = {line.index: line for line in lines}
    for i in range(40):
        assert by_index[i].result.verdict == ("WA" if i % 3 == 2 else "AC"), i
    assert by_index[40].result.verdict == "AC"
    assert by_index[41].result is None and "no-such-checker" in by_index[41].error
    assert len({line.request_id for line in lines}) == 1


@pytest.mark.slow  # about 9 s in all on this busy 2-core machine
def test_judge_batch_yields_lines_as_they_arrive(server):
    server.wait_for_self_tests()  # they hold the slots: the fast one would queue behind them
    slow = {"code": "import time\ntime.sleep(1.5)\nprint(1)", "cases": [{"expected_output": "1"}]}
    fast = {"code": "print(1)", "cases": [{"expected_output": "1"}]}
    with Client(server.url) as client:
        started = time.monotonic()
        stream = client.judge_batch([slow, fast])
        first = next(stream)
        first_at = time.monotonic() - started
        rest = list(stream)
        assert (first.index, [line.index for line in rest]) == (1, [0])
        assert first_at < 1.2 < time.monotonic() - started
        stream = client.judge_batch([fast, fast, fast])
        next(stream)
        stream.close()  # leaving early releases the connection; the client goes on working
        assert client.ping()


def test_many_threads_share_one_client(server):
    with Client(server.url) as client, ThreadPoolExecutor(8) as pool:
        replies = list(pool.map(lambda i: client.run_code(f"print({i} * 2)"), range(24)))
    assert [r.run_result.stdout for r in replies] == [f"{2 * i}\n" for i in range(24)]
    assert len({r.request_id for r in replies}) == 24


def test_async_client(server):
    async def main() -> None:
        async with AsyncClient(server.url) as client:
            assert await client.ping() and (await client.health())["status"] == "ok"
            replies = await asyncio.gather(*(client.run_code("print(input())", stdin=str(i)) for i in range(8)))
            assert [r.run_result.stdout for r in replies] == [f"{i}\n" for i in range(8)]
            tle = await client.run_code("while True: pass", run_timeout=0.5)
            assert tle.run_result.status == "TimeLimitExceeded"
            judged = await client.judge(ECHO_DOUBLE, test_cases={"inputs": ["4"], "outputs": ["8"]})
            assert judged.verdict == "AC"
            batch = [{"code": ECHO_DOUBLE, "cases": [{"stdin": str(i), "expected_output": str(2 * i)}]}
                     for i in range(20)]
            lines = [line async for line in client.judge_batch(batch)]
            assert sorted(line.index for line in lines) == list(range(20))
            assert all(line.result.verdict == "AC" for line in lines)
            with pytest.raises(ServerRejected) as rejected:
                await client.judge("print(1)")
            assert rejected.value.status == 422

    asyncio.run(main())


@pytest.mark.slow  # about 9 s in all on this busy 2-core machine
def test_bearer_token(monkeypatch):
    monkeypatch.delenv("JUDGEBOX_TOKEN", raising=False)
    with Server("--workers", "1", "--token", "secret") as running:
        for token in (None, "wrong"):
            with Client(running.url, token=token) as client:
                assert client.ping()  # open without the token
                with pytest.raises(ServerRejected) as refused:
                    client.run_code("print(1)")
                assert (refused.value.status, refused.value.detail) == (401, "missing or wrong bearer token")
        with Client(running.url, token="secret") as client:
            assert client.run_code("print(1)").run_result.stdout == "1\n"
        monkeypatch.setenv("JUDGEBOX_TOKEN", "secret")
        with Client(running.url) as client:
            assert client.judge("print(1)", cases=[{"expected_output": "1"}]).verdict == "AC"

        async def refused_then_accepted() -> None:
            async with AsyncClient(running.url, token="wrong") as client:
                with pytest.raises(ServerRejected):
                    await client.run_code("print(1)")
            async with AsyncClient(running.url) as client:
                assert (await client.run_code("print(1)")).status == "Success"

        asyncio.run(refused_then_accepted())


# --- connection errors and deadlines --------------------------------------------------------------------------

def test_connection_refused_is_retried_then_unavailable():
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    started = time.monotonic()
    with Client(url, max_attempts=4, backoff=0.05) as client, pytest.raises(ServerUnavailable) as failed:
        client.run_code("print(1)", deadline=10)
    assert failed.value.attempts == 4 and failed.value.status is None
    assert isinstance(failed.value.__cause__, httpx.ConnectError)
    assert time.monotonic() - started < 2


def test_retry_on_connection_errors_reaches_a_server_that_comes_up_late():
    port = free_port()
    scripted = Scripted(reply(200, RUN_OK), port=port, start_after=0.6)
    with scripted, Client(f"http://127.0.0.1:{port}", max_attempts=20, backoff=0.1, max_backoff=0.5) as client:
        started = time.monotonic()
        assert client.run_code("print(1)", deadline=10).run_result.stdout == "ok\n"
        assert time.monotonic() - started >= 0.5
    assert len(scripted.requests) == 1


def test_deadline_bounds_retries_against_a_refused_port():
    url = f"http://127.0.0.1:{free_port()}"
    started = time.monotonic()
    with Client(url, max_attempts=1000, backoff=0.2, max_backoff=1.0) as client:
        with pytest.raises(DeadlineExceeded) as expired:
            client.run_code("print(1)", deadline=1.5)
    assert time.monotonic() - started < 2.0
    assert isinstance(expired.value, TimeoutError) and "ConnectError" in str(expired.value)


def test_deadline_caps_an_attempt_that_gets_no_answer():
    with socket.socket() as silent:  # accepts connections in the backlog, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}"
        with Client(url, timeout=1.0) as client:
            started = time.monotonic()
            with pytest.raises(DeadlineExceeded) as expired:
                client.run_code("print(1)")
            assert isinstance(expired.value.__cause__, httpx.ReadTimeout)
            assert 0.9 < time.monotonic() - started < 1.8

        async def silent_async() -> None:
            async with AsyncClient(url, timeout=0.5) as client:
                await client.ping()

        started = time.monotonic()
        with pytest.raises(DeadlineExceeded):
            asyncio.run(silent_async())
        assert time.monotonic() - started < 1.3


# --- status codes, from tiny real HTTP servers on loopback ------------------------------------------------------

def test_504_is_retried_with_the_same_request_id():
    with Scripted(reply(504, {"detail": "busy"}), reply(504, {"detail": "busy"}), reply(200, RUN_OK)) as scripted:
        with Client(scripted.url, backoff=0.01) as client:
            answer = client.run_code("print(1)")
    assert answer.run_result.stdout == "ok\n"
    assert [path for path, _, _ in scripted.requests] == ["/run_code"] * 3
    assert {headers["X-Request-ID"] for _, headers, _ in scripted.requests} == {answer.request_id}
    assert json.loads(scripted.requests[0][2])["code"] == "print(1)"


def test_a_dropped_connection_is_retried():
    with Scripted(hang_up, hang_up, reply(200, RUN_OK)) as scripted, Client(scripted.url, backoff=0.01) as client:
        assert client.run_code("print(1)").run_result.stdout == "ok\n"  # RemoteProtocolError twice, then fine
    assert len(scripted.requests) == 3


def test_waiting_for_a_pooled_connection_ends_at_the_deadline():
    with Scripted(slowly(0.8, reply(200, RUN_OK))) as scripted:
        with Client(scripted.url, pool_limits=httpx.Limits(max_connections=1)) as client:
            holder = threading.Thread(target=client.run_code, args=("print(1)",))
            holder.start()
            time.sleep(0.1)  # the one connection is busy for 0.7 s more
            started = time.monotonic()
            with pytest.raises(DeadlineExceeded) as expired:
                client.run_code("print(1)", deadline=0.3)
            assert isinstance(expired.value.__cause__, httpx.PoolTimeout)
            assert time.monotonic() - started < 0.6
            holder.join()


def test_retries_exhausted_and_retry_after_respected():
    with Scripted(reply(503, {"detail": "down for a moment"})) as scripted:
        with Client(scripted.url, max_attempts=3, backoff=0.01) as client, pytest.raises(ServerUnavailable) as down:
            client.ping()
    assert (down.value.attempts, down.value.status, down.value.detail) == (3, 503, "down for a moment")
    assert len(scripted.requests) == 3
    with Scripted(reply(429, {"detail": "slow down"}, {"Retry-After": "1"}), reply(200, RUN_OK)) as scripted:
        with Client(scripted.url, backoff=0.01) as client:
            started = time.monotonic()
            client.run_code("print(1)")
            assert time.monotonic() - started >= 1.0
    with Scripted(reply(429, {"detail": "slow down"}, {"Retry-After": "30"}), reply(200, RUN_OK)) as scripted:
        started = time.monotonic()
        with Client(scripted.url) as client, pytest.raises(DeadlineExceeded, match="HTTP 429: slow down"):
            client.run_code("print(1)", deadline=2)  # the wait asked for ends past the deadline: give up now
        assert time.monotonic() - started < 0.5 and len(scripted.requests) == 1


def test_500_and_other_4xx_are_not_retried():
    for status in (500, 400, 404):
        with Scripted(reply(status, {"detail": f"no {status}"}), reply(200, RUN_OK)) as scripted:
            with Client(scripted.url, backoff=0.01) as client, pytest.raises(ServerRejected) as rejected:
                client.run_code("print(1)")
        assert (rejected.value.status, rejected.value.detail, len(scripted.requests)) == (status, f"no {status}", 1)
    with Scripted(reply(200, {"not": "a response"})) as scripted, Client(scripted.url) as client:
        with pytest.raises(ClientError, match="not a RunCodeReply"):
            client.run_code("print(1)")


def test_async_retries_504_then_succeeds():
    async def main(url: str) -> str:
        async with AsyncClient(url, backoff=0.01) as client:
            return (await client.run_code("print(1)")).run_result.stdout

    with Scripted(reply(504, {"detail": "busy"}), reply(502, {}), reply(200, RUN_OK)) as scripted:
        assert asyncio.run(main(scripted.url)) == "ok\n"
    assert len(scripted.requests) == 3


def test_batch_stream_retried_and_resumed_with_the_submissions_it_had_no_line_for():
    two = [{"code": f"print({i})", "cases": [{"expected_output": str(i)}]} for i in range(2)]
    with Scripted(cut(b""), stream(batch_line(1) + batch_line(0))) as scripted:
        with Client(scripted.url, backoff=0.01) as client:
            assert sorted(line.index for line in client.judge_batch(two)) == [0, 1]
    assert len(scripted.requests) == 2
    with Scripted(cut(batch_line(1)), stream(batch_line(0))) as scripted:
        with Client(scripted.url, backoff=0.01) as client:
            assert [line.index for line in client.judge_batch(two)] == [1, 0]
    resumed = json.loads(scripted.requests[1][2])["submissions"]
    assert len(scripted.requests) == 2 and [s["code"] for s in resumed] == ["print(0)"]
    with Scripted(cut(batch_line(1)), stream(batch_line(1))) as scripted:  # a line for a submission not sent
        with Client(scripted.url, backoff=0.01) as client, pytest.raises(ClientError, match="index 1"):
            list(client.judge_batch(two))

    async def broken(url: str) -> list[int]:
        async with AsyncClient(url, backoff=0.01) as client:
            return [line.index async for line in client.judge_batch(two)]

    with Scripted(cut(batch_line(0)), stream(batch_line(0))) as scripted:
        assert asyncio.run(broken(scripted.url)) == [0, 1]
    assert [s["code"] for s in json.loads(scripted.requests[1][2])["submissions"]] == ["print(1)"]
    with Scripted(stream(batch_line(0))) as scripted, pytest.raises(ClientError, match="after 1 of 2 lines"):
        asyncio.run(broken(scripted.url))


# --- keepalive: /judge and /judge/batch kept visibly alive, hung endpoints found by idleness ------------------

JUDGE_AC = {"verdict": "AC", "score": 1.0, "passed": 1, "total": 1, "message": "", "cases": [], "wall_time": 0.0,
            "cpu_time": 0.0, "queue_time": 0.0}
ONE = [{"expected_output": "1"}]


def judge_posts(scripted: Scripted) -> int:
    return sum(path == "/judge" for path, _, _ in scripted.requests)


def test_judge_and_batch_ask_for_keepalive_run_code_does_not():
    with Scripted(reply(200, JUDGE_AC), stream(batch_line(0)), reply(200, RUN_OK)) as scripted:
        with Client(scripted.url) as client:
            client.judge("print(1)", cases=ONE)
            list(client.judge_batch([{"code": "print(1)", "cases": ONE}]))
            client.run_code("print(1)")
    assert [h.get("X-Judgebox-Keepalive") for _, h, _ in scripted.requests] == ["1", "1", None]


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
def test_a_slow_endpoint_kept_alive_keeps_its_attempt_past_the_idle_timeout():
    """Alive (a space every 0.3 s) for longer than IDLE_TIMEOUT: the attempt goes on, nothing is retried
    elsewhere, no endpoint is failed."""
    slow = kept_alive(IDLE_TIMEOUT + 1, JUDGE_AC, every=0.3)
    with Scripted(slow) as first, Scripted(slow) as second, Client([first.url, second.url]) as client:
        started = time.monotonic()
        assert client.judge("print(1)", cases=ONE, deadline=IDLE_TIMEOUT + 4).verdict == "AC"
        assert IDLE_TIMEOUT + 1 <= time.monotonic() - started < IDLE_TIMEOUT + 3
        stats = client.endpoints()
    assert judge_posts(first) + judge_posts(second) == 1
    assert not any(e["failures"] or e["ejections"] for e in stats), stats


def test_a_kept_alive_answer_is_cut_at_the_deadline_without_failing_its_endpoint():
    with Scripted(kept_alive(30, JUDGE_AC, every=0.2)) as scripted, Client(scripted.url) as client:
        started = time.monotonic()
        with pytest.raises(DeadlineExceeded):
            client.judge("print(1)", cases=ONE, deadline=1.5)
        assert 1.5 <= time.monotonic() - started < 2.2
        assert client.endpoints()[0]["failures"] == 0 and judge_posts(scripted) == 1


@pytest.mark.slow  # about 15 s in all on this busy 2-core machine
@pytest.mark.parametrize("beats", [0.0, 1.5], ids=["headers-then-nothing", "spaces-then-nothing"])
def test_an_endpoint_that_keeps_alive_then_hangs_fails_over_within_the_deadline(beats):
    deadline = 10.0
    with Scripted(kept_alive(beats, None, every=0.3)) as bad, Scripted(reply(200, JUDGE_AC)) as good:
        with Client([bad.url, good.url]) as client:
            for i in range(12):  # until one call has gone to the bad one first (ties are random)
                started = time.monotonic()
                assert client.judge(f"print(1)  # {i}", cases=ONE, deadline=deadline).verdict == "AC"
                seconds = time.monotonic() - started
                if judge_posts(bad):
                    break
            stats = {e["url"]: e for e in client.endpoints()}
    assert judge_posts(bad) == 1, "no call went to the bad endpoint"
    assert beats + IDLE_TIMEOUT - 0.3 < seconds < beats + IDLE_TIMEOUT + 1.5, seconds  # idle, then elsewhere
    assert stats[bad.url]["failures"] == 1 and "ReadTimeout" in stats[bad.url]["last_failure"], stats
    assert stats[good.url]["failures"] == 0

    async def twin() -> tuple[str, float]:
        async with AsyncClient([bad.url, good.url]) as client:
            started = time.monotonic()
            answers = await asyncio.gather(*(client.judge(f"print(1)  # a{i}", cases=ONE, deadline=deadline)
                                             for i in range(6)))
            return {a.verdict for a in answers}, time.monotonic() - started

    with Scripted(kept_alive(beats, None, every=0.3)) as bad, Scripted(reply(200, JUDGE_AC)) as good:
        verdicts, seconds = asyncio.run(twin())
    assert verdicts == {"AC"} and seconds < beats + IDLE_TIMEOUT + 1.5 and judge_posts(bad) >= 1


def test_an_error_after_the_keepalive_began_keeps_its_meaning():
    """``{"detail", "status", "retry"}`` ending a kept-alive 200: retry true is a 504 (retried), else the
    status it names (not retried)."""
    overloaded = {"detail": "no slot within 30 s", "status": 504, "retry": True}
    with Scripted(kept_alive(0.5, overloaded, every=0.2), reply(200, JUDGE_AC)) as scripted:
        with Client(scripted.url, backoff=0.01) as client:
            assert client.judge("print(1)", cases=ONE).verdict == "AC"
            assert client.endpoints()[0]["failures"] == 0  # busy (it said when to come back), not broken
    assert judge_posts(scripted) == 2
    invalid = {"detail": "no such checker", "status": 422, "retry": False}
    with Scripted(kept_alive(0.3, invalid, every=0.2)) as scripted, Client(scripted.url) as client:
        with pytest.raises(ServerRejected) as rejected:
            client.judge("print(1)", cases=ONE)
    assert (rejected.value.status, rejected.value.detail, judge_posts(scripted)) == (422, "no such checker", 1)


def test_batch_keepalive_lines_are_skipped():
    two = [{"code": f"print({i})", "cases": [{"expected_output": str(i)}]} for i in range(2)]
    with Scripted(stream(b"\n \n" + batch_line(1) + b"\n\n" + batch_line(0) + b"\n")) as scripted:
        with Client(scripted.url) as client:
            assert [line.index for line in client.judge_batch(two)] == [1, 0]


@pytest.mark.slow  # about 8 s in all on this busy 2-core machine
def test_the_server_keeps_a_slow_judge_alive_and_keeps_its_statuses(server):
    """The real server: with the header, a judging longer than KEEPALIVE is a 200 of spaces, then its JSON
    (read here with a read timeout shorter than the judging); an invalid request is still a 422; a batch
    sends blank lines between its lines; without the header, plain JSON."""
    slow = {"code": "import time\ntime.sleep(2.5)\nprint(1)\n# kept alive", "cases": ONE}
    keep = {"X-Judgebox-Keepalive": "1"}
    with httpx.Client(base_url=server.url, timeout=httpx.Timeout(30, read=1.8)) as http:
        answer = http.post("/judge", json=slow, headers=keep)
        assert answer.status_code == 200 and answer.content[:1] == b" ", answer.content[:50]
        assert json.loads(answer.content)["verdict"] == "AC"
        assert http.post("/judge", json={"code": "print(1)"}, headers=keep).status_code == 422
        fast = http.post("/judge", json={"code": "print(1)", "cases": ONE}, headers=keep)
        assert fast.content[:1] == b"{" and fast.json()["verdict"] == "AC"  # done within KEEPALIVE: plain JSON
        batch = http.post("/judge/batch", json={"submissions": [{**slow, "code": slow["code"] + " (batch)"}]},
                          headers=keep)
        lines = batch.text.split("\n")
        assert "" in lines[:-2] and json.loads(lines[-2])["result"]["verdict"] == "AC", lines
    with httpx.Client(base_url=server.url, timeout=30) as http:
        plain = http.post("/judge", json={**slow, "code": slow["code"] + " (plain)"})
        assert plain.content[:1] == b"{" and plain.json()["verdict"] == "AC"


# --- a tiny scripted HTTP server -------------------------------------------------------------------------------


def test_post_json_returns_a_foreign_servers_answer_unvalidated(server):
    """SandboxFusion-compatible servers may answer more, or less, than judgebox's schema: taken as JSON."""
    body = {"code": "print(6 * 7)", "language": "python"}
    with Client(server.url) as client:
        assert client.post_json("/run_code", body)["run_result"]["stdout"] == "42\n"

    async def twin() -> dict:
        async with AsyncClient(server.url) as client:
            return await client.post_json("/run_code", body)

    assert asyncio.run(twin())["run_result"]["stdout"] == "42\n"
