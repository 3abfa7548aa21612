"""Between judgebox's records and the wire's: limits and cases of a request, a result as a response and back."""

from __future__ import annotations

from judgebox.types import Case, CaseResult, JudgeResult, Limits
from judgebox.verdicts import Verdict
from judgebox.wire.schemas import CaseModel, CaseResultModel, JudgeResponse, LimitsModel


def limits_from(model: LimitsModel) -> Limits:
    return Limits(**model.model_dump())


def cases_from(models: list[CaseModel]) -> list[Case]:
    cases = []
    for m in models:
        limits = limits_from(m.limits) if m.limits else None
        if m.kind == "stdio":
            cases.append(Case.stdio(m.stdin, m.expected_output or "", limits, m.io))
        elif m.kind == "call":
            cases.append(Case.call(m.fn_name or "", m.args, m.expected_value, limits))
        else:
            cases.append(Case.asserts(m.assert_code or "", limits))
    return cases


def judge_response(result: JudgeResult, queue_time: float) -> JudgeResponse:
    return JudgeResponse(
        verdict=str(result.verdict), score=result.score, passed=result.passed, total=result.total,
        message=result.message, wall_time=result.wall_time, cpu_time=result.cpu_time, queue_time=queue_time,
        cases=[CaseResultModel(verdict=str(c.verdict), cpu_time=c.cpu_time, wall_time=c.wall_time,
                               memory_bytes=c.memory_bytes, exit_code=c.exit_code, signal=c.signal, stdout=c.stdout,
                               stderr=c.stderr, stdout_truncated=c.stdout_truncated,
                               stderr_truncated=c.stderr_truncated, stdout_length=c.stdout_length,
                               stderr_length=c.stderr_length, message=c.message, points=c.points)
               for c in result.cases])


def judge_result(response: JudgeResponse) -> JudgeResult:
    """A server's /judge answer as the JudgeResult it was made from (outputs as the server kept them)."""
    cases = tuple(CaseResult(verdict=Verdict(c.verdict), cpu_time=c.cpu_time, wall_time=c.wall_time,
                             memory_bytes=c.memory_bytes, exit_code=c.exit_code, signal=c.signal,
                             stdout_raw=c.stdout.encode("utf-8", "surrogateescape"),
                             stderr_raw=c.stderr.encode("utf-8", "surrogateescape"), stdout_length=c.stdout_length,
                             stderr_length=c.stderr_length, message=c.message, points=c.points)
                  for c in response.cases)
    return JudgeResult(Verdict(response.verdict), cases, response.total, response.message, response.wall_time,
                       response.cpu_time)
