"""``judgebox score``: read the data (and samples), judge what the results file does not hold yet,
show progress on a terminal, and print the summary.

Exit status: 0 all records were judged; 1 some records were bad (each reported on stderr, the rest
judged); 2 nothing could be judged: a file missing or unreadable, a results file of another preset or
not a results file, a bad option; 130 interrupted (Ctrl-C): what was judged is kept in the results file
and summarised, and running the same command again judges the rest.
"""

from __future__ import annotations

import json
import os
import signal
import time
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from .. import presets
from ..errors import JudgeboxError
from . import display
from .engine import judge_all, plan
from .formats import BadRecord, UnreadableFile, read_problems
from .results import ResultsFile
from .samples import read_samples
from .summary import summarize

OK, BAD_RECORDS, UNUSABLE, INTERRUPTED = 0, 1, 2, 130


@dataclass(frozen=True)
class Options:
    data: Path
    samples: Path | None = None
    out: Path | None = None
    preset: str = "judgebox"
    backend: str = "local"
    language: str | None = None
    limit: int | None = None
    json: bool = False
    slots: int | None = None


def score(options: Options, err: Console) -> int:
    bad: list[str] = []

    def report_bad(record: BadRecord) -> None:
        bad.append(str(record))
        err.print(f"[red]bad record[/red] {escape(str(record))}", highlight=False, soft_wrap=True)

    try:
        presets.get(options.preset)
        samples = None
        if options.samples is not None:
            samples, unreadable = read_samples(options.samples)
            for record in unreadable:
                report_bad(record)
        problems = list(islice(read_problems(options.data), options.limit))
        results = ResultsFile(options.out) if options.out else None
    except (UnreadableFile, JudgeboxError) as exc:
        _say(err, f"judgebox score: {exc}")
        return UNUSABLE
    except (OSError, ValueError) as exc:
        _say(err, f"judgebox score: {getattr(exc, 'strerror', None) or exc}")
        return UNUSABLE
    if results is not None and any(r.get("preset", options.preset) != options.preset for r in results.rows):
        _say(err, f"judgebox score: {options.out} holds results of another preset; use another --out")
        return UNUSABLE
    if options.slots:
        os.environ["JUDGEBOX_SLOTS"] = str(options.slots)

    kept = list(results.rows) if results else []
    done = results.done if results else set()
    try:
        items = [item for item in plan(problems, samples, options.preset, options.language, report_bad)
                 if item.key not in done]
    except JudgeboxError as exc:  # an unknown --language
        _say(err, f"judgebox score: {exc}")
        return UNUSABLE
    if kept:
        _say(err, f"resuming {options.out}: {len(kept)} samples judged before, {len(items)} to judge")
    backend = {"local": None, "ray": "ray://"}.get(options.backend, options.backend)
    try:
        concurrency = _concurrency(backend)
    except JudgeboxError as exc:  # no Ray, or no Ray cluster to join
        _say(err, f"judgebox score: {exc}")
        return UNUSABLE
    interrupted = False
    started = time.monotonic()
    rows: list[dict[str, Any]] = []
    with _progress(err) as progress:
        task = progress.add_task("judging", total=len(items), rate="")

        def on_row(row: dict[str, Any]) -> None:
            rows.append(row)
            if results is not None:
                results.write(row)
            cases = sum(len(r["cases"]) for r in rows)
            progress.update(task, advance=1, rate=f"{cases / max(time.monotonic() - started, 1e-9):.0f} cases/s")

        try:
            judge_all(items, options.preset, backend, concurrency, on_row)
        except KeyboardInterrupt:
            interrupted = True
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C while the sandboxes stop
            _stop_embedded_judge()
    if results is not None:
        results.close()
    summary = summarize(kept + rows, bad, seconds=time.monotonic() - started, interrupted=interrupted)
    if options.json:
        print(json.dumps(summary, indent=2))
    else:
        display.show(summary, f"judgebox score {options.data.name} (preset {options.preset})", Console())
    return INTERRUPTED if interrupted else BAD_RECORDS if bad else OK


def _say(err: Console, line: str) -> None:
    """One line as it is: no markup, no wrapping (a message names paths and ids to copy)."""
    err.print(line, markup=False, highlight=False, soft_wrap=True)


def _progress(err: Console) -> Progress:
    """Live only on a terminal: a log or a pipe gets the summary alone."""
    return Progress(TextColumn("[bold]judging"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                    TextColumn("ETA"), TimeRemainingColumn(), console=err, disable=not err.is_terminal)


def _concurrency(backend: str | None) -> int:
    """Enough samples in flight to keep every slot busy (a sample's cases spread over the slots)."""
    slots = int(os.environ.get("JUDGEBOX_SLOTS") or os.cpu_count() or 1)
    if backend is not None and backend.startswith("ray://"):
        return max(16, 2 * _cluster_cpus(backend))
    return 2 * slots if backend is None else 16


def _cluster_cpus(backend: str) -> int:
    """The CPUs of the Ray cluster the process-wide Ray judge of ``backend`` is on (joining it)."""
    from ..backends.ray import ray_judge

    return int(ray_judge(backend[len("ray://"):] or None).cluster_cpus())


def _stop_embedded_judge() -> None:
    """Interrupted: the runs in flight are dropped; closing the judge ends them now rather than at exit."""
    from .. import judging

    if judging._default is not None:
        judging._default.close()
