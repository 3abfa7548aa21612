"""The ``judgebox`` command: ``score`` a dataset, ``run`` one program, list ``languages`` and isolation."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .cases import MAX_RECORD_BYTES

console = Console(stderr=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="judgebox", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    score = commands.add_parser(
        "score", help="judge a dataset's known solutions, or a model's samples, and summarise how they score",
        description="Exit status: 0 all records judged; 1 some records were bad (reported on stderr, the rest "
                    "judged); 2 nothing could be judged (a file missing or unreadable, a bad option); "
                    "130 interrupted (what was judged is kept in --out; run again to resume).")
    score.add_argument("data", type=Path, help="problems: JSONL or Parquet (judgebox, verl, HumanEval/evalplus, "
                                               "MBPP, APPS, CodeContests, LiveCodeBench)")
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
    score.add_argument("--report", type=Path, help="also write an HTML report here (one file, readable offline)")
    score.set_defaults(handler=_score)

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
    verl.add_argument("--url", default=None, help="sandbox_fusion_url: judgebox://host:port (several: comma-"
                                                  "joined), http(s)://.../run_code, ray:// (default: the embedded "
                                                  "judge in each reward worker)")
    verl.add_argument("--profile", choices=("judgebox", "verl"), default="judgebox")
    verl.add_argument("--interface", choices=tuple(VERL_INTERFACES), default="naive",
                      help="verl's reward manager: naive (per sample), batch (one call per step), prime (a float "
                           "per sample), reward-loop (the asynchronous reward loop)")
    verl.set_defaults(handler=_verl_config)

    args = parser.parse_args(argv)
    from .errors import JudgeboxError

    try:
        return args.handler(args)
    except JudgeboxError as exc:
        console.print(f"[red]judgebox: {escape(str(exc))}", soft_wrap=True)  # a file name is no markup
        return 2


def _score(args: argparse.Namespace) -> int:
    import tempfile

    from .scoring.command import UNUSABLE, Options, score

    with tempfile.TemporaryDirectory(prefix="judgebox-score-") as scratch:
        # the report is drawn from the results file, the run's stable record: a scratch one without --out
        out = args.out or (Path(scratch) / "results.jsonl" if args.report else None)
        status = score(Options(args.data, args.samples, out, args.preset, args.backend, args.language, args.limit,
                               args.json, args.slots), console)
        if args.report and status != UNUSABLE and out is not None and out.exists():
            _write_report(args, out)
    return status


def _write_report(args: argparse.Namespace, results: Path) -> None:
    from . import report
    from .scoring.engine import CPU_TIME_LIMIT  # what every case ran under, whatever the preset

    title = f"judgebox score {args.data.name} (preset {args.preset})"
    report.write_from_results(args.report, results, title, CPU_TIME_LIMIT)
    console.print(f"report written to {args.report}", markup=False, highlight=False, soft_wrap=True)


def _run(args: argparse.Namespace) -> int:
    """One program, one input, no expected output: the path of SandboxFusion's /run_code plain run."""
    from .classify import classify
    from .judging import Judge
    from .types import Limits
    from .verdicts import Verdict

    spec = _language_of(args.file, args.language)
    if args.stdin is not None:
        stdin = args.stdin.read_bytes()
    elif args.input is not None:
        stdin = args.input.encode()
    else:
        stdin = b"" if sys.stdin.isatty() else sys.stdin.buffer.read()
    limits = Limits(cpu_time=args.cpu_time, memory_mb=args.memory_mb)
    with Judge(slots=1) as judge:
        built, run = judge.programs.run_once(spec, args.file.read_text(), stdin, limits)
        outcome = run.result() if run is not None else None
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
    from . import languages
    from .errors import UnknownLanguage

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

    from .server import ServerSettings, create_app

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    settings = ServerSettings(slots=args.workers, token=args.token, max_body_bytes=args.max_body_mb * 2**20,
                              max_wait=args.max_wait, share_caches=args.share_caches)
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level=args.log_level,
                access_log=False)
    return 0


# --interface: verl's reward manager and the judgebox.verl function it takes
VERL_INTERFACES = {"naive": ("naive", "default_compute_score"), "batch": ("batch", "compute_score_batch"),
                   "prime": ("prime", "prime_compute_score"), "reward-loop": ("naive", "async_compute_score")}


def _verl_config(args: argparse.Namespace) -> int:
    """Hydra overrides for verl's trainer: verl 0.9 loads ``pkg://`` modules, older verl takes a file path."""
    import judgebox.verl

    prefix = "reward.custom_reward_function"
    manager, function = VERL_INTERFACES[args.interface]
    lines = [f"{prefix}.name={function}"]
    if manager != "naive":
        lines.append(f"reward.reward_manager.name={manager}")
    if args.profile != "judgebox":
        lines.append(f"+{prefix}.reward_kwargs.profile={args.profile}")
    if args.url:
        lines.append(f"+{prefix}.reward_kwargs.sandbox_fusion_url={args.url}")
    print("# verl >= 0.9\n" + " \\\n".join([f"{prefix}.path=pkg://judgebox.verl", *lines]))
    print("# older verl: the same with the module's file\n" + f"{prefix}.path={judgebox.verl.__file__}")
    print("# samples the judge failed on (infra_error) kept out of the update: judgebox.verl.mask\n"
          "+ray_kwargs.ray_init.runtime_env.worker_process_setup_hook=judgebox.verl.mask.install")
    return 0


def _languages(args: argparse.Namespace) -> int:
    import asyncio

    from .judging import Judge
    from .sandbox.report import isolation_report
    from .selftest import language_report

    report = isolation_report()
    entries: list[dict[str, object]] = []
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
    """The standard benchmark (:mod:`judgebox.benchmark`): tables on stderr, ``--json`` figures on stdout."""
    from . import benchmark

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

