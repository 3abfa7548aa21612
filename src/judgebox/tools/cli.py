"""The ``judgebox`` command: ``score`` a dataset, ``run`` one program, list ``languages`` and isolation."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from judgebox.judging.cases import MAX_RECORD_BYTES

console = Console(stderr=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="judgebox", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    score = commands.add_parser(
        "score", help="judge a dataset's known solutions, or a model's samples, and summarise how they score",
        description="Exit status: 0 all records judged; 1 some records were bad (reported on stderr, the rest "
                    "judged); 2 nothing could be judged (a file missing or unreadable, a bad option); "
                    "130 interrupted (what was judged is kept in --out; run again to resume).")
    score.add_argument("data", type=Path, help="problems: JSONL or Parquet (judgebox, verl, HumanEval, evalplus, "
                                               "MBPP, APPS, CodeContests, LiveCodeBench), or the name of a dataset "
                                               "judgebox ships: humaneval, mbpp, codecontests, humaneval-x-LANG")
    score.add_argument("--samples", type=Path, help="a JSONL of model completions joined to the problems by id "
                                                    "(several a problem: pass@k)")
    score.add_argument("--out", type=Path, help="results, one JSON line per sample as it finishes; "
                                                "an existing file is resumed")
    score.add_argument("--preset", default="judgebox", help="judging rules: judgebox (default), verl, prime, "
                                                            "livecodebench, codecontests, sandboxfusion")
    score.add_argument("--backend", default="local", help="local (the embedded sandbox, default), "
                                                          "judgebox://host:port, http(s)://host:port/run_code, "
                                                          "ray (the Ray cluster this machine is on; "
                                                          "judgebox[ray]) or ray://host:port")
    score.add_argument("--language", help="judge only the solutions in this language")
    score.add_argument("--limit", type=int, help="only the first N problems")
    score.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    score.add_argument("--slots", type=int, default=None, help="sandbox slots (default: one per core)")
    score.add_argument("--k", type=_ks, default=None, metavar="K,K,...", help="the k of pass@k (default 1,5,10); "
                       "a k is reported only when every problem has at least k samples")
    score.add_argument("--cpu-time", type=_positive(float), default=None, metavar="S",
                       help="CPU seconds per case where a problem sets no time_limit (default 10)")
    score.add_argument("--memory-mb", type=_positive(int), default=None, metavar="MB",
                       help="memory per case where a problem sets no memory_limit (default 1024)")
    # const True: the factor judgebox calibrate's rule defaults to (read when the command runs, not imported here)
    score.add_argument("--calibrate", type=_positive(float), nargs="?", const=True, default=None, metavar="FACTOR",
                       help="each problem's CPU limit from its known-right solution's (evalplus: the canonical "
                            "one): max(1 s, FACTOR x its slowest case), FACTOR 4 unless given, as judgebox calibrate")
    score.add_argument("--force", action="store_true", help="judge into an --out file that holds results of other "
                       "data (they are left out of the summary)")
    score.add_argument("--report", type=Path, help="also write an HTML report here (one file, readable offline)")
    score.set_defaults(handler=_score)

    calibrate = commands.add_parser(
        "calibrate", help="write a dataset with each problem's limits calibrated on its known-right solution",
        description="Each problem's CPU limit becomes max(FLOOR, FACTOR x its reference's slowest case) and its "
                    "memory limit its own, else max(MEMORY_FLOOR, MEMORY_FACTOR x the reference's peak), written "
                    "where the data's settings hold them (time_limit / memory_limit), so verl, TRL, OpenRLHF and "
                    "judgebox score use them unchanged. Exit status: 0 every problem calibrated; 1 some written as "
                    "they were (the table says why); 2 nothing written (a file unreadable, a bad option).")
    calibrate.add_argument("data", type=Path, help="problems: JSONL or Parquet, in any format judgebox score reads")
    calibrate.add_argument("--out", type=Path, required=True, help="the calibrated data (JSONL, or Parquet by its "
                                                                   "suffix); replaced whole when done")
    calibrate.add_argument("--references", type=Path, help="known-right programs joined to the problems by id, "
                                                           "as --samples is for score (verl's files carry none)")
    # the defaults are judgebox.tools.calibrate.Calibration's (filled in when the command runs, not imported here)
    calibrate.add_argument("--factor", type=float, help="times the reference's CPU time (default 4)")
    calibrate.add_argument("--floor", type=float, help="CPU seconds at least (default 1)")
    calibrate.add_argument("--memory-factor", type=float, help="times the reference's peak memory (default 4)")
    calibrate.add_argument("--memory-floor-mb", type=int, help="MiB at least (default: the judge's memory limit, 512)")
    calibrate.add_argument("--language", help="the samples' language: references in it calibrate (default: each "
                                              "problem's own)")
    calibrate.add_argument("--limit", type=int, help="only the first N records")
    calibrate.add_argument("--slots", type=int, default=None, help="sandbox slots (default: one per core)")
    calibrate.add_argument("--json", action="store_true", help="print the rows as JSON on stdout")
    calibrate.set_defaults(handler=_calibrate)

    run = commands.add_parser("run", help="run one program once in the sandbox and show how it ran")
    run.add_argument("file", type=Path)
    run.add_argument("--language", help="default: guessed from the file's extension")
    given = run.add_mutually_exclusive_group()
    given.add_argument("--stdin", type=Path, help="a file to give the program as its standard input")
    given.add_argument("--input", help="text to give the program as its standard input")
    run.add_argument("--cpu-time", type=float, default=5.0, help="CPU seconds (default 5)")
    run.add_argument("--memory-mb", type=int, default=512, help="memory limit in MiB (default 512)")
    run.set_defaults(handler=_run)

    serve = commands.add_parser("serve", help="run the HTTP service (SandboxFusion's /run_code, /judge, ...)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument("--workers", type=int, default=None, help="sandbox slots (default: one per core)")
    serve.add_argument("--token", default=os.environ.get("JUDGEBOX_TOKEN"),
                       help="bearer token required on every endpoint but the health checks (env JUDGEBOX_TOKEN)")
    serve.add_argument("--max-body-mb", type=int, default=MAX_RECORD_BYTES // 2**20,
                       help="largest request body accepted (413 beyond; default: the bound of one record)")
    serve.add_argument("--max-wait", type=float, default=30.0, help="seconds a request may queue before a 504")
    serve.add_argument("--share-caches", action="store_true",
                       help="one caller for every request: a single-tenant server shares judgements and builds "
                            "between requests that declare no X-Judgebox-Caller (default: each request its own)")
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(handler=_serve)

    languages = commands.add_parser("languages", help="languages and the isolation active on this machine")
    languages.add_argument("--json", action="store_true", help="print the reports as one JSON object")
    languages.set_defaults(handler=_languages)

    bench = commands.add_parser("bench", help="judgebox against a fresh process per case, Python and C++")
    bench.add_argument("--quick", action="store_true", help="a short run: fewer rounds and cases")
    bench.add_argument("--json", action="store_true", help="print the figures as JSON on stdout")
    bench.set_defaults(handler=_bench)

    verl = commands.add_parser("verl-config", help="the verl config lines that make judgebox its code reward")
    verl.add_argument("--verl", default="0.9", metavar="VERSION",
                      help="the trainer's verl version: its config layout (0.8 and later, default 0.9; or 0.4 to 0.7)")
    verl.add_argument("--url", default=None, help="sandbox_fusion_url: judgebox://host:port (several: comma-"
                                                  "joined), http(s)://.../run_code, ray:// (default: the embedded "
                                                  "judge in each reward worker)")
    verl.add_argument("--profile", default="judgebox", help="judgebox (default), verl or another preset")
    verl.add_argument("--interface", default="naive",
                      help="verl's reward interface: naive (per sample), batch (one call per step), prime (a float "
                           "per sample), reward-loop (the asynchronous reward loop)")
    verl.set_defaults(handler=_verl_config)

    args = parser.parse_args(argv)
    from judgebox.errors import JudgeboxError

    try:
        return args.handler(args)
    except JudgeboxError as exc:
        console.print(f"[red]judgebox: {escape(str(exc))}", soft_wrap=True)  # a file name is no markup
        return 2
    except KeyboardInterrupt:  # before a command's own handling of it (score's, once judging has begun)
        console.print("judgebox: interrupted", soft_wrap=True)
        return 130  # the shell's status for a command ended by Ctrl-C, as score's own


def _score(args: argparse.Namespace) -> int:
    from judgebox.datasets.metrics import KS
    from judgebox.tools.calibrate import DEFAULT_CALIBRATION
    from judgebox.tools.score.command import Options, score
    from judgebox.tools.score.engine import CPU_TIME_LIMIT, MEMORY_LIMIT_MB

    return score(Options(args.data, args.samples, args.out, args.preset, args.backend, args.language, args.limit,
                         args.json, args.slots, args.force, args.report, args.k or KS,
                         args.cpu_time or CPU_TIME_LIMIT, args.memory_mb or MEMORY_LIMIT_MB,
                         DEFAULT_CALIBRATION.factor if args.calibrate is True else args.calibrate), console)


def _positive(kind: type) -> Any:
    """An argparse type: a positive number of ``kind`` (at most Limits' bounds: the judge checks those)."""
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            what = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not value > 0 or value != value:
            raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
        return value
    return parse


def _ks(text: str) -> tuple[int, ...]:
    """``--k 1,2,5``: distinct whole numbers from 1 up, in order."""
    try:
        ks = tuple(sorted({int(part) for part in text.split(",")}))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers and commas, as 1,5,10; got {text!r}") from None
    if not ks or ks[0] < 1:
        raise argparse.ArgumentTypeError(f"each k is at least 1; got {text!r}") from None
    return ks


def _calibrate(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from judgebox.judging.judge import Judge
    from judgebox.tools.calibrate import Calibration
    from judgebox.tools.calibrate_data import calibrate_data

    given = {"factor": args.factor, "floor": args.floor, "memory_factor": args.memory_factor,
             "memory_floor": args.memory_floor_mb}
    calibration = Calibration(**{name: value for name, value in given.items() if value is not None})
    references: dict[str, list[str]] = {}
    if args.references is not None:
        from judgebox.tools.score.samples import read_samples

        given, unreadable = read_samples(args.references)
        for record in unreadable:
            console.print(f"[red]bad record[/red] {escape(str(record))}", highlight=False, soft_wrap=True)
        if unreadable:
            return 2  # a reference misread would calibrate on the wrong program, or on none
        references = {ident: [c.text for c in completions] for ident, completions in given.items()}
    with Judge(slots=args.slots, dedupe=False) as judge:  # each reference measured, not a cached time
        try:
            rows = calibrate_data(args.data, args.out, judge, calibration, args.language, args.limit,
                                  references=references)
        except OSError as exc:
            console.print(f"[red]judgebox calibrate: cannot write {escape(str(args.out))}: "
                          f"{escape(exc.strerror or str(exc))}", soft_wrap=True)
            return 2
    if args.json:
        print(json.dumps([asdict(row) for row in rows], indent=2))
    table = Table(title=f"limits calibrated on the references ({args.data.name} -> {args.out.name})")
    for column in ("problem", "reference", "cases", "slowest", "time limit", "memory limit", "note"):
        table.add_column(column, overflow="fold")

    def shown(value: float | None, unit: str) -> str:
        return "—" if value is None else f"{value:g} {unit}"

    for row in rows:
        table.add_row(escape(row.id or row.where), row.reference or "—", str(row.cases or "—"),
                      "—" if row.slowest is None else f"{row.slowest * 1e3:.0f} ms",
                      f"{shown(row.time_before, 's')} -> {shown(row.time_after, 's')}",
                      f"{shown(row.memory_before, 'MiB')} -> {shown(row.memory_after, 'MiB')}", escape(row.note))
    Console(stderr=True, width=None if sys.stderr.isatty() else 160).print(table)
    calibrated = sum(row.calibrated for row in rows)
    console.print(f"{calibrated} of {len(rows)} records calibrated, written to {escape(str(args.out))}",
                  highlight=False, soft_wrap=True)
    return 0 if calibrated == len(rows) else 1


def _run(args: argparse.Namespace) -> int:
    """One program, one input, no expected output: the path of SandboxFusion's /run_code plain run."""
    from judgebox.judging.classify import classify
    from judgebox.judging.judge import Judge
    from judgebox.types import Limits
    from judgebox.verdicts import Verdict

    spec = _language_of(args.file, args.language)
    # both files are read before a sandbox starts: a wrong path is the user's error, told in one line
    try:
        source = args.file.read_text(encoding="utf-8")
        stdin = args.stdin.read_bytes() if args.stdin is not None else None
    except (OSError, UnicodeDecodeError) as exc:
        reason = f"{exc.filename}: {exc.strerror}" if isinstance(exc, OSError) else f"{args.file}: not UTF-8 text"
        console.print(f"[red]judgebox run: cannot read {escape(reason)}", soft_wrap=True)
        return 2
    if stdin is None and args.input is not None:
        stdin = args.input.encode()
    elif stdin is None:
        stdin = b"" if sys.stdin.isatty() else sys.stdin.buffer.read()
    limits = Limits(cpu_time=args.cpu_time, memory_mb=args.memory_mb)
    with Judge(slots=1) as judge:
        built, outcome = judge.run_program(spec, source, stdin, limits)
    if outcome is None:
        assert built is not None
        verdict, message = ("SE", built.system_error) if built.system_error else ("CE", built.compile_error)
        console.print(f"[red]{verdict}[/]: {spec.name} build failed", highlight=False, soft_wrap=True)
        # the compiler's text: its brackets are not markup
        console.print(message, markup=False, highlight=False, soft_wrap=True)
        return 2 if built.system_error else 1
    check = classify(outcome, spec)
    sys.stdout.buffer.write(outcome.stdout)
    sys.stdout.flush()
    sys.stderr.buffer.write(outcome.stderr)
    sys.stderr.flush()
    ran = "OK" if check.verdict is Verdict.AC else check.verdict.value
    status = f"signal {outcome.signal}" if outcome.signal is not None else f"exit {outcome.exit_code}"
    build = f", compiled in {built.compile_time:.2f} s" if built is not None else ""
    console.print(f"{'[green]' if ran == 'OK' else '[red]'}{ran}[/] {status}, cpu {outcome.cpu_time * 1e3:.1f} ms, "
                  f"wall {outcome.wall_time * 1e3:.1f} ms, memory {outcome.memory_bytes / 2**20:.1f} MiB "
                  f"({spec.name}{build})" + ("" if ran == "OK" else f": {escape(check.message)}"),
                  highlight=False, soft_wrap=True)
    return 0 if ran == "OK" else 2 if check.verdict is Verdict.SE else 1


def _language_of(file: Path, name: str | None):  # type: ignore[no-untyped-def]
    """The language asked for, else the first whose source file has this file's extension (.py is Python,
    not PyPy; .cpp is C++17, judgebox's default C++)."""
    from judgebox import languages
    from judgebox.errors import UnknownLanguage

    if name is not None:
        return languages.get(name)
    suffix = file.suffix
    spec = next((s for s in languages.LANGUAGES if suffix and Path(s.source).suffix == suffix), None)
    if spec is None:
        raise UnknownLanguage(f"cannot tell the language of {file.name!r} from its extension; give --language")
    return languages.get(spec.name)


def _serve(args: argparse.Namespace) -> int:
    import logging

    import uvicorn

    from judgebox.server import ServerSettings, create_app

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    settings = ServerSettings(slots=args.workers, token=args.token, max_body_bytes=args.max_body_mb * 2**20,
                              max_wait=args.max_wait, share_caches=args.share_caches)
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level=args.log_level,
                access_log=False)
    return 0


def _verl_config(args: argparse.Namespace) -> int:
    from judgebox.verl.config import overrides

    lines = overrides(args.verl, args.interface, args.profile, args.url)
    for line, following in zip(lines, [*lines[1:], "#"]):  # an override followed by one continues the command
        print(line + (" \\" if not line.startswith("#") and not following.startswith("#") else ""))
    return 0


def _languages(args: argparse.Namespace) -> int:
    import asyncio

    from judgebox.judging.judge import Judge
    from judgebox.judging.selftest import language_report
    from judgebox.sandbox.report import isolation_report

    report = isolation_report()
    entries: list[dict[str, Any]] = []
    if report["ok"]:
        with Judge() as judge:
            entries = asyncio.run(language_report(judge))
    if args.json:
        print(json.dumps({"languages": entries, "isolation": report}, indent=2, default=str))
        return 0 if report["ok"] else 1
    out = Console()
    if report["ok"]:
        table = Table(title="languages (each self-tested in the sandbox)")
        for column in ("language", "aliases", "toolchain", "what", "status"):
            table.add_column(column)
        for entry in entries:
            status = "[green]available" if entry["available"] else f"[red]unavailable: {entry['reason']}"
            libraries = ", ".join(f"{name} {version or '[red]missing[/red]'}"
                                  for name, version in entry.get("libraries", {}).items())
            what = str(entry["description"]) + (f"\nlibraries: {libraries}" if libraries else "")
            table.add_row(str(entry["name"]), ", ".join(entry["aliases"]), str(entry["version"] or "—"), what, status)
        out.print(table)
    layers = Table(title=f"isolation ({report['mode']} mode, sandbox Python {report['python']})")
    layers.add_column("layer")
    layers.add_column("active")
    layers.add_column("required")
    for name, value in sorted(report["layers"].items()):
        active = f"ABI {value}" if name == "landlock" and value else "yes" if value is True else value or "no"
        layers.add_row(name, active, "yes" if name in report["required"] else "")
    out.print(layers)
    if not report["ok"]:
        out.print(f"[red]{report['error']}")
    return 0 if report["ok"] else 1


def _bench(args: argparse.Namespace) -> int:
    """The standard benchmark (:mod:`judgebox.tools.bench`): tables on stderr, ``--json`` figures on stdout."""
    from judgebox.tools import bench as benchmark

    console = Console(stderr=True, width=None if sys.stderr.isatty() else 150)
    with benchmark.CpuMeter() as meter:  # before the judge starts: its slot groups nest in the meter's
        try:
            figures = benchmark.run(args.quick, console, meter)
        except (benchmark.WrongResult, RuntimeError) as exc:
            console.print(f"[red]the benchmark is void: {exc}[/]")
            return 1
    benchmark.show(figures, console)
    if args.json:
        print(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

