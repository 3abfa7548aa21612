"""What to judge and judging it: the samples of a score run, each judged under a preset by a backend
(the embedded judge, a ``judgebox serve``, or any SandboxFusion server), a results row each.

Known solutions are programs already; a model's completions go through the extraction the chosen
preset's verl path uses (the final fenced block after ``<think>`` for judgebox's presets, verl 0.9.1's
rule for ``verl``), so a fenced answer is judged as the code inside its fence.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

from .. import languages, presets
from ..verl import parity, scoring
from ..verl.extract import answer_code, verl_solution
from .formats import BadRecord, Problem
from .results import Key
from .samples import Completion

# verl's results for a case, as verdicts (its scorer has no finer ones)
VERL_RESULTS = {True: "AC", False: "WA", -1: "SE", -2: "RE", -3: "TLE", -4: "CE"}
NO_CODE = "invalid"  # the verdict of a completion with nothing to run (no code block)
# CPU seconds a case runs under unless its test data says otherwise (time_limit): verl's default timeout,
# under every preset, so that presets differ only in their rules
CPU_TIME_LIMIT = parity.DEFAULT_TIMEOUT


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

    @property
    def key(self) -> Key:
        return self.id, self.kind, self.sample


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
                "" if code.strip() else "an empty program")


def _sample(problem: Problem, completion: Completion, preset: str) -> Item:
    language = str(problem.test_cases.get("language", problem.language))
    extract = verl_solution(completion.text) if preset == "verl" else answer_code(completion.text, language)
    if extract is not None and completion.continues_prompt:
        extract = problem.prompt + extract
    return Item(problem.id, "sample", completion.index, problem.source, language, problem.test_cases, extract,
                "" if extract is not None else "no code block in the completion")


def judge_item(item: Item, preset: str, backend: str | None) -> dict[str, Any]:
    """The item's results row. ``backend``: None for the embedded judge, else a URL as judgebox.verl takes."""
    started = time.monotonic()
    row: dict[str, Any] = {"id": item.id, "kind": item.kind, "sample": item.sample, "source": item.source,
                           "language": item.language, "preset": preset}
    if item.code is None or item.refusal:
        return row | {"score": 0.0, "verdict": NO_CODE, "error": item.refusal, "cases": [], "seconds": 0.0}
    if preset == "verl":
        try:
            results, metadata = parity.check_correctness(backend, item.test_cases, item.code, CPU_TIME_LIMIT,
                                                         1024, parity.sandbox_language(item.language))
        except (TypeError, ValueError, KeyError, AttributeError) as exc:  # test data verl's scorer cannot read
            return row | {"score": 0.0, "verdict": NO_CODE, "error": f"invalid test cases: {exc!r}", "cases": [],
                          "seconds": 0.0}
        cases = [[VERL_RESULTS.get(r, "SE"), _rounded(m.get("duration"))] for r, m in zip(results, metadata)]
        score = sum(r is True for r in results) / len(results) if results else 0.0
        verdict = next((c[0] for c in cases if c[0] == "SE"), next((c[0] for c in cases if c[0] != "AC"), "AC"))
        error = next((str(m["error"]) for m in metadata if m.get("error")), "")
    else:
        scored = scoring.judge_code(backend, None, None, item.code, item.test_cases, item.language,
                                    timeout=CPU_TIME_LIMIT, preset=preset)
        cases = [[m["verdict"], _rounded(m["duration"])] for m in scored.metadata if "verdict" in m]
        score, verdict, error = scored.score, scored.verdict, scored.error
    return row | {"score": score, "verdict": verdict, "error": error, "cases": cases,
                  "seconds": round(time.monotonic() - started, 4)}


def judge_all(items: Iterable[Item], preset: str, backend: str | None, concurrency: int,
              on_row: Callable[[dict[str, Any]], None]) -> None:
    """Judge with ``concurrency`` items in flight; ``on_row`` sees each row as it finishes, on the calling
    thread. A KeyboardInterrupt stops it: the items not finished are dropped, never written half-judged."""
    presets.get(preset)  # an unknown preset fails before anything runs
    pool = ThreadPoolExecutor(concurrency, thread_name_prefix="judgebox-score")
    in_flight: set[Future[dict[str, Any]]] = set()
    pending = iter(items)
    try:
        while True:
            while len(in_flight) < concurrency and (item := next(pending, None)) is not None:
                in_flight.add(pool.submit(judge_item, item, preset, backend))
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


def _rounded(seconds: Any) -> float | None:
    return round(float(seconds), 4) if isinstance(seconds, (int, float)) else None
