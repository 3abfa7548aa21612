"""``judgebox.connect(...)``: the embedded judge's methods over real ``judgebox serve``
processes, so the generic batch scorer (and the trainers' functions built on it) run on shared servers.

Real data: MBPP problems with their references (AC) and, for each, a program whose functions return None (WA).
What each should get is what the embedded judge gives it. A server that is down, or answers what is not a
judge result, is an SE result for the submission (no reward), never a verdict and never an exception.
"""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import http.server
import json
import os
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import judgebox
from judgebox import Case, Limits, Verdict, rewards
from judgebox.backends import registry
from judgebox.backends.sandboxfusion import RunCodeServer
from judgebox.backends.server import ServerJudge
from judgebox.errors import JudgeClosed, UnknownAddress
from judgebox.verl import parity
from support.data import load_dataset
from support.server import Server, free_port
from support.special_judges import program

LIMITS = Limits(cpu_time=5, memory_mb=256)
PROBLEMS = 8


def _submissions() -> list[judgebox.Submission]:
    submissions = []
    for record in load_dataset("mbpp.jsonl"):
        checked = record["meta"]["validation"]["solutions"][0]
        if checked["strict"] != 1.0 or checked["max_t"] > 0.5 or not record["test_cases"]["assert_case"]:
            continue
        wrong = record["solutions"][0] + "\n\n" + "\n".join(
            f"def {name}(*args, **kwargs):\n    return None\n"
            for name in {line.split("(")[0].split()[-1] for line in record["test_cases"]["assert_case"]
                         if line.startswith("assert ") and "(" in line})
        for code in (record["solutions"][0], wrong):
            submissions.append(judgebox.Judge.submission(code, record["test_cases"], limits=LIMITS))
        if len(submissions) >= 2 * PROBLEMS:
            break
    return submissions


@pytest.fixture(scope="module")
def servers():
    with Server("--workers", "1") as first, Server("--workers", "1") as second:
        yield f"{first.url},{second.url}"


def _verdicts(result: judgebox.JudgeResult) -> tuple:
    return result.verdict, result.total, tuple(case.verdict for case in result.cases)


@pytest.mark.slow  # about 30 s in all on this busy 2-core machine
def test_results_are_the_embedded_judges_one_by_one_async_and_many(servers, judge):
    submissions = _submissions()
    expected = [_verdicts(judge.judge_submission(s)) for s in submissions]
    assert {e[0] for e in expected} == {Verdict.AC, Verdict.WA}  # the data has right and wrong programs
    with judgebox.connect(servers) as remote:
        assert isinstance(remote, ServerJudge)
        assert [_verdicts(remote.judge_submission(s)) for s in submissions] == expected

        async def together() -> list[judgebox.JudgeResult]:
            return await asyncio.gather(*(remote.judge_submission_async(s) for s in submissions))

        assert [_verdicts(r) for r in asyncio.run(together())] == expected
        many = dict(remote.judge_many(submissions))
        assert sorted(many) == list(range(len(submissions)))
        assert [_verdicts(many[i]) for i in range(len(submissions))] == expected
        assert [e["requests"] > 0 for e in remote.client.endpoints()] == [True, True]  # both servers worked


def test_score_batch_runs_on_servers(servers):
    record = next(r for r in load_dataset("mbpp.jsonl") if r["test_cases"]["assert_case"])
    samples = [{"completion": f"```python\n{record['solutions'][0]}\n```", "test_cases": record["test_cases"]},
               {"completion": "no program here", "test_cases": record["test_cases"]}]
    with judgebox.connect(servers) as remote:
        results = rewards.score_batch_sync(samples, judge=remote)
    assert [rewards.reward(r) for r in results] == [1.0, 0.0]


