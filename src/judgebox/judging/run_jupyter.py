"""SandboxFusion's ``/run_jupyter`` on the embedded judge: the cells are one sandbox run, in which the Jupyter
driver (``sandbox/inside/jupyter.py``) starts a kernel and executes them; its result and the run's outcome
make the response.

:meth:`judgebox.Judge.run_jupyter_async` is the judge's facade over it (``judgebox serve``'s handler)."""

from __future__ import annotations

import json

from judgebox.judging.run_code import CPUS, DEFAULT_MEMORY_MB, OUTPUT_BYTES, command_run_result
from judgebox.sandbox.inside.jupyter import KERNEL_START_TIMEOUT
from judgebox.sandbox.outcome import RunOutcome
from judgebox.sandbox.slot import PythonProgram, report_bound
from judgebox.types import Limits
from judgebox.wire.schemas import CellResult, RunJupyterRequest, RunJupyterResponse

# The driver and a kernel with IPython loaded take about 70 MB together (measured here): a smaller limit
# would fail every request at the kernel's start, so it is raised to this floor, as a runtime's is.
KERNEL_MEMORY_FLOOR_MB = 256
# Processes and threads together: the kernel starts about ten threads and the driver three; the rest is
# the cells' own (a cell may start subprocesses or a thread pool).
PROCESSES = 128
REPORT_MARGIN = 4096  # of the report's bound, left for the result's own fields
# Why the driver stopped before the last cell, as the result says it
TIMED_OUT = {"cell_timeout", "total_timeout"}


def run_limits(request: RunJupyterRequest, default_memory_mb: int = DEFAULT_MEMORY_MB,
               output_bytes: int = OUTPUT_BYTES) -> Limits:
    """The driver keeps the cells to their timeouts itself (wall-clock, as SandboxFusion's contract has
    them); the sandbox's wall-clock backstop adds the kernel's start and a margin, and only stops a driver
    that hangs. CPU time does not end a run (the kernel has threads), so its limit is all the backstop allows."""
    backstop = min(request.total_timeout + KERNEL_START_TIMEOUT + 10, 7200.0)
    memory = request.memory_limit_MB if request.memory_limit_MB > 0 else default_memory_mb
    return Limits(cpu_time=min(3600.0, backstop * CPUS), wall_time=backstop,
                  memory_mb=max(memory, KERNEL_MEMORY_FLOOR_MB), output_bytes=output_bytes, processes=PROCESSES)


def driver_job(request: RunJupyterRequest, limits: Limits) -> PythonProgram:
    """The run: the cells and their timeouts for the driver, and how much of their output it may keep
    (what the judge reads of the run's report, less room for the result's own fields)."""
    return PythonProgram(json.dumps({"cells": request.cells, "cell_timeout": request.cell_timeout,
                                     "total_timeout": request.total_timeout,
                                     "budget": report_bound(limits) - REPORT_MARGIN}), "jupyter")


def response(outcome: RunOutcome, limits: Limits, queue_time: float = 0.0, pod: str | None = None
             ) -> RunJupyterResponse:
    """Only the driver's result, which came with the run's token, says what the cells did; without it the run
    is a limit the cells passed (memory, the backstop) or the judge's failure (SE), never made-up cells."""
    answer = RunJupyterResponse(status="SandboxError", queue_time=queue_time, executor_pod_name=pod)
    if outcome.system_error is not None:
        answer.message = outcome.system_error
        return answer
    driver = command_run_result(outcome, outcome.stopped is not None)
    answer.driver = driver
    memory = f"the run passed its memory limit ({limits.memory_mb} MB)"
    if not outcome.token_ok:
        if outcome.out_of_memory:
            answer.status, answer.message, driver.verdict = "Failed", memory, "MLE"
        elif outcome.stopped:
            answer.status, driver.verdict = "Failed", "TLE"
            answer.message = f"the run passed its wall-clock backstop ({limits.wall_backstop:g} s)"
        else:
            answer.message = (f"the Jupyter driver ended without its result ({outcome.exit_code=}, "
                              f"{outcome.signal=}): {driver.stderr[-2000:] if driver.stderr else 'no output'}")
        return answer
    result = json.loads(outcome.harness)
    stopped = result["stopped"]
    answer.cells = [CellResult.model_validate(cell) for cell in result["cells"]]
    answer.files, answer.truncated = outcome.files, result["truncated"]
    answer.status = "Success" if stopped is None else "Failed"
    answer.message = result["message"] + (f"; {memory}" if stopped == "kernel_died" and outcome.out_of_memory else "")
    if stopped in TIMED_OUT:
        driver.status, driver.verdict = "TimeLimitExceeded", "TLE"
    return answer
