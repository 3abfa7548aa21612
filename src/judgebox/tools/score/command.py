"""``judgebox score``: read the data (and samples), judge what the results file does not hold yet (or
holds for a record, program or settings that changed since), show progress on a terminal, and print the
summary of this run's data.

Exit status: 0 all records were judged; 1 some records were bad (each reported on stderr, the rest
judged); 2 nothing could be judged: a file missing or unreadable, a results file of another preset or of
other data (unless ``--force``) or not a results file, a bad option; 130 interrupted (Ctrl-C): what was
judged is kept in the results file and summarised, and running the same command again judges the rest.
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

from judgebox import datasets, languages, presets
from judgebox.backend import Backend
from judgebox.backends import registry
from judgebox.backends.sandboxfusion import RunCodeServer
from judgebox.datasets.metrics import KS
from judgebox.errors import InvalidInput, JudgeboxError
from judgebox.judging.judge import Judge
from judgebox.tools.calibrate import Calibration
from judgebox.tools.report import write as write_report
from judgebox.tools.score import display
from judgebox.tools.score.engine import CPU_TIME_LIMIT, MEMORY_LIMIT_MB, judge_all, plan, settings_of
from judgebox.tools.score.formats import BadRecord, UnreadableFile, read_problems
from judgebox.tools.score.references import needs_references, prepare
from judgebox.tools.score.results import ResultsFile, key_of
from judgebox.tools.score.samples import read_samples
from judgebox.tools.score.summary import summarize
from judgebox.types import Limits

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
    force: bool = False  # judge into a results file that holds another run's samples
    report: Path | None = None  # an HTML report of this run's rows
    ks: tuple[int, ...] = KS  # pass@k's
    cpu_time: float = CPU_TIME_LIMIT  # s of CPU per case, where the problem sets no time_limit
    memory_mb: int = MEMORY_LIMIT_MB  # per case, where the problem sets no memory_limit
    calibrate: float | None = None  # each problem's CPU limit: this factor times its reference's, floored


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
        problems = list(islice(read_problems(data_file(options.data)), options.limit))
        results = ResultsFile(options.out) if options.out else None
    except (UnreadableFile, JudgeboxError) as exc:
        _say(err, f"judgebox score: {exc}")
        return UNUSABLE
    except (OSError, ValueError) as exc:
        _say(err, f"judgebox score: {getattr(exc, 'strerror', None) or exc}")
        return UNUSABLE
    try:
        Limits(cpu_time=options.cpu_time, memory_mb=options.memory_mb)  # limits out of range: now, not per row
        calibration = Calibration(options.calibrate) if options.calibrate is not None else None
        if options.language is not None:
            languages.get(options.language)  # an unknown --language, before any reference runs
    except JudgeboxError as exc:
        _say(err, f"judgebox score: {exc}")
        return UNUSABLE
    backend: Backend | RunCodeServer | None = None
    if needs_references(problems, calibration):
        try:
            backend = _backend(options)
            if isinstance(backend, RunCodeServer):
                raise InvalidInput(f"--backend {options.backend} is a SandboxFusion server, which reports no CPU "
                                   "time nor a program's own stderr: evalplus's expected values and --calibrate's "
                                   "limits need judgebox's backends (local, judgebox://, ray)")
            problems = prepare(problems, backend, calibration, report_bad)
        except JudgeboxError as exc:
            _say(err, f"judgebox score: {exc}")
            return UNUSABLE
        except KeyboardInterrupt:  # the references take a while on evalplus's inputs: nothing judged yet
            _stop(backend)
            _say(err, "judgebox score: interrupted while the references ran; nothing was judged")
            return INTERRUPTED
    planned = list(plan(problems, samples, options.preset, options.language, report_bad))
    settings = settings_of(options.preset, options.cpu_time, options.memory_mb, options.calibrate)
    before = results.latest if results is not None else {}
    if any(r.get("preset", options.preset) != options.preset for r in before.values()):
        _say(err, f"judgebox score: {options.out} holds results of another preset; use another --out")
        return UNUSABLE
    planned_keys = {item.key for item in planned}
    foreign = [key for key in before if key not in planned_keys]
    if foreign and not options.force:
        ident, kind, index = foreign[0]
        _say(err, f"judgebox score: {options.out} holds {len(foreign)} results of samples that are not in "
                  f"{options.data} (the first: id {ident!r}, {kind} {index}): it is another run's file. Use another "
                  "--out, or --force to judge this data into it (its other rows are then left out of the summary)")
        return UNUSABLE
    kept = [before[item.key] for item in planned
            if item.key in before and before[item.key].get("digest") == item.digest(settings)]
    kept_keys = {key_of(row) for row in kept}
    items = [item for item in planned if item.key not in kept_keys]
    if before:
        changed = sum(item.key in before for item in items)
        _say(err, f"resuming {options.out}: {len(kept)} samples judged before, {len(items)} to judge"
                  + (f" ({changed} of them judged before, but their record, program or settings changed since)"
                     if changed else ""))
    try:
        backend = backend or _backend(options)
        concurrency = _concurrency(backend)
    except JudgeboxError as exc:  # no Ray, or no Ray cluster to join, or an address no backend answers to
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
            judge_all(items, settings, backend, concurrency, on_row)
        except KeyboardInterrupt:
            interrupted = True
            _stop(backend)
    if results is not None:
        results.close()
    summary = summarize(kept + rows, bad, seconds=time.monotonic() - started, interrupted=interrupted,
                        ks=options.ks)
    if options.report is not None:
        write_report(options.report, kept + rows, summary, f"judgebox score {options.data.name} "
                     f"(preset {options.preset})")
        _say(err, f"report written to {options.report}")
    if options.json:
        print(json.dumps(summary, indent=2))
    else:
        display.show(summary, f"judgebox score {options.data.name} (preset {options.preset})", Console())
    return INTERRUPTED if interrupted else BAD_RECORDS if bad else OK


def data_file(data: Path) -> Path:
    """DATA as given: a file, or else, a bare name (no folder, no extension), a dataset judgebox ships
    (``judgebox.datasets``); a missing path is the reader's to report."""
    if data.exists() or data.suffix or data.name != str(data):
        return data
    try:
        return datasets.get(str(data)).path
    except JudgeboxError:
        raise UnreadableFile(f"{data} is neither a file nor a dataset judgebox ships (it ships "
                             f"{', '.join(datasets.names())})") from None