@pytest.mark.slow  # about 6 s in all on this busy 2-core machine
def test_a_server_that_is_down_is_se_for_each_submission_never_a_verdict():
    submissions = _submissions()[:3]
    with judgebox.connect(f"http://127.0.0.1:{free_port()}", timeout=5) as remote:
        results = [remote.judge_submission(s) for s in submissions]
        results += [r for _, r in sorted(remote.judge_many(submissions))]
        results.append(asyncio.run(remote.judge_submission_async(submissions[0])))
    assert [r.verdict for r in results] == [Verdict.SE] * 7
    assert all("the judge server failed" in r.message and rewards.reward(r) is None for r in results)


class _NotAJudge(http.server.BaseHTTPRequestHandler):
    """Answers every request 200 with JSON that is no judge result (a different service on the port)."""

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer()

    def _answer(self) -> None:
        body = b'{"verdict": "AC", "score": 1.0}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_an_answer_that_is_not_a_judge_result_is_se_not_the_ac_it_claims():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NotAJudge)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with judgebox.connect(f"http://127.0.0.1:{server.server_address[1]}",
                            timeout=10) as remote:
            result = remote.judge_submission(_submissions()[0])
    finally:
        server.shutdown()
    assert result.verdict is Verdict.SE and rewards.reward(result) is None


def test_an_address_no_backend_answers_to_is_refused():
    for address in ("ftp://judge:21", "judge-1:8080", 42):
        with pytest.raises(judgebox.errors.UnknownAddress):
            judgebox.connect(address)


def test_every_limit_travels_on_the_wire():
    """A limit the wire lacked would be the server's default there: judged otherwise than embedded."""
    import dataclasses

    from judgebox.wire.schemas import LimitsModel

    assert set(LimitsModel.model_fields) == {field.name for field in dataclasses.fields(Limits)}
    assert LimitsModel().model_dump() == dataclasses.asdict(Limits())  # and the defaults agree


# Attacks on the server backend (``judgebox.Judge(backend="server")``), against
# a real ``judgebox serve``: it must judge what the embedded judge judges, as the embedded judge does, and a
# submission it cannot send is an SE, never an exception in the middle of a batch. A caller without an event
# loop of its own (TRL's sync reward function, score_batch_sync, verl's batch manager) runs each call on a
# fresh loop; the judge's async client per loop must not outlive it.

@pytest.fixture(scope="module")
def remote():
    with Server() as server, ServerJudge(server.url) as judge:
        yield judge


@pytest.mark.slow  # about 6 s in all on this busy 2-core machine
def test_an_interactive_problem_is_judged_on_the_server_with_its_interactor(remote, judge):
    """An interactive problem's cases travel as test data naming its interactor (once a TypeError out of
    judge_submission and judge_many, then an SE): the server's verdict is the embedded judge's. A case
    with limits of its own, which test data cannot carry, is an SE, never judged under other limits."""
    tests = {"inputs": ["777\n"], "outputs": [""], "interactor": program("guess_interactor.py"), "time_limit": 1}
    interactive = judge.submission("pass", tests)
    plain = judge.submission("print(int(input()) * 2)", [Case.stdio("2\n", "4\n")])
    assert judge.judge_submission(interactive).verdict is Verdict.PE  # the embedded judge's verdict
    assert remote.judge_submission(interactive).verdict is Verdict.PE
    assert sorted((i, r.verdict) for i, r in remote.judge_many([interactive, plain, interactive])) == [
        (0, Verdict.PE), (1, Verdict.AC), (2, Verdict.PE)]
    own_limits = dataclasses.replace(interactive, cases=(dataclasses.replace(interactive.cases[0], limits=Limits()),))
    refused = remote.judge_submission(own_limits)
    assert refused.verdict is Verdict.SE and "limits of their own" in refused.message


@pytest.mark.slow  # about 3 s in all on this busy 2-core machine
def test_the_run_time_limit_reaches_the_server(remote, judge):
    """Held since every field of Limits is on /judge's wire (it was TLE embedded, AC on a server)."""
    submission = judge.submission("import time\ntime.sleep(3)\nprint(1)", [Case.stdio("", "1")],
                                  limits=Limits(cpu_time=1, run_time=1))
    assert judge.judge_submission(submission).verdict is Verdict.TLE
    assert remote.judge_submission(submission).verdict is Verdict.TLE


