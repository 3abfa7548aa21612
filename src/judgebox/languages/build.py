"""Build a submission once: compile it in the sandbox, keep what it made in the artifact cache.

The compiler runs sandboxed like any program, with limits of its own (``COMPILE_LIMITS``); the
artifact comes back through the run's fetched files and becomes a sealed memfd.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from concurrent.futures import Future

from judgebox.languages import pch, rust_crates
from judgebox.languages.artifacts import Artifact, ArtifactCache, Build
from judgebox.languages.spec import LanguageSpec
from judgebox.sandbox.config import RUN_ENV
from judgebox.sandbox.outcome import RunOutcome
from judgebox.sandbox.slot import Command
from judgebox.types import Limits

MiB = 1024 * 1024
COMPILE_LIMITS = Limits(cpu_time=30, wall_time=60, memory_mb=2048, output_bytes=4 * MiB, processes=256,
                        file_size_bytes=256 * MiB, returned_output_bytes=256 * MiB)  # the artifact comes back
MESSAGE_CHARS = 8000  # compiler messages beyond this are cut: the first errors are the useful ones

Submit = Callable[..., Future[RunOutcome]]


def environment(spec: LanguageSpec) -> dict[str, str]:
    return {**RUN_ENV, **spec.env}


def build(submit: Submit, cache: ArtifactCache, spec: LanguageSpec, program: str, toolchain_cache: str,
          limits: Limits = COMPILE_LIMITS) -> Build:
    """The artifact of ``program`` (the source after the spec's quirks and any test harness)."""
    key = cache.key(spec.name, " ".join(spec.compile), program)
    return cache.get_or_build(key, lambda: _compile(submit, spec, program,
                                                    compile_command(spec, toolchain_cache, program), limits))


def compile_command(spec: LanguageSpec, toolchain_cache: str, program: str = "") -> tuple[str, ...]:
    argv = spec.command(spec.compile)
    if spec.name == "rust":  # the crates HumanEval-X builds with, when the program names one (rust_crates.py)
        argv = (argv[0], *rust_crates.compile_arguments(toolchain_cache, program), *argv[1:])
    if spec.pch_flags:
        folder = pch.include_dir(toolchain_cache, spec.pch_flags)
        if folder is not None:  # searched before the system headers, so bits/stdc++.h.gch is found first
            argv = (argv[0], "-I", folder, *argv[1:])
    return argv


def _compile(submit: Submit, spec: LanguageSpec, program: str, argv: tuple[str, ...], limits: Limits) -> Build:
    source = program.encode("utf-8", "surrogateescape")
    if not spec.compiled:
        return Build(Artifact(source, spec.name))
    files = {spec.source: base64.b64encode(source).decode()}
    outcome = submit(Command(argv, environment(spec)), b"", limits, files, (spec.artifact,)).result()
    if outcome.system_error is not None:
        return Build(system_error=f"compiling failed in the sandbox: {outcome.system_error}")
    made = outcome.files.get(spec.artifact or "")
    if outcome.clean_exit and made is not None:
        return Build(Artifact(base64.b64decode(made), spec.name), compile_time=outcome.cpu_time)
    if outcome.clean_exit:
        return failed_build(outcome, limits, f"the compiler succeeded but left no {spec.artifact}")
    return failed_build(outcome, limits)


def failed_build(outcome: RunOutcome, limits: Limits, why: str = "", what: str = "compilation") -> Build:
    """The compile error of a build run that made no artifact: its messages (the first ones), and what
    stopped it."""
    message = (outcome.stderr + outcome.stdout).decode("utf-8", "replace").strip()
    if outcome.stopped is not None:
        why = f"{what} exceeded its time limit ({limits.cpu_time:g} s CPU)"
    elif outcome.out_of_memory:
        why = f"{what} exceeded its memory limit ({limits.memory_mb} MiB)"
    message = f"{why}\n{message}" if why else message
    if len(message) > MESSAGE_CHARS:
        message = message[:MESSAGE_CHARS] + "\n[... cut]"
    return Build(compile_error=message or f"{what} failed (exit code {outcome.exit_code})",
                 compile_timed_out=outcome.stopped is not None, compile_time=outcome.cpu_time)
