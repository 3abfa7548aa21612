"""``judgebox.Judge(backend="server", address=...)``: the embedded judge's methods over real ``judgebox serve``
processes, so the generic batch scorer (and the trainers' functions built on it) run on shared servers.

Real data: MBPP problems with their references (AC) and, for each, a program whose functions return None (WA).
What each should get is what the embedded judge gives it. A server that is down, or answers what is not a
judge result, is an SE result for the submission (no reward), never a verdict and never an exception.
"""

from __future__ import annotations

import asyncio
import http.server
import threading

import pytest

import judgebox
from conftest import Server, free_port, load_dataset
from judgebox import Limits, Verdict, rewards
from judgebox.backends.server import ServerJudge

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


def test_results_are_the_embedded_judges_one_by_one_async_and_many(servers, judge):
    submissions = _submissions()
    expected = [_verdicts(judge.judge_submission(s)) for s in submissions]
    assert {e[0] for e in expected} == {Verdict.AC, Verdict.WA}  # the data has right and wrong programs
    with judgebox.Judge(backend="server", address=servers) as remote:
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
    with judgebox.Judge(backend="server", address=servers) as remote:
        results = rewards.score_batch_sync(samples, judge=remote)
    assert [rewards.reward(r) for r in results] == [1.0, 0.0]


def test_a_server_that_is_down_is_se_for_each_submission_never_a_verdict():
    submissions = _submissions()[:3]
    with judgebox.Judge(backend="server", address=f"http://127.0.0.1:{free_port()}", timeout=5) as remote:
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
        with judgebox.Judge(backend="server", address=f"http://127.0.0.1:{server.server_address[1]}",
                            timeout=10) as remote:
            result = remote.judge_submission(_submissions()[0])
    finally:
        server.shutdown()
    assert result.verdict is Verdict.SE and rewards.reward(result) is None


def test_the_server_backend_needs_an_address():
    with pytest.raises(judgebox.InvalidInput, match="needs address="):
        judgebox.Judge(backend="server")


def test_every_limit_travels_on_the_wire():
    """A limit the wire lacked would be the server's default there: judged otherwise than embedded."""
    import dataclasses

    from judgebox.server.schemas import LimitsModel

    assert set(LimitsModel.model_fields) == {field.name for field in dataclasses.fields(Limits)}
    assert LimitsModel().model_dump() == dataclasses.asdict(Limits())  # and the defaults agree