@pytest.mark.slow  # about 5 s in all on this busy 2-core machine
def test_a_loop_per_call_leaves_no_client_or_connection_behind(remote):
    """Held since the server judge keeps one AsyncClient on a loop of its own (it kept one per caller's loop)."""
    def step(n: int) -> None:
        sample = {"code": f"print(1)\n# {n}", "test_cases": {"inputs": [""], "outputs": ["1"]}}
        (result,) = rewards.score_batch_sync([sample], judge=remote)
        assert result.verdict is Verdict.AC, result

    step(0)
    gc.collect()
    descriptors = len(os.listdir("/proc/self/fd"))
    for n in range(1, 21):
        step(n)
    gc.collect()
    assert len(os.listdir("/proc/self/fd")) <= descriptors + 2, "a connection left open per call"
    assert remote.client._pool.users <= 2, remote.client._pool.users


# closed backends, and what a backend raises. The contract (``judgebox/backend.py``): a backend
# raises only for the caller's bad input and for a closed backend (:class:`judgebox.JudgeClosed`); a failure of
# its own while judging is an SE result; it never hangs. An SE masks a sample in training, so a closed
# backend answering SE for every submission would silently mask a whole run.
#
# Real sandboxes; a real ``judgebox serve`` on loopback.

SLEEPS = "import time; time.sleep(1.5); print(1)"
ONE = [Case.stdio("", "1\n")]
C_ECHO = '#include <stdio.h>\nint main(){int x;scanf("%d",&x);printf("%d\\n",x);}'


@pytest.fixture(scope="module")
def server():
    with Server("--workers", "1") as running:
        yield running


# -- the embedded judge ------------------------------------------------------------------------------------


def test_a_closed_judge_refuses_judge_many():
    """Broke (fixed): Judge.judge_many on a closed judge yielded an SE per submission (JudgeClosed as each
    one's message), where ServerJudge raised JudgeClosed: a trainer holding a closed judge masked every sample."""
    judge = judgebox.Judge(slots=1)
    submission = judge.submission("print(1)", ONE)
    judge.close()
    with pytest.raises(JudgeClosed):
        list(judge.judge_many([submission]))
    with pytest.raises(JudgeClosed):
        judge.judge_submission(submission)
    with pytest.raises(JudgeClosed):
        judge.run_code([{"code": "print(1)", "language": "python"}])


def test_a_judge_closed_while_it_judges_finishes_what_it_started():
    """Held: close() lets the runs under way end with their verdicts."""
    judge = judgebox.Judge(slots=1, dedupe=False)
    got: dict[str, object] = {}
    thread = threading.Thread(target=lambda: got.update(r=judge.judge(SLEEPS, ONE)))
    thread.start()
    time.sleep(0.7)
    judge.close()
    thread.join(30)
    assert got["r"].verdict is Verdict.AC


def test_judge_many_on_no_submissions_of_a_closed_judge_still_raises():
    judge = judgebox.Judge(slots=1)
    judge.close()
    with pytest.raises(JudgeClosed):
        list(judge.judge_many([]))


# -- the server backend ------------------------------------------------------------------------------------


def _fresh_sleeper() -> str:
    """SLEEPS, as a program the server has never judged: the module's server keeps every verdict it gave this
    process (one caller), so a second SLEEPS would be answered from its cache at once, before any close."""
    return f"{SLEEPS}  # {uuid.uuid4().hex}"


