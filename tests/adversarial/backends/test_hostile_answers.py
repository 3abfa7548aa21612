"""Answers of a hostile or broken server, as judgebox's client and the backends over it read them: a server a
trainer talks to must not hold a call past its deadline, fill the caller's memory, raise past the client's errors,
or turn its failure into a verdict or a reward (it is SE: no reward). Each server here is a scripted one on
loopback (``support.scripted_http``). A test's comment says which attack it pins; "Broke (fixed)" ones were found
by a review of the client package and the backends' facade."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from judgebox import Case, Verdict, rewards
from judgebox.backends.server import ServerJudge
from judgebox.client import Client, ClientError
from judgebox.verl import default_compute_score
from support.scripted_http import Scripted, batch_line, case_result, kept_alive, reply, stream

ECHO = "print(input())"
COMPLETION = "```python\nprint(input())\n```"
GROUND_TRUTH = {"inputs": ["1\n"], "outputs": ["1\n"]}


# -- scripted answers of a hostile or broken server ------------------------------------------------------------------

def _raw(body: bytes, headers: dict[str, str]):
    """A 200 with ``body`` as it is, under ``headers``."""
    def answer(handler) -> None:
        handler.send_response(200)
        for name, value in headers.items():
            handler.send_header(name, value)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
    return answer


def _trickle(prefix: bytes, seconds: float):
    """A 200 that sends ``prefix``, then one non-blank byte every 0.3 s for ``seconds``: bytes keep coming (no
    read ever times out), and the answer never ends (no newline, no closing brace)."""
    return kept_alive(seconds, None, every=0.3, hang=0, prefix=prefix, beat=b"x")


DEEP = b"[" * 200_000 + b"]" * 200_000  # valid JSON, nested past Python's recursion limit
BAD_GZIP = b"this is not gzip"


def _broken(kind: str):
    if kind == "deep":
        return _raw(DEEP, {"Content-Type": "application/json"})
    return _raw(BAD_GZIP, {"Content-Type": "application/json", "Content-Encoding": "gzip"})


def _judge_answer(cases: list[str], total: int) -> dict:
    return {"verdict": "AC", "score": 1.0, "passed": len(cases), "total": total, "message": "",
            "cases": [case_result(v, stdout="1\n") for v in cases], "wall_time": 0.0, "cpu_time": 0.0,
            "queue_time": 0.0}


# -- the client: deadlines against answers that trickle ----------------------------------------------------------------

@pytest.mark.slow  # the scripted server trickles for 8 s whether or not the client stays
# Broke (fixed): ServerJudge(timeout=1.5) against a /judge answer trickling one 'x' every 0.3 s returned after 8.1
# s, when the server stopped trickling (timeout=3 against a 30 s trickle: 30.0 s), not at its deadline.
# Client._body's call.beat(chunk) checks the deadline only for blank chunks, and httpx's read timeout is per read,
# so an endpoint that keeps sending non-blank bytes holds a call (and a verl/TRL reward thread) for as long as it
# likes
def test_a_trickled_judge_answer_ends_at_the_deadline():
    with Scripted(_trickle(b'{"verdict": "', seconds=8)) as scripted:
        backend = ServerJudge(scripted.url, timeout=1.5)
        try:
            started = time.monotonic()
            result = backend.judge_submission(backend.submission(ECHO, [Case.stdio("1\n", "1\n")]))
            took = time.monotonic() - started
        finally:
            backend.close()
    assert result.verdict is Verdict.SE
    assert took < 1.5 + 2.5, f"a call with a 1.5 s deadline took {took:.1f} s"


@pytest.mark.slow  # the scripted server trickles for 8 s whether or not the client stays
# Broke (fixed): /run_code (SandboxFusion's path, no keepalive) with deadline=1.5 against an answer trickling one
# byte every 0.3 s took 8.1 s, the whole time the server trickled: the attempt's httpx timeout bounds each read, not
# the answer
def test_a_trickled_run_code_answer_ends_at_the_deadline():
    with Scripted(_trickle(b'{"status": "', seconds=8)) as scripted, Client(scripted.url) as client:
        started = time.monotonic()
        with pytest.raises(ClientError):
            client.run_code("print(1)", deadline=1.5)
        took = time.monotonic() - started
    assert took < 1.5 + 2.5, f"a call with a 1.5 s deadline took {took:.1f} s"


@pytest.mark.slow  # the scripted server trickles for 8 s whether or not the client stays
# Broke (fixed): ServerJudge(timeout=1.5).judge_many over a /judge/batch stream whose one line never ends (a byte
# every 0.3 s, no newline) returned after 8.1 s, when the server stopped (timeout=3 against a 20 s stream: 20.0 s);
# Client._stream reads with iter_lines and checks the deadline only per whole line, and the line grows in memory
# meanwhile (no bound on a line's size)
def test_a_batch_line_that_never_ends_ends_at_the_deadline():
    with Scripted(_trickle(b'{"index": 0, "result": null, "error": "', seconds=8)) as scripted:
        backend = ServerJudge(scripted.url, timeout=1.5)
        try:
            started = time.monotonic()
            results = dict(backend.judge_many([backend.submission(ECHO, [Case.stdio("1\n", "1\n")])]))
            took = time.monotonic() - started
        finally:
            backend.close()
    assert results[0].verdict is Verdict.SE
    assert took < 1.5 + 2.5, f"a batch with a 1.5 s deadline took {took:.1f} s"


# -- the client: what a broken answer raises -------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["deep", "gzip"])
# Broke (fixed): a 200 whose JSON nests 200,000 deep raised RecursionError out of ServerJudge.judge_submission
# (Client.post_json's json.loads; call.parse catches ValueError and ValidationError only), and a 200 with Content-
# Encoding: gzip over bytes that are not gzip raised httpx.DecodingError (a RequestError, not a TransportError:
# Client._send re-raises it). Neither is a ClientError, so the submission gets no SE result and judge_many's whole
# batch dies with it
def test_a_broken_answer_is_an_se_result_not_an_exception(kind):
    with Scripted(_broken(kind)) as scripted:
        backend = ServerJudge(scripted.url, timeout=5)
        try:
            result = backend.judge_submission(backend.submission(ECHO, [Case.stdio("1\n", "1\n")]))
        finally:
            backend.close()
    assert result.verdict is Verdict.SE


@pytest.mark.parametrize("kind", ["deep", "gzip"])
# Broke (fixed): verl's default_compute_score with sandbox_fusion_url=judgebox://<a server answering that> raised
# RecursionError / httpx.DecodingError out of the reward function (judgebox_profile._judge catches ClientError,
# JudgeboxError and OSError only): a verl reward worker dies instead of scoring the sample an infra_error
def test_verl_scores_a_broken_servers_answer_as_an_infra_error(kind):
    with Scripted(_broken(kind)) as scripted:
        scored = default_compute_score("codecontests", COMPLETION, GROUND_TRUTH,
                                       sandbox_fusion_url=f"judgebox://127.0.0.1:{scripted.port}")
    assert scored["infra_error"] is True


BOMB_CHILD = """
import resource, sys, zlib
sys.path.insert(0, sys.argv[1])
from support.scripted_http import Scripted
from judgebox.client import Client, ClientError

