"""How a submission becomes sandbox jobs, one per case.

Python runs on the slots' warm interpreters, one fork per case. Every other language is built once per
distinct program, cached by content, and each case execs the built artifact; an assert case runs the
language's two-process harness (``languages/split.py``). A file-mode stdio case (``Case.io == "file"``) runs
either way with its input as ``input.txt`` and ``output.txt`` as the run's judged output.
"""

from __future__ import annotations

import base64
import dataclasses
import json
from concurrent.futures import Future

from judgebox import languages
from judgebox.errors import InvalidCases, LanguageUnavailable
from judgebox.judging.pool import WorkerPool, current_group
from judgebox.languages.artifacts import ArtifactCache, Build
from judgebox.languages.build import COMPILE_LIMITS, build, environment
from judgebox.languages.spec import LanguageSpec, Toolbox
from judgebox.sandbox.outcome import RunOutcome
from judgebox.sandbox.slot import Command, PythonProgram
from judgebox.types import FILE_INPUT, FILE_OUTPUT, Case, Limits, Submission


class Programs:
    def __init__(self, pool: WorkerPool, toolchain_cache: str, cache: ArtifactCache | None = None) -> None:
        self.pool = pool
        self.toolchain_cache = toolchain_cache
        self.cache = cache or ArtifactCache(holder=current_group, lend=pool.lend)

    @staticmethod
    def check(submission: Submission) -> None:
        """Refuse cases the language cannot take, before anything runs."""
        spec = languages.get(submission.language)
        if any(case.io == "file" and case.kind != "stdio" for case in submission.cases):
            raise InvalidCases("only stdio cases take their input from input.txt and write output.txt")
        if spec.runner == "python-fork":
            return
        kinds = {case.kind for case in submission.cases}
        if "call" in kinds:
            raise InvalidCases(f"call-based cases are for Python; {spec.name} takes stdio or assert cases")
        if "assert" in kinds and spec.split_asserts is None:
            raise InvalidCases(f"{spec.name} has no assert harness; use stdio cases")

    def check_language(self, spec: LanguageSpec) -> None:
        """Refuse a language this sandbox cannot run correctly (raises LanguageUnavailable)."""
        if spec.needs_memory_cgroup and not self.pool.layers.get("cgroup_memory"):
            raise LanguageUnavailable(
                f"{spec.name} is not available in {self.pool.slots[0].config.mode} mode: its runtime reserves more "
                "address space than the address-space limit that stands in for a memory cgroup here allows, so "
                "correct programs would fail; run judgebox as root (or with a delegated cgroup) to judge it")

    def submit(self, submission: Submission) -> list[Future[RunOutcome]]:
        """Queue every case (building first where needed; this may block while a compiler runs)."""
        spec = languages.get(submission.language)
        self.check_language(spec)
        if spec.runner == "python-fork":
            return [self.pool.submit(_in_file_mode(_python_job(submission.code, case), case), _stdin(case),
                                     case.limits or submission.limits, _files(case)) for case in submission.cases]
        source = spec.source_for(submission.code)
        return [self._run_built(spec, source, case, _floor(spec, case.limits or submission.limits))
                for case in submission.cases]

    def run_once(self, spec: LanguageSpec, code: str, stdin: bytes, limits: Limits,
                 files: dict[str, str | None] | None = None, fetch: tuple[str, ...] = (),
                 compile_cpu_time: float | None = None) -> tuple[Build | None, Future[RunOutcome] | None]:
        """One program, one input (SandboxFusion's /run_code): the build (None for Python) and the run
        (None when the build failed). May block while a compiler runs."""
        self.check_language(spec)
        if spec.runner == "python-fork":
            return None, self.pool.submit(PythonProgram(code), stdin, limits, files, fetch)
        compile_limits = COMPILE_LIMITS if compile_cpu_time is None else COMPILE_LIMITS.replace(
            cpu_time=compile_cpu_time, wall_time=min(3 * compile_cpu_time + 2, 7200.0))  # (Limits' bound on wall_time)
        built = build(self.pool.submit, self.cache, spec, spec.source_for(code), self.toolchain_cache,
                      compile_limits)
        if built.artifact is None:
            return built, None
        job = Command(spec.command(spec.run), environment(spec))
        run = self.pool.submit(job, stdin, _floor(spec, limits), files, fetch, program=built.artifact)
        return (built if spec.compiled else None), run

    def _run_built(self, spec: LanguageSpec, source: str, case: Case, limits: Limits) -> Future[RunOutcome]:
        if case.kind == "assert":
            return self._run_split(spec, source, case, limits)
        built = build(self.pool.submit, self.cache, spec, source, self.toolchain_cache)
        if built.artifact is None:
            done: Future[RunOutcome] = Future()
            done.set_result(RunOutcome(compile_error=built.compile_error, system_error=built.system_error))
            return done
        job = _in_file_mode(Command(spec.command(spec.run), environment(spec)), case)
        return self.pool.submit(job, _stdin(case), limits, _files(case), program=built.artifact)


    def _run_split(self, spec: LanguageSpec, source: str, case: Case, limits: Limits) -> Future[RunOutcome]:
        assert spec.split_asserts is not None
        if not self.pool.layers.get("landlock") and self.pool.slots[0].config.mode != "none":
            # Only Landlock's nested domain keeps the program's process out of the tests' one: an exec'd
            # tests' side is dumpable again, and shares the program's uid.
            raise LanguageUnavailable(f"{spec.name} assert cases need Landlock here, which this sandbox lacks")
        prepared = spec.split_asserts(self.toolbox, source, case.assert_code or "")
        if prepared.job is None:
            done: Future[RunOutcome] = Future()
            done.set_result(RunOutcome(compile_error=prepared.compile_error, system_error=prepared.system_error))
            return done
        return self.pool.submit(prepared.job, case.stdin, limits, program=prepared.program)

    @property
    def toolbox(self) -> Toolbox:
        return Toolbox(lambda spec, source: build(self.pool.submit, self.cache, spec, source, self.toolchain_cache),
                       self.pool.submit, self.cache, self.toolchain_cache, languages.get)


def _python_job(code: str, case: Case) -> PythonProgram:
    if case.kind == "assert":
        return PythonProgram(code, "assert", test_code=case.assert_code)
    if case.kind == "call":
        return PythonProgram(code, "call", fn_name=case.fn_name, args_json=json.dumps(list(case.args)))
    return PythonProgram(code)


# A file-mode case (open-r1's Codeforces convention): its input is input.txt in the work folder, not stdin,
# and the run's stdout is replaced by what it left in output.txt, so checkers see that file's content.
def _stdin(case: Case) -> bytes:
    return b"" if case.io == "file" else case.stdin


def _files(case: Case) -> dict[str, str | None] | None:
    return {FILE_INPUT: base64.b64encode(case.stdin).decode()} if case.io == "file" else None


def _in_file_mode(job: Command | PythonProgram, case: Case) -> Command | PythonProgram:
    return dataclasses.replace(job, output_file=FILE_OUTPUT) if case.io == "file" else job


def _floor(spec: LanguageSpec, limits: Limits) -> Limits:
    """Some runtimes cannot start below a memory floor; their limit is raised to it."""
    if limits.memory_mb >= spec.memory_floor_mb:
        return limits
    return limits.replace(memory_mb=spec.memory_floor_mb)
