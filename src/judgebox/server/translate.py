"""Between wire schemas and judgebox's own records: requests into jobs, outcomes into responses."""

from __future__ import annotations

import os

from .. import languages
from ..classify import classify
from ..errors import JudgeboxError
from ..languages import LanguageSpec
from ..languages.artifacts import Build
from ..programs import Programs
from ..sandbox.outcome import RunOutcome
from ..types import Case, CaseResult, JudgeResult, Limits
from ..verdicts import Verdict
from .schemas import (
    CaseModel,
    CaseResultModel,
    CommandRunResult,
    JudgeResponse,
    LimitsModel,
    RunCodeRequest,
    RunCodeResponse,
)

RETURNED_OUTPUT_BYTES = Limits().returned_output_bytes  # of stdout and stderr each; the lengths are reported
CPUS = os.cpu_count() or 1

# SandboxFusion's names whose runners do something else than run a program (test frameworks, GPUs,
# SQL) or whose toolchains judgebox does not ship: they answer SandboxError with this reason.
NOT_RUN_HERE = {"go_test", "junit", "pytest", "jest", "D_ut", "kotlin_script", "scala", "swift", "julia", "racket",
                "verilog", "lean", "cuda", "python_gpu", "sql", "python2", "gtest", "react"}


def run_code_language(name: str, programs: Programs) -> LanguageSpec | str:
    """The language a /run_code name runs as, or why it does not run here (unknown, no toolchain, or not
    runnable correctly in this sandbox's isolation mode)."""
    if name in NOT_RUN_HERE:
        return f"language {name!r} is not available on this server"
    try:
        spec = languages.get(name)
        programs.check_language(spec)
        return spec
    except JudgeboxError as exc:
        return str(exc)


def run_code_limits(request: RunCodeRequest, default_memory_mb: int, output_bytes: int) -> Limits:
    """``run_timeout`` is wall-clock in SandboxFusion's contract (a program that sleeps past it has timed out):
    it is the run-time limit, real time less the time the run waited for a CPU, so a busy server does not time
    out a correct program. CPU time is not what ends a /run_code run (a program with threads may use more CPU
    than real time), so its limit is all the CPU the backstop's time allows. The wall-clock backstop keeps the
    answer inside the budget callers wait for (verl: ``compile_timeout + run_timeout + 10`` s)."""
    run = request.run_timeout
    backstop = min(2 * run + 1, run + request.compile_timeout + 5)
    memory = request.memory_limit_MB if request.memory_limit_MB > 0 else default_memory_mb
    return Limits(cpu_time=min(3600.0, backstop * CPUS), run_time=run, wall_time=backstop,
                  memory_mb=max(memory, 16), output_bytes=output_bytes)


def run_once_arguments(spec: LanguageSpec, request: RunCodeRequest, default_memory_mb: int,
                       output_bytes: int) -> tuple:
    """The arguments of :meth:`judgebox.programs.Programs.run_once` that run a /run_code request."""
    stdin = (request.stdin or "").encode("utf-8", "surrogateescape")
    limits = run_code_limits(request, default_memory_mb, output_bytes)
    return (spec, request.code, stdin, limits, request.files, tuple(request.fetch_files), request.compile_timeout)


def queue_budget(request: RunCodeRequest) -> float:
    """How long a /run_code request may wait for a slot and still be answered inside the time its
    caller waits (verl: ``compile_timeout + run_timeout + 10`` s): past that, a 504 that verl retries
    beats a read timeout that it scores -1. The run is reckoned at its run-time limit, which is what ends
    nearly every run that is stopped; only a run that waits long for a CPU reaches the wall-clock backstop."""
    return request.compile_timeout + request.run_timeout + 10 - request.run_timeout - 2


def run_code_response(spec: LanguageSpec, built: Build | None, outcome: RunOutcome | None, queue_time: float,
                      pod: str | None) -> RunCodeResponse:
    compile_result = None
    if built is not None:  # a compiled language: the compile step is reported as SandboxFusion does
        if built.system_error is not None:
            return RunCodeResponse(status="SandboxError", message=built.system_error, queue_time=queue_time,
                                   executor_pod_name=pod)
        if built.compile_error is not None:
            failed = CommandRunResult(
                status="TimeLimitExceeded" if built.compile_timed_out else "Finished",
                return_code=None if built.compile_timed_out else 1, stdout="", stderr=built.compile_error,
                execution_time=built.compile_time, cpu_time=built.compile_time, verdict="CE")
            return RunCodeResponse(status="Failed", compile_result=failed, queue_time=queue_time,
                                   executor_pod_name=pod)
        compile_result = CommandRunResult(status="Finished", return_code=0, stdout="", stderr="",
                                          execution_time=built.compile_time, cpu_time=built.compile_time)
    assert outcome is not None
    response = _run_response(spec, outcome, queue_time, pod)
    response.compile_result = compile_result
    return response


# /run_code's verdict words, from the one classifier's verdicts
RUN_VERDICTS = {Verdict.AC: "OK", Verdict.RE: "RE", Verdict.TLE: "TLE", Verdict.MLE: "MLE", Verdict.OLE: "OLE"}


def _run_response(spec: LanguageSpec, outcome: RunOutcome, queue_time: float, pod: str | None) -> RunCodeResponse:
    check = classify(outcome, spec)
    if check.verdict is Verdict.SE:
        return RunCodeResponse(status="SandboxError", message=check.message, queue_time=queue_time,
                               executor_pod_name=pod)
    if check.verdict is Verdict.CE:  # Python has no compile step: a syntax error is a failed run
        run = CommandRunResult(status="Finished", execution_time=0.0, return_code=1, stdout="",
                               stderr=check.message + "\n", cpu_time=outcome.cpu_time, verdict="CE")
        return RunCodeResponse(status="Failed", run_result=run, queue_time=queue_time, executor_pod_name=pod)
    verdict = RUN_VERDICTS[check.verdict]
    return_code = outcome.exit_code if outcome.signal is None else -outcome.signal
    timed_out = verdict == "TLE"
    keep = RETURNED_OUTPUT_BYTES
    run = CommandRunResult(
        status="TimeLimitExceeded" if timed_out else "Finished", execution_time=outcome.wall_time,
        return_code=None if timed_out else return_code, stdout=outcome.stdout[:keep].decode("utf-8", "replace"),
        stderr=outcome.stderr[:keep].decode("utf-8", "replace"), cpu_time=outcome.cpu_time,
        memory_peak=outcome.memory_bytes, verdict=verdict,
        truncated=outcome.output_limit_exceeded or max(outcome.stdout_length, outcome.stderr_length) > keep,
        stdout_length=outcome.stdout_length, stderr_length=outcome.stderr_length)
    return RunCodeResponse(status="Success" if verdict == "OK" else "Failed", run_result=run, files=outcome.files,
                           queue_time=queue_time, executor_pod_name=pod)


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