packer = zlib.compressobj(9, zlib.DEFLATED, 31)
body = b"".join(packer.compress(b" " * (1 << 20)) for _ in range(384)) + packer.flush()  # 384 MiB of spaces

def answer(handler):
    handler.send_response(200)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Encoding", "gzip")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)

before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with Scripted(answer) as scripted, Client(scripted.url, timeout=60) as client:
    try:
        client.judge("print(1)", test_cases={"inputs": ["1"], "outputs": ["1"]})
    except ClientError:
        pass
print(len(body), (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) * 1024)
"""


@pytest.mark.slow  # inflates 384 MiB in a child process
# Broke (fixed): a /judge answer of 382 KiB of gzip (384 MiB of spaces once inflated) grew the client's peak memory
# by 1119 MiB (a 299 KiB one: 915 MiB) before it said BadAnswer: httpx asks for gzip, and Client._body joins every
# chunk of an answer with no bound (iter_lines of a batch stream neither), so a server can take a trainer's reward
# process down with one answer
def test_a_compressed_answer_cannot_balloon_the_clients_memory():
    tests = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    child = subprocess.run([sys.executable, "-c", BOMB_CHILD, tests], capture_output=True, text=True, timeout=120)
    assert child.returncode == 0, child.stderr[-2000:]
    sent, grown = map(int, child.stdout.split())
    assert grown < 128 * 2**20, f"{sent} bytes of answer grew the client's peak by {grown / 2**20:.0f} MiB"


# -- the client: answers that do not fit the submission --------------------------------------------------------------

# Broke (fixed): a 3-case submission answered {verdict AC, total 1, one AC case} (a server that judged another
# reading of the test data, a proxy that cut the answer) got rewards.reward 1.0: wire.convert.judge_result takes the
# server's total and cases as they are, and ServerJudge never compares them with the submission it sent
def test_an_answer_for_fewer_cases_than_were_sent_earns_no_reward():
    with Scripted(reply(200, _judge_answer(["AC"], total=1))) as scripted:
        backend = ServerJudge(scripted.url, timeout=5)
        try:
            submission = backend.submission("print(1)", [Case.stdio(str(i), "1") for i in range(3)])
            result = backend.judge_submission(submission)
        finally:
            backend.close()
    assert rewards.reward(result) is None or (result.total == 3 and rewards.reward(result) < 1.0)


def test_batch_lines_for_wrong_or_repeated_indexes_never_cross_submissions():
    """Held: a /judge/batch stream that answers submission 1 twice (AC, then WA) and an index no submission has
    gives submission 1 its first line only, and submission 0 (which got no line) an SE: no submission ever gets a
    line meant for another, and nothing raises."""
    with Scripted(stream(batch_line(1) + batch_line(1, "WA") + batch_line(7))) as scripted:
        backend = ServerJudge(scripted.url, timeout=5)
        try:
            submissions = [backend.submission(f"print({k})", [Case.stdio("", str(k))]) for k in range(2)]
            results = dict(backend.judge_many(submissions))
        finally:
            backend.close()
    assert results[0].verdict is Verdict.SE
    assert results[1].verdict is Verdict.AC
