"""What to judge and judging it: the samples of a score run, each judged under a preset by a backend
(the embedded judge, a ``judgebox serve``, or any SandboxFusion server), a results row each.

Known solutions are programs already; a model's completions go through the extraction the chosen
preset's verl path uses (the final fenced block after ``<think>`` for judgebox's presets, verl 0.9.1's
rule for ``verl``), so a fenced answer is judged as the code inside its fence.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from judgebox import languages, presets
from judgebox.backend import Backend
from judgebox.backends.sandboxfusion import RunCodeServer
from judgebox.languages.extract import answer_code, verl_solution
from judgebox.tools.score.formats import BadRecord, Problem
from judgebox.tools.score.results import Key
from judgebox.tools.score.samples import Completion
from judgebox.verl import judgebox_profile, parity
from judgebox.version import __version__

# verl's results for a case, as verdicts (its scorer has no finer ones)
VERL_RESULTS = {True: "AC", False: "WA", -1: "SE", -2: "RE", -3: "TLE", -4: "CE"}
NO_CODE = "invalid"  # the verdict of a completion with nothing to run (no code block)
# CPU seconds a case runs under unless its test data says otherwise (time_limit): verl's default timeout,
# under every preset, so that presets differ only in their rules
CPU_TIME_LIMIT = parity.DEFAULT_TIMEOUT


MEMORY_LIMIT_MB = 1024  # per case, as verl's scorer's default (a problem's own memory_limit wins)


def settings_of(preset: str, cpu_time: float = CPU_TIME_LIMIT, memory_mb: int = MEMORY_LIMIT_MB,
                calibrate: float | None = None) -> dict[str, Any]:
    """What judges a run's samples besides their data (the preset, and the limits of a case where its
    problem sets none, or the factor that calibrates each problem's CPU limit): a results row made under
    other settings is stale."""
    settings = {"preset": preset, "cpu_time": cpu_time, "memory_mb": memory_mb, "judgebox": __version__}
    return settings if calibrate is None else settings | {"calibrate": calibrate}


@dataclass(frozen=True)
class Item:
    id: str
    kind: str  # right, wrong or sample
    sample: int
    source: str
    language: str
    test_cases: dict[str, Any]
    code: str | None  # None: nothing to run, ``refusal`` says why
    refusal: str = ""
    base_cases: int | None = None  # evalplus's: how many of the first cases are its base tests
    cpu_time: float | None = None  # the problem's calibrated CPU limit, in place of the run's

    @property
    def key(self) -> Key:
        return self.id, self.kind, self.sample

    def settings(self, run: dict[str, Any]) -> dict[str, Any]:
        """The settings that judge this item: the run's, with its problem's calibrated CPU limit."""
        return run if self.cpu_time is None else run | {"cpu_time": self.cpu_time}

    def digest(self, settings: dict[str, Any]) -> str:
        """Of everything that decides this item's row: its record's test data, its program (or why there
        is none) and the settings it is judged under."""
        what = [self.id, self.kind, self.sample, self.language, self.test_cases, self.code, self.refusal,
                self.settings(settings)]
        canonical = json.dumps(what, sort_keys=True, ensure_ascii=False, default=_canonical)
        return hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _canonical(value: Any) -> Any:
    """What JSON has no form for, in a form of the value alone: a set in sorted order (its own order
    changes with the interpreter's string hashing, run to run), anything else as its repr."""
    if isinstance(value, (set, frozenset)):
        return sorted(json.dumps(item, sort_keys=True, default=_canonical) for item in value)
    return repr(value)


def plan(problems: Iterable[Problem | BadRecord], samples: dict[str, list[Completion]] | None, preset: str,
         language: str | None, on_bad: Callable[[BadRecord], None]) -> Iterator[Item]:
    """The items of a run in the file's order: the problems' known solutions or, given samples, the
    samples of each problem. ``language``: only solutions in it."""
    wanted = languages.get(language).name if language else None
    seen: set[str] = set()
    for problem in problems:
        if isinstance(problem, BadRecord):
            on_bad(problem)
            continue
        seen.add(problem.id)
        if problem.differential is not None:
            raise ValueError(f"{problem.id}: its expected values are not computed yet (references.prepare)")
        if samples is None and not (problem.right or problem.wrong):
            on_bad(BadRecord(problem.where or f"id {problem.id}", "solutions", "expected known solutions to judge "
                                                              "(or pass --samples with a model's completions)"))
            continue
        if samples is None:
            items = [_known(problem, kind, i, lang, code) for kind, known in (("right", problem.right),
                     ("wrong", problem.wrong)) for i, (lang, code) in enumerate(known)]
        else:
            items = [_sample(problem, completion, preset) for completion in samples.get(problem.id, [])]
        for item in items:
            spec = languages.lookup(item.language)  # an unknown one is the judge's to refuse, row by row
            if wanted is None or (spec is not None and spec.name == wanted):
                yield item
    for ident in sorted(set(samples or ()) - seen):
        on_bad(BadRecord(f"samples id {ident}", "id", "expected the id of a problem in the data file"))


def _known(problem: Problem, kind: str, index: int, language: str, code: str) -> Item:
    return Item(problem.id, kind, index, problem.source, language, problem.test_cases, code,
                "" if code.strip() else "an empty program", problem.base_cases, problem.cpu_time)


def _sample(problem: Problem, completion: Completion, preset: str) -> Item:
    language = str(problem.test_cases.get("language", problem.language))
    prompt = problem.prompt if completion.continues_prompt else ""
    extract = verl_solution(completion.text) if preset == "verl" else answer_code(completion.text, language, prompt)
    if extract is not None:
        extract = prompt + extract
    return Item(problem.id, "sample", completion.index, problem.source, language, problem.test_cases, extract,
                "" if extract is not None else "no code block in the completion", problem.base_cases,
                problem.cpu_time)


def judge_item(item: Item, settings: dict[str, Any], backend: Backend | RunCodeServer) -> dict[str, Any]:
    """The item's results row, judged under ``settings`` (:func:`settings_of`) on ``backend``
    (judgebox.verl takes it where it takes a URL)."""
    started = time.monotonic()
    digest, settings = item.digest(settings), item.settings(settings)
    preset, cpu_time, memory_mb = settings["preset"], settings["cpu_time"], settings["memory_mb"]
    row: dict[str, Any] = {"id": item.id, "kind": item.kind, "sample": item.sample, "source": item.source,
                           "language": item.language, "preset": preset, "settings": settings, "digest": digest}
    if item.base_cases is not None:
        row["base_cases"] = item.base_cases
    if item.code is None or item.refusal:
        return row | {"score": 0.0, "verdict": NO_CODE, "error": item.refusal, "cases": [], "limits": None,
                      "seconds": 0.0}
    if preset == "verl":
        try:
            results, metadata = parity.check_correctness(backend, item.test_cases, item.code, cpu_time,
                                                         memory_mb, parity.sandbox_language(item.language))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:  # test data verl's scorer cannot read
            return row | {"score": 0.0, "verdict": NO_CODE, "error": f"invalid test cases: {exc!r}", "cases": [],
                          "limits": None, "seconds": 0.0}
        # verl's timeout is /run_code's run_timeout, on the wall clock, whatever the problem's own time_limit
        limits: dict[str, Any] | None = {"time": cpu_time, "clock": "wall", "memory_mb": memory_mb}
        cases = [[VERL_RESULTS.get(r, "SE"), _rounded(m.get("duration")), None] for r, m in zip(results, metadata)]
        score = sum(r is True for r in results) / len(results) if results else 0.0
        verdict = next((c[0] for c in cases if c[0] == "SE"), next((c[0] for c in cases if c[0] != "AC"), "AC"))
        error = next((str(m["error"]) for m in metadata if m.get("error")), "") or _failure(
            [(str(c[0]), m) for c, m in zip(cases, metadata)])
    else:
        scored = judgebox_profile.judge_code(backend, None, memory_mb, item.code, item.test_cases, item.language,
                                             timeout=cpu_time, preset=preset)
        # a SandboxFusion server that is not judgebox gets the CPU limit as its run_timeout, on the wall clock
        clock = "wall" if isinstance(backend, RunCodeServer) else "cpu"
        ran = scored.limits  # None: refused before anything ran
        limits = None if ran is None else {"time": ran.cpu_time, "clock": clock, "memory_mb": ran.memory_mb}
        cases = [[m["verdict"], _rounded(m["duration"]), _rounded(m["cpu_time"])] for m in scored.metadata
                 if "verdict" in m]
        score, verdict = scored.score, scored.verdict
        error = scored.error or _failure([(m["verdict"], m) for m in scored.metadata if "verdict" in m])
    return row | {"score": score, "verdict": verdict, "error": error, "cases": cases, "limits": limits,
                  "seconds": round(time.monotonic() - started, 4)}


def judge_all(items: Iterable[Item], settings: dict[str, Any], backend: Backend | RunCodeServer, concurrency: int,
              on_row: Callable[[dict[str, Any]], None]) -> None:
    """Judge with ``concurrency`` items in flight; ``on_row`` sees each row as it finishes, on the calling
    thread. A KeyboardInterrupt stops it: the items not finished are dropped, never written half-judged."""
    presets.get(settings["preset"])  # an unknown preset fails before anything runs
    pool = ThreadPoolExecutor(concurrency, thread_name_prefix="judgebox-score")
    in_flight: set[Future[dict[str, Any]]] = set()
    pending = iter(items)
    try:
        while True:
            while len(in_flight) < concurrency and (item := next(pending, None)) is not None:
                in_flight.add(pool.submit(judge_item, item, settings, backend))
            if not in_flight:
                break
            # a timeout so that the main thread wakes for Ctrl-C
            finished, in_flight = wait(in_flight, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in finished:
                on_row(future.result())
    finally:
        for future in in_flight:
            future.cancel()
        pool.shutdown(wait=False, cancel_futures=True)


FAILURE_CHARS = 500  # of a failure's detail in a row: enough for a checker's message or a traceback's end


def _failure(cases: list[tuple[str, Mapping[str, Any]]]) -> str:
    """What the first failing case says: the checker's message (``expected '11', got '10'``), else the end
    of the program's stderr (an assertion's traceback), as ``case N: VERDICT: detail``."""
    for index, (verdict, meta) in enumerate(cases):
        if verdict != "AC":
            message, stderr = str(meta.get("message") or "").strip(), str(meta.get("stderr") or "").strip()
            if len(stderr) > FAILURE_CHARS:
                stderr = "..." + stderr[-FAILURE_CHARS:]
            detail = "\n".join(part for part in (message[:FAILURE_CHARS], stderr) if part)
            return f"case {index}: {verdict}" + (f": {detail}" if detail else "")
    return ""


def _rounded(seconds: Any) -> float | None:
    return round(float(seconds), 4) if isinstance(seconds, (int, float)) else None
