"""Which languages work on this machine: each one's self-test, run through the real sandbox.

Used by ``judgebox languages`` and the server's ``/health``. A language is available when its tools
exist and its self-test (echo the input) is accepted; otherwise the report says why not. A language's
libraries are probed the same way: each one the probe finds is listed with its version, a missing one
with none (the language itself stays available).
"""

from __future__ import annotations

import asyncio

from .errors import JudgeboxError
from .judging import Judge
from .languages import LANGUAGES, LanguageSpec, missing_tools
from .types import Case, Limits

SELF_TEST_LIMITS = Limits(cpu_time=10, memory_mb=512)


async def language_report(judge: Judge) -> list[dict[str, object]]:
    """One entry per language: name, aliases, description, available, and the reason if not."""
    return list(await asyncio.gather(*(_check(judge, spec) for spec in LANGUAGES)))


async def _check(judge: Judge, spec: LanguageSpec) -> dict[str, object]:
    entry: dict[str, object] = {"name": spec.name, "aliases": list(spec.aliases), "description": spec.description}
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
