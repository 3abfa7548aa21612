"""SandboxFusion's ``/run_code`` on the embedded judge: a request into a run, its outcome into the response.

:meth:`judgebox.Judge.run_code` (many requests, for verl's parity presets and Ray nodes) and
:meth:`judgebox.Judge.run_code_async` (one request, for ``judgebox serve``) are the judge's facade over it."""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass

from pydantic import ValidationError

from judgebox import languages
from judgebox.backend import RunCodeResult
from judgebox.errors import JudgeboxError
from judgebox.judging.classify import classify
from judgebox.judging.jobs import Programs
from judgebox.languages import LanguageSpec
from judgebox.languages.artifacts import Build
from judgebox.sandbox.outcome import RunOutcome
from judgebox.types import Limits
from judgebox.verdicts import Verdict
from judgebox.wire.schemas import CommandRunResult, RunCodeRequest, RunCodeResponse

DEFAULT_MEMORY_MB = 1024  # memory_limit_MB -1, as judgebox serve answers it by default
OUTPUT_BYTES = 64 * 1024 * 1024  # the output a run may write (the response returns RETURNED_OUTPUT_BYTES of it)
RETURNED_OUTPUT_BYTES = Limits().returned_output_bytes  # of stdout and stderr each; the lengths are reported
CPUS = os.cpu_count() or 1

# SandboxFusion's names whose runners do something else than run a program (test frameworks, GPUs,
# SQL) or whose toolchains judgebox does not ship: they answer SandboxError with this reason.
NOT_RUN_HERE = {"go_test", "junit", "pytest", "jest", "D_ut", "kotlin_script", "scala", "swift", "julia", "racket",
                "verilog", "lean", "cuda", "python_gpu", "sql", "python2", "gtest", "react"}


def is_known_language(name: str) -> bool:
    """Whether /run_code knows the name, as a language judgebox runs or one of SandboxFusion's it does not
    (those answer SandboxError): any other name is a bad request, as SandboxFusion's schema makes it."""
    if name in NOT_RUN_HERE:
        return True
    try:
        languages.get(name)
    except JudgeboxError:
        return False
    return True


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
    # (at most Limits' bound on wall_time: the longest timeouts the request allows stay a valid run)
    backstop = min(2 * run + 1, run + request.compile_timeout + 5, 7200.0)
    memory = request.memory_limit_MB if request.memory_limit_MB > 0 else default_memory_mb
    return Limits(cpu_time=min(3600.0, backstop * CPUS), run_time=run, wall_time=backstop,
                  memory_mb=max(memory, 16), output_bytes=output_bytes)


def run_once_arguments(spec: LanguageSpec, request: RunCodeRequest, default_memory_mb: int,
                       output_bytes: int) -> tuple:
    """The arguments of :meth:`judgebox.judging.jobs.Programs.run_once` that run a /run_code request."""
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
    run = command_run_result(outcome, verdict == "TLE", verdict)
    return RunCodeResponse(status="Success" if verdict == "OK" else "Failed", run_result=run, files=outcome.files,
                           queue_time=queue_time, executor_pod_name=pod)


def command_run_result(outcome: RunOutcome, timed_out: bool, verdict: str | None = None) -> CommandRunResult:
    """A run as SandboxFusion's ``CommandRunResult``: its output returned up to RETURNED_OUTPUT_BYTES each,
    with the lengths it had."""
    keep = RETURNED_OUTPUT_BYTES
    return_code = outcome.exit_code if outcome.signal is None else -outcome.signal
    return CommandRunResult(
        status="TimeLimitExceeded" if timed_out else "Finished", execution_time=outcome.wall_time,
        return_code=None if timed_out else return_code, stdout=outcome.stdout[:keep].decode("utf-8", "replace"),
        stderr=outcome.stderr[:keep].decode("utf-8", "replace"), cpu_time=outcome.cpu_time,
        memory_peak=outcome.memory_bytes, verdict=verdict,
        truncated=outcome.output_limit_exceeded or max(outcome.stdout_length, outcome.stderr_length) > keep,
        stdout_length=outcome.stdout_length, stderr_length=outcome.stderr_length)


@dataclass(frozen=True)
class RanCode:
    """A /run_code request as the judge ran it: its language (None: refused, and why), build and outcome."""

    spec: LanguageSpec | None
    built: Build | None = None
    outcome: RunOutcome | None = None
    refused: str = ""

    @property
    def language(self) -> str:
        return self.spec.name if self.spec is not None else "unknown"

    def response(self, queue_time: float = 0.0, pod: str | None = None) -> RunCodeResponse:
        if self.spec is None:
            return RunCodeResponse(status="SandboxError", executor_pod_name=pod, message=self.refused)
        return run_code_response(self.spec, self.built, self.outcome, queue_time, pod)


def start(programs: Programs, body: object, memory_mb: int = DEFAULT_MEMORY_MB, output_bytes: int = OUTPUT_BYTES
          ) -> Callable[[], RunCodeResult]:
    """Queue one request body (a compiled language's build runs here, in the caller's thread); the returned
    function waits for its answer. A body that is not a valid request, and a failure of the judge itself
    (no isolation here, a broken slot), are errors in verl's wording, never the program's outcome."""
    try:
        request = RunCodeRequest.model_validate(body)
    except ValidationError as exc:
        invalid = RunCodeResult(None, f"API Call Failed: API Request Error: invalid request: {exc}")
        return lambda: invalid
    spec = run_code_language(request.language, programs)
    if isinstance(spec, str):
        refused = RunCodeResult(RanCode(None, refused=spec).response().model_dump(mode="json"), None)
        return lambda: refused
    try:
        built, future = programs.run_once(*run_once_arguments(spec, request, memory_mb, output_bytes))
    except Exception as exc:
        failure = _judge_failed(exc)
        return lambda: failure

    if future is None:  # the build failed: its answer, at once
        built_only = RunCodeResult(RanCode(spec, built, None).response().model_dump(mode="json"), None)
        return lambda: built_only
    answer: Future[RunCodeResult] = Future()

    def settle(run: Future[RunOutcome]) -> None:
        """The answer made as the run ends, keeping only what the response returns (a run's outcome holds up
        to its whole output cap: a list of cases must not hold every one until the last ends)."""
        try:
            answer.set_result(RunCodeResult(RanCode(spec, built, run.result()).response().model_dump(mode="json"),
                                            None))
        except Exception as exc:
            answer.set_result(_judge_failed(exc))

    future.add_done_callback(settle)
    return answer.result


def _judge_failed(exc: Exception) -> RunCodeResult:
    return RunCodeResult(None, f"API Call Failed: Unexpected Error: {type(exc).__name__}: {exc}")