def _closed_while(backend, call):
    """``call()`` in a thread, the backend closed 0.5 s into it: what it returned or raised, and whether it ended."""
    got: dict[str, object] = {}

    def run() -> None:
        try:
            got["result"] = call()
        except BaseException as exc:
            got["raised"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    time.sleep(0.5)
    backend.close()
    thread.join(30)
    return got, not thread.is_alive()


@pytest.mark.slow  # about 8 s in all on this busy 2-core machine
@pytest.mark.parametrize("how", ["judge", "judge_many", "run_code"])
def test_a_server_backend_closed_under_a_call_raises_judge_closed(server, how):
    """Broke (fixed): a call under way when ServerJudge.close() ran raised httpx's RuntimeError ("Cannot send a
    request, as the client has been closed"), neither JudgeClosed nor an SE result."""
    backend = judgebox.connect(server.url)
    sleeper = _fresh_sleeper()
    calls = {"judge": lambda: backend.judge(sleeper, ONE),
             "judge_many": lambda: list(backend.judge_many([backend.submission(sleeper, ONE)] * 2)),
             "run_code": lambda: backend.run_code([{"code": sleeper, "language": "python"}])}
    got, ended = _closed_while(backend, calls[how])
    assert ended
    assert isinstance(got.get("raised"), JudgeClosed), got


def test_a_server_backend_closed_under_an_async_call_does_not_leave_it_waiting(server):
    """Broke (fixed): close() stopped the backend's own event loop with the request still on it, so a caller
    awaiting judge_async waited forever (measured: still pending 20 s later, "Task was destroyed but it is
    pending")."""
    backend = judgebox.connect(server.url)

    async def main() -> BaseException | None:
        task = asyncio.ensure_future(backend.judge_async(_fresh_sleeper(), ONE))
        await asyncio.sleep(0.5)
        await asyncio.get_running_loop().run_in_executor(None, backend.close)
        try:
            await asyncio.wait_for(task, 15)
        except BaseException as exc:
            return exc
        return None

    assert isinstance(asyncio.run(main()), JudgeClosed)


def test_a_caller_cancelling_its_own_async_call_is_a_cancellation(server):
    """Held with the fix: the caller's own cancel stays a CancelledError (not JudgeClosed), and the backend
    goes on judging for others."""
    with judgebox.connect(server.url) as backend:
        async def main() -> None:
            task = asyncio.ensure_future(backend.judge_async(_fresh_sleeper(), ONE))
            await asyncio.sleep(0.3)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert (await backend.judge_async("print(1)", ONE)).verdict is Verdict.AC
        asyncio.run(main())


# -- limits a backend accepted must judge ------------------------------------------------------------------


@pytest.mark.parametrize("limits", [Limits(memory_mb=256.0), Limits(output_bytes=1e6), Limits(processes=64.0),
                                    Limits(returned_output_bytes=1e5), Limits(open_files=256.0),
                                    Limits(file_size_bytes=1e7)],
                         ids=["memory_mb", "output_bytes", "processes", "returned_output_bytes", "open_files",
                              "file_size_bytes"])
@pytest.mark.parametrize("language, code", [("python", "print(input())"), ("c", C_ECHO)], ids=["python", "c"])
def test_whole_limits_given_as_reals_judge(judge, limits, language, code):
    """Broke (fixed): Limits took 256.0 for memory_mb (and 1e6 for output_bytes...), then the sandbox failed:
    memory_mb=256.0 was an SE ("OSError: [Errno 22] Invalid argument", written into memory.max), and
    returned_output_bytes=1e5 raised a TypeError out of judge() (a slice by a float); on wip-proto's typed
    protocol every one of them is an SE ("run limits: memory_mb: a float, not int"). An SE masks the sample."""
    right = judge.judge(code, [Case.stdio("5\n", "5\n")], language=language, limits=limits)
    wrong = judge.judge(code, [Case.stdio("5\n", "6\n")], language=language, limits=limits)
    assert (right.verdict, wrong.verdict) == (Verdict.AC, Verdict.WA), (right.message, wrong.message)


# attacks on the address -> backend registry (``judgebox.connect``, ``registry.shared``), the one
# place that decides where verl's ``sandbox_fusion_url``, rewards' ``judge=`` and ``judgebox score --backend``
# send their programs. A wrong choice there scores every sample of a run -1 (verl's api_error) or SE.
#
# Real ``judgebox serve`` processes and a stand-in foreign SandboxFusion server, all on loopback. Holes that
# were found are fixed; every test is the behaviour that holds.

A_PLUS_B = {"inputs": ["1 2"], "outputs": ["3"]}


class ForeignSandboxFusion:
    """A SandboxFusion-compatible server that is not judgebox, on loopback: a POST to ``run_path`` is a run that
    printed ``stdout`` (nothing is executed); every other path, and GET /health, is a 404 (SandboxFusion
    has no /health). ``seen`` lists the requests as they came."""

    def __init__(self, run_path: str = "/run_code", stdout: str = "3\n") -> None:
        self.seen: list[tuple[str, str]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, code: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                outer.seen.append(("GET", self.path))
                self._send(404, {"detail": "Not Found"})

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                outer.seen.append(("POST", self.path))
                if self.path.split("?")[0] != run_path:
                    self._send(404, {"detail": "Not Found"})
                    return
                self._send(200, {"status": "Success", "message": "", "compile_result": None, "files": {},
                                 "executor_pod_name": None,
                                 "run_result": {"status": "Finished", "execution_time": 0.01, "return_code": 0,
                                                "stdout": stdout, "stderr": ""}})

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> ForeignSandboxFusion:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# -- which backend a /run_code URL names ------------------------------------------------------------------


@pytest.mark.slow  # about 6 s in all on this busy 2-core machine
@pytest.mark.parametrize("tail", ["?x=1", "?token=abc&y=2", "#fragment"])
def test_a_run_code_url_with_a_query_reaches_the_judgebox_behind_it(server, tail):
    """Broke (fixed): the base URL of a judgebox's /run_code URL was the whole URL less its last 9 characters,
    so ``/run_code?x=1`` became base ``/run`` and every case of every sample was an api_error (-1)."""
    url = server.url + "/run_code" + tail
    backend = registry.shared(url)
    assert isinstance(backend, ServerJudge) and backend.address == [server.url]
    assert parity.check_correctness(url, A_PLUS_B, "print(3)")[0] == [True]
    assert parity.check_correctness(url, A_PLUS_B, "print(4)")[0] == [False]


def test_credentials_in_a_run_code_url_reach_the_judgebox(server):
    """Held: user:password@ in the URL is kept in the base URL."""
    url = server.url.replace("http://", "http://user:secret@") + "/run_code"
    assert parity.check_correctness(url, A_PLUS_B, "print(3)")[0] == [True]
    assert parity.check_correctness(url, A_PLUS_B, "print(4)")[0] == [False]


def test_a_foreign_server_at_run_code_with_a_trailing_slash_is_used_as_given():
    """Held: ``.../run_code/`` is normalised to ``.../run_code`` (endpoint_urls strips the slash)."""
    with ForeignSandboxFusion() as foreign:
        url = foreign.url + "/run_code/"
        assert isinstance(registry.shared(url), RunCodeServer)
        assert parity.check_correctness(url, A_PLUS_B, "print(3)")[0] == [True]
        assert ("POST", "/run_code") in foreign.seen


def test_a_foreign_server_under_a_prefix_is_used_as_given():
    """Held: ``/x/run_code`` probes ``/x/health`` and posts to ``/x/run_code``."""
    with ForeignSandboxFusion(run_path="/x/run_code") as foreign:
        url = foreign.url + "/x/run_code"
        assert isinstance(registry.shared(url), RunCodeServer)
        assert parity.check_correctness(url, A_PLUS_B, "print(3)")[0] == [True]
        assert foreign.seen == [("GET", "/x/health"), ("POST", "/x/run_code")]


def test_a_foreign_server_at_another_path_is_used_as_given():
    with ForeignSandboxFusion(run_path="/api/run") as foreign:
        url = foreign.url + "/api/run"
        assert parity.check_correctness(url, A_PLUS_B, "print(3)")[0] == [True]
        assert ("POST", "/api/run") in foreign.seen


def test_a_mixed_list_of_run_code_and_base_urls_is_refused():
    """Held: several servers must name one path; the mix is refused as bad input, not cut into odd bases."""
    with pytest.raises(UnknownAddress):
        registry.shared(["http://127.0.0.1:9/run_code", "http://127.0.0.1:10"])
    with pytest.raises(UnknownAddress):
        registry.shared(["http://127.0.0.1:9/run_code", "judgebox://127.0.0.1:10"])


def test_connect_refuses_a_foreign_sandboxfusion_server():
    """Held: judgebox.connect gives backends of submissions only; a foreign /run_code server is refused."""
    with ForeignSandboxFusion() as foreign:
        with pytest.raises(UnknownAddress, match="not judgebox"):
            registry.connect(foreign.url + "/run_code")


# -- the process's shared backends ------------------------------------------------------------------------


def test_callers_asking_at_once_share_one_backend_and_none_is_left_open(monkeypatch):
    """Broke (fixed): verl's reward threads all ask registry.shared(url) at the first step; each one that missed
    the table made a backend of its own (a RayJudge with its loop and refresher, a server pool's connections,
    a /health probe), and all but the one kept were left open, never closed."""
    made: list[object] = []

    class SlowBackend:  # a backend that takes a while to make, as a RayJudge joining its cluster does
        def __init__(self, address: str | None) -> None:
            time.sleep(0.3)
            self.closed = False
            made.append(self)

    original = registry._backend
    monkeypatch.setitem(registry.BACKENDS, "slowtest", "unused:Unused")
    monkeypatch.setattr(registry, "_backend", lambda scheme: SlowBackend if scheme == "slowtest" else original(scheme))
    address = f"slowtest://{time.monotonic_ns()}"
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(registry.shared(address))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(got) == 8 and len({id(one) for one in got}) == 1
    assert len(made) == 1, f"{len(made)} backends made for one address"
    assert registry.shared(address) is got[0]


def test_a_failure_to_make_a_shared_backend_reaches_every_caller_and_is_not_kept(monkeypatch):
    """Held with the fix: the callers waiting on a backend whose making failed get that failure; the next call
    tries again."""
    attempts: list[int] = []

    class Failing:
        def __init__(self, address: str | None) -> None:
            attempts.append(1)
            time.sleep(0.2)
            raise UnknownAddress("no such cluster")

    original = registry._backend
    monkeypatch.setitem(registry.BACKENDS, "failtest", "unused:Unused")
    monkeypatch.setattr(registry, "_backend", lambda scheme: Failing if scheme == "failtest" else original(scheme))
    address = f"failtest://{time.monotonic_ns()}"
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            registry.shared(address)
        except UnknownAddress as exc:
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(errors) == 4
    with pytest.raises(UnknownAddress):
        registry.shared(address)
    assert len(attempts) == 2  # one for the four at once, one for the call after


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
def test_an_unreachable_run_code_server_is_asked_again_not_kept():
    """Held: a /run_code URL that cannot be reached is not taken for a foreign server for good (it may be a
    judgebox still starting); verl scores its cases api_error meanwhile."""
    url = "http://127.0.0.1:9/run_code"
    first = registry.shared(url)
    assert isinstance(first, RunCodeServer) and registry.shared(url) is not first
    result, meta = parity.check_correctness(url, A_PLUS_B, "print(3)")
    assert result == [-1] and meta[0]["status"] == "api_error"


# -- a submission the wire cannot carry ---------------------------------------------------------------------
# A call case's expected value is compared on the judge's side as a Python value (a set, bytes, a Fraction are
# all valid for the embedded judge), but /judge takes JSON. Broke (fixed): ServerJudge raised json's TypeError,
# out of judge_many's generator too, so the batch's other submissions got no result and a whole reward step
# (TRL's, verl's) failed instead of one sample being masked. Now that submission alone is SE, as an
# interactive problem is.


def test_one_submission_the_wire_cannot_carry_does_not_sink_its_batch(server):
    with judgebox.connect(server.url) as backend:
        tag = uuid.uuid4().hex
        submissions = [backend.submission(f"def f(): return 1  # {tag}", [Case.call("f", [], 1)]),
                       backend.submission("def f(): return {1}", [Case.call("f", [], {1})]),
                       backend.submission(f"def f(): return 2  # {tag}", [Case.call("f", [], 2)])]
        results = dict(backend.judge_many(submissions))
        single = backend.judge("def f(): return b'ab'", [Case.call("f", [], b"ab")])
    assert results[0].verdict is Verdict.AC and results[2].verdict is Verdict.AC
    assert results[1].verdict is Verdict.SE and "no JSON form" in results[1].message
    assert single.verdict is Verdict.SE and "no JSON form" in single.message


def test_run_code_closed_under_way_answers_every_request():
    """Held (review of the run_code facade): Judge.close(cancel=True) while Judge.run_code waits gives every
    request an answer (errors in verl's wording for those not run), promptly, and no hang."""
    judge = judgebox.Judge(slots=1)
    spin = "import time\nt = time.time()\nwhile time.time() - t < 5: pass\nprint(1)"
    answers: list = []
    thread = threading.Thread(target=lambda: answers.extend(judge.run_code([{"code": spin}] * 3)), daemon=True)
    thread.start()
    time.sleep(1)
    judge.close(cancel=True)
    thread.join(15)
    assert not thread.is_alive() and len(answers) == 3
    assert all(a.error is not None or a.response["status"] == "SandboxError" for a in answers), answers


# -- the registry's process-wide state: forks and foreign servers (each starts a process or a loopback server,
# so not a unit test) ------------------------------------------------------------------------------------


@pytest.mark.parametrize("held", ["registry", "client pools"])
def test_a_child_forked_while_another_thread_holds_a_shared_lock_makes_its_own_backend(held):
    """Broke (fixed, review of the registry): the locks of ``registry.shared`` and the client's shared pools came
    with a fork still held when another thread of the parent held them, and the child hung at its first reward."""
    from judgebox.client import balance

    lock = registry._lock if held == "registry" else balance._pools_lock
    with lock:
        child = os.fork()
        if child == 0:  # the child: no other thread came with it, and the lock was held at the fork
            code = 1
            try:
                registry.shared("judgebox://127.0.0.1:9").close()
                code = 0
            finally:
                os._exit(code)
        deadline = time.monotonic() + 20
        while (done := os.waitpid(child, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
    if done[0] == 0:
        os.kill(child, 9)
        os.waitpid(child, 0)
    assert done[0] == child and os.waitstatus_to_exitcode(done[1]) == 0, "the forked child hung on the lock"


def test_the_caller_secret_goes_to_judgebox_servers_alone():
    """Broke (fixed, review of the facade): the process's X-Judgebox-Caller secret went to every server the client
    talked to, a foreign SandboxFusion /run_code server's too, which could replay it on a shared judgebox and read
    this process's cached outputs there. A scripted loopback server records what each client sends."""
    from judgebox.callers import HEADER
    from judgebox.client import Client
    from support.scripted_http import Scripted, reply

    answer = {"status": "Success", "message": "", "compile_result": None, "run_result": None, "files": {}}
    with Scripted(reply(200, answer)) as foreign:
        server = RunCodeServer.at(foreign.url + "/run_code")
        try:
            server.run_code([{"code": "print(1)", "language": "python"}])
        finally:
            server.close()
        with Client(foreign.url) as client:  # a judgebox's client, for contrast
            client.post_json("/run_code", {"code": "print(1)"})
    sent = [{name.lower() for name in headers} for _, headers, _ in foreign.requests]
    assert len(sent) == 2 and HEADER.lower() not in sent[0] and HEADER.lower() in sent[1]
