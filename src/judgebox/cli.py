"""The ``judgebox`` command: ``score`` a dataset, ``run`` one program, list ``languages`` and isolation."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

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
                                                          "judgebox://host:port or http(s)://host:port/run_code")
    score.add_argument("--language", help="judge only the solutions in this language")
    score.add_argument("--limit", type=int, help="only the first N problems")
    score.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    score.add_argument("--slots", type=int, default=None, help="sandbox slots (default: one per core)")
    score.set_defaults(handler=_score)

    run = commands.add_parser("run", help="run one program on one input in the sandbox")
    run.add_argument("file", type=Path)
    run.add_argument("--stdin", type=Path)
    run.add_argument("--language", default="python")
    run.add_argument("--cpu-time", type=float, default=5.0)
    run.set_defaults(handler=_run)

    serve = commands.add_parser("serve", help="run the HTTP service (SandboxFusion's /run_code, /judge, ...)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    serve.add_argument("--port", type=int, default=8080)
    serve.add_argument("--workers", type=int, default=None, help="sandbox slots (default: one per core)")
    serve.add_argument("--token", default=os.environ.get("JUDGEBOX_TOKEN"),
                       help="bearer token required on every endpoint but the health checks (env JUDGEBOX_TOKEN)")
    serve.add_argument("--max-body-mb", type=int, default=64, help="largest request body accepted (413 beyond)")
    serve.add_argument("--max-wait", type=float, default=30.0, help="seconds a request may queue before a 504")
    serve.add_argument("--log-level", default="info")
    serve.set_defaults(handler=_serve)

    languages = commands.add_parser("languages", help="languages and the isolation active on this machine")
    languages.set_defaults(handler=_languages)

    verl = commands.add_parser("verl-config", help="the verl config lines that make judgebox its code reward")
    verl.add_argument("--url", default=None, help="sandbox_fusion_url: judgebox://host:port, http(s)://.../run_code "
                                                  "(default: the embedded judge in each reward worker)")
    verl.add_argument("--profile", choices=("judgebox", "verl"), default="judgebox")
    verl.set_defaults(handler=_verl_config)

    args = parser.parse_args(argv)
    from .errors import JudgeboxError

    try:
        return args.handler(args)
    except JudgeboxError as exc:
        console.print(f"[red]judgebox: {exc}")
        return 2


def _score(args: argparse.Namespace) -> int:
    from .scoring.command import Options, score

    return score(Options(args.data, args.samples, args.out, args.preset, args.backend, args.language, args.limit,
                         args.json, args.slots), console)


def _run(args: argparse.Namespace) -> int:
    from .judging import Judge
    from .types import Case, Limits

    stdin = args.stdin.read_bytes() if args.stdin else sys.stdin.buffer.read() if not sys.stdin.isatty() else b""
    with Judge(slots=1) as judge:
        result = judge.judge(args.file.read_text(), [Case.stdio(stdin, "")], args.language,
                             Limits(cpu_time=args.cpu_time))
    case = result.cases[0] if result.cases else None
    if case is not None:
        sys.stdout.buffer.write(case.stdout_raw)
        sys.stderr.buffer.write(case.stderr_raw)
        console.print(f"[dim]exit {case.exit_code} signal {case.signal} cpu {case.cpu_time * 1000:.1f} ms "
                      f"wall {case.wall_time * 1000:.1f} ms memory {case.memory_bytes / 2**20:.1f} MiB "
                      f"{case.message}")
    else:
        console.print(f"[red]{result.verdict}: {result.message}")
    return 0 if case is not None and case.exit_code == 0 else 1


def _serve(args: argparse.Namespace) -> int:
    import logging

    import uvicorn

    from .server import ServerSettings, create_app

    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    settings = ServerSettings(slots=args.workers, token=args.token, max_body_bytes=args.max_body_mb * 2**20,
                              max_wait=args.max_wait)
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level=args.log_level,
                access_log=False)
    return 0


def _verl_config(args: argparse.Namespace) -> int:
    """Hydra overrides for verl's trainer: verl 0.9 loads ``pkg://`` modules, older verl takes a file path."""
    import judgebox.verl

    prefix = "reward.custom_reward_function"
    lines = [f"{prefix}.name=default_compute_score"]
    if args.profile != "judgebox":
        lines.append(f"+{prefix}.reward_kwargs.profile={args.profile}")
    if args.url:
        lines.append(f"+{prefix}.reward_kwargs.sandbox_fusion_url={args.url}")
    print("# verl >= 0.9\n" + " \\\n".join([f"{prefix}.path=pkg://judgebox.verl", *lines]))
    print("# older verl: the same with the module's file\n" + f"{prefix}.path={judgebox.verl.__file__}")
    return 0


def _languages(args: argparse.Namespace) -> int:
    import asyncio

    from .judging import Judge
    from .sandbox.report import isolation_report
    from .selftest import language_report

    report = isolation_report()
    out = Console()
    if report["ok"]:
        with Judge() as judge:
            entries = asyncio.run(language_report(judge))
        table = Table(title="languages (each self-tested in the sandbox)")
        for column in ("language", "aliases", "what", "status"):
            table.add_column(column)
        for entry in entries:
            status = "[green]available" if entry["available"] else f"[red]unavailable: {entry['reason']}"
            libraries = ", ".join(f"{name} {version or '[red]missing[/red]'}"
                                  for name, version in entry.get("libraries", {}).items())
            what = str(entry["description"]) + (f"\nlibraries: {libraries}" if libraries else "")
            table.add_row(str(entry["name"]), ", ".join(entry["aliases"]), what, status)
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


if __name__ == "__main__":
    sys.exit(main())

