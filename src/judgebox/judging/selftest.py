"""Which languages work on this machine: each one's self-test, run through the real sandbox.

Used by ``judgebox languages`` and the server's ``/health``. A language is available when its tools
exist and its self-test (echo the input) is accepted; otherwise the report says why not. A language's
libraries are probed the same way: each one the probe finds is listed with its version, a missing one
with none (the language itself stays available). The toolchain's version is what its own tools say of
themselves on the host (they are the machine's, not a submission's, so they run outside the sandbox).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess

from judgebox.errors import JudgeboxError
from judgebox.judging.judge import Judge
from judgebox.judging.pool import Group, Tenant, grouped
from judgebox.languages import LANGUAGES, LanguageSpec, missing_tools
from judgebox.types import Case, Limits

SELF_TEST_LIMITS = Limits(cpu_time=10, memory_mb=512)
# the tools that do not take --version (the flag each one takes instead)
VERSION_FLAGS = {"go": "version", "javac": "-version", "lua5.4": "-v"}


async def language_report(judge: Judge) -> list[dict[str, object]]:
    """One entry per language: name, aliases, description, available, and the reason if not. The checks
    are one tenant of the worker pool: a server's start-up self-tests take one fair share, so a request
    arriving meanwhile waits for one turn, not for one turn per language."""
    tenant = Tenant()
    return list(await asyncio.gather(*(_check(judge, spec, Group(tenant)) for spec in LANGUAGES)))


async def _check(judge: Judge, spec: LanguageSpec, group: Group) -> dict[str, object]:
    with grouped(group):  # its jobs, those of the threads it starts too, join the report's tenant
        return await _checked(judge, spec)


async def _checked(judge: Judge, spec: LanguageSpec) -> dict[str, object]:
    entry: dict[str, object] = {"name": spec.name, "aliases": list(spec.aliases), "description": spec.description,
                                "version": await asyncio.to_thread(toolchain_version, judge, spec)}
    missing = missing_tools(spec)
    if missing:
        return {**entry, "available": False, "reason": f"not installed: {', '.join(missing)}"}
    test = spec.self_test
    try:
        result = await judge.judge_async(test.code, [Case.stdio(test.stdin, test.expected)], spec.name,
                                         SELF_TEST_LIMITS)
    except JudgeboxError as exc:
        return {**entry, "available": False, "reason": str(exc)}
    if result.passed == result.total:
        return {**entry, "available": True, "reason": "", **await _libraries(judge, spec)}
    case = result.cases[0] if result.cases else None
    detail = result.message or (case.message + " " + case.stderr[-300:] if case else "")
    return {**entry, "available": False, "reason": f"self-test {result.verdict}: {detail.strip()}"}


async def _libraries(judge: Judge, spec: LanguageSpec) -> dict[str, object]:
    """``{"libraries": {name: version or None}}`` for a language with a library probe, else nothing."""
    probe = spec.libraries
    if probe is None:
        return {}
    try:
        result = await judge.judge_async(probe.code, [Case.stdio("", "")], spec.name, SELF_TEST_LIMITS)
        printed = result.cases[0].stdout if result.cases else ""
    except JudgeboxError:
        printed = ""
    found = dict(line.split(" ", 1) for line in printed.splitlines() if " " in line)
    return {"libraries": {name: found.get(name) for name in probe.names}}


def toolchain_version(judge: Judge, spec: LanguageSpec) -> str | None:
    """What the language's tools say their versions are, ``; ``-joined; None when none is installed. Python's
    is the slots' own interpreter."""
    if spec.runner == "python-fork":
        return f"Python {judge.python_version}"
    versions = [_version_of(path) for path in spec.requires if os.path.exists(path)]
    return "; ".join(v for v in versions if v) or None


def _version_of(path: str) -> str | None:
    """An executable's first line of ``--version`` (or its own flag), or a Node package folder's version."""
    if os.path.isdir(path):
        try:
            with open(os.path.join(path, "package.json")) as f:
                return f"{os.path.basename(path)} {json.load(f)['version']}"
        except (OSError, ValueError, KeyError):
            return None
    flag = VERSION_FLAGS.get(os.path.basename(path), "--version")
    try:
        done = subprocess.run([path, flag], capture_output=True, stdin=subprocess.DEVNULL, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = (done.stdout + done.stderr).decode(errors="replace").splitlines()
    return next((line.strip() for line in lines if line.strip()), None)