def _say(err: Console, line: str) -> None:
    """One line as it is: no markup, no wrapping (a message names paths and ids to copy)."""
    err.print(line, markup=False, highlight=False, soft_wrap=True)


def _progress(err: Console) -> Progress:
    """Live only on a terminal: a log or a pipe gets the summary alone."""
    return Progress(TextColumn("[bold]judging"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
                    TextColumn("ETA"), TimeRemainingColumn(), console=err, disable=not err.is_terminal)


def _backend(options: Options) -> Backend | RunCodeServer:
    """The backend ``--backend`` names (``local``, ``ray`` or an address), with ``--slots`` for the embedded one."""
    address = {"local": None, "ray": "ray://"}.get(options.backend, options.backend)
    if address is None and options.slots:
        return registry.connect(None, slots=options.slots)
    return registry.shared(address)


def _concurrency(backend: Backend | RunCodeServer) -> int:
    """Enough samples in flight to keep every slot busy (a sample's cases spread over the slots)."""
    if isinstance(backend, Judge):
        return 2 * backend.slots
    cluster_cpus = getattr(backend, "cluster_cpus", None)  # a Ray cluster's, as Ray counts them
    if cluster_cpus is not None:
        return max(16, 2 * int(cluster_cpus()))
    return 16


def _exit_now(signum: int, frame: object) -> None:
    """The second Ctrl-C: exit without waiting for the runs in flight. Every row judged is already in
    ``--out``; a sandbox's processes die with the judge's end of their socket (and are bounded by their
    limits meanwhile)."""
    os.write(2, b"judgebox score: interrupted again: exiting now\n")
    os._exit(INTERRUPTED)


def _stop(backend: Backend | RunCodeServer | None) -> None:
    """Interrupted: the runs in flight are dropped, so an embedded judge ends them now rather than at their
    limits; a second Ctrl-C meanwhile does not wait for the sandboxes."""
    signal.signal(signal.SIGINT, _exit_now)
    if isinstance(backend, Judge):
        backend.close(cancel=True)
