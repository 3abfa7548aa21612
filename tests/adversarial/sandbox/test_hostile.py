"""The hostile battery: each program in tests/adversarial/sandbox/hostile/ attacks the sandbox while an honest
submission runs.

A program's header says what it attacks, which verdicts a correct judge may give it, and which
post-conditions on the host must still hold afterwards (``CHECKS``). Attacks that merely fail print
nothing and the program ends with ``blocked``; an attack that works prints what it got (``LEAKED ...``,
``WROTE ...``), which turns the verdict into WA and fails the test. ``# known-gap:`` marks a weakness
that is known and not fixed yet: the test is then a strict xfail, so fixing it forces the header off.

Other headers: ``# kind:`` stdio (empty stdin, expected ``# output:``, default ``blocked``), assert (the
``# assert:`` lines run after the program) or call (``# call:`` a function with ``# args:``, expecting
``# returns:``, both JSON), or file (stdio in file mode: empty input.txt, ``output.txt`` judged);
``# limits: cpu_time=1 memory_mb=128 ...``; ``# cases: N`` runs the case N times in one submission;
``# repeat: N`` repeats the program's body (below the header) N times;
``# language:`` any judgebox language (default python; C, C++, Java and JavaScript programs write their
headers as ``// name: value``); ``# variants: a b c`` runs the program once per variant, ``{VARIANT}``
replaced.

Every program is also checked on its very slot: an honest probe runs before it and twice
after it (the first run after may be a spare forked before the attack ended), and its verdict, output and
view of the process (cpu affinity, nice, scheduler, I/O priority, every rlimit, whether it can open files,
allocate and exec) must be the same as before, its peak memory within ``PROBE_MEMORY_TOLERANCE``. That is
the contract against slot poisoning (``poison_*``): a run shares its uid with the slot's worker and every
later run is its fork.

Checks beyond the host's: ``verl-score`` (judgebox.verl's default_compute_score gives 0 and no infra
error), ``run-code`` (a real judgebox serve's /run_code says no SandboxError nor CE), ``returned-output``
(each stream a CaseResult returns is at most ``RETURNED_BOUND``).

Placeholders in the programs are filled in by the test: ``{CANARY_PATHS}``, ``{MARKER}``, ``{TCP_PORT}``,
``{UNIX_NAME}``, ``{SLEEPER_TAG}``, ``{JUDGE_DIRS}`` (comma-separated), ``{VARIANT}``. Secrets have the
shape ``jbx-secret-<kind>-<hex>`` so programs can hunt for them generically, but only the test knows their
values.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import judgebox
from judgebox import Case, Limits, Verdict

HOSTILE = Path(__file__).with_name("hostile")
SLOT_UIDS = range(61000, 62000)
BASE_LIMITS = Limits(cpu_time=2, memory_mb=256)
HEADERS = {"attack", "expect", "kind", "assert", "call", "args", "returns", "output", "limits", "untouched", "cases",
           "repeat", "known-gap", "language", "variants"}
# a hostile program's file name ending -> the language its "# language:" header must name
SUFFIXES = {".py": "python", ".c": "c", ".cpp": "cpp", ".java": "java", ".js": "javascript", ".ts": "typescript",
            ".go": "go"}
FENCES = {"python": "python", "c": "c", "cpp": "cpp", "java": "java", "javascript": "javascript",
          "typescript": "typescript", "go": "go"}  # the tag verl's answer extraction looks for
COMMENT = r"(?:#|//)"  # a header line: "# name: value" or, in C-like languages, "// name: value"

# Set at import, before the session's Judge starts its slots: were the environment to leak into the
# sandbox, this is the value that would leak.
ENV_SECRET = os.environ["JUDGEBOX_TEST_SECRET"] = f"jbx-secret-env-{secrets.token_hex(8)}"
CANARY_SECRET = f"jbx-secret-canary-{secrets.token_hex(8)}"
HONEST_SECRET = f"jbx-secret-honest-{secrets.token_hex(8)}"  # in the honest program's code
HIDDEN_SECRET = f"jbx-secret-hidden-{secrets.token_hex(8)}"  # in a hidden assert of an earlier submission
HONEST = f'SECRET = "{HONEST_SECRET}"\nprint(sum(map(int, input().split())))\n'
# The honest probe of a slot's state: what a poisoned worker passes on to every later run. It answers a+b
# on stdout and describes, on stderr, what it sees of its own process and what it could do.
PROBE = r'''
import ctypes, json, os, resource, subprocess, sys
print(sum(map(int, input().split())))
held = [open("/dev/null") for _ in range(32)]
block = bytearray(32 << 20)
libc = ctypes.CDLL(None, use_errno=True)
state = {
    "affinity": sorted(os.sched_getaffinity(0)), "nice": os.getpriority(os.PRIO_PROCESS, 0),
    "scheduler": os.sched_getscheduler(0), "ioprio": libc.syscall(252, 1, 0),  # ioprio_get(IOPRIO_WHO_PROCESS, 0)
    "rlimits": {name: resource.getrlimit(getattr(resource, name)) for name in sorted(dir(resource))
                if name.startswith("RLIMIT_")},
    # empty when the host turns autogrouping off (kernel.sched_autogroup_enabled=0), absent without the feature
    "autogroup": (open("/proc/self/autogroup").read().split() or [None])[-1] if os.path.exists("/proc/self/autogroup")
                 else None,
    "exec": subprocess.run(["/bin/echo", "exec works"], capture_output=True, text=True).stdout.strip(),
}
print(json.dumps(state), file=sys.stderr)
'''
# The same view from a compiled program: the exec path (a lowered open-file limit made it exit 127).
C_PROBE = r'''
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
int main(void) {
    int a, b;
    if (scanf("%d %d", &a, &b) != 2) return 1;
    printf("%d\n", a + b);
    cpu_set_t cpus;
    sched_getaffinity(0, sizeof cpus, &cpus);
    fprintf(stderr, "cpus %d nice %d scheduler %d ioprio %ld\n", CPU_COUNT(&cpus), getpriority(PRIO_PROCESS, 0),
            sched_getscheduler(0), syscall(SYS_ioprio_get, 1, 0));
    for (int r = 0; r < RLIM_NLIMITS; r++) {
        struct rlimit l;
        getrlimit(r, &l);
        fprintf(stderr, "rlimit %d %lld %lld\n", r, (long long) l.rlim_cur, (long long) l.rlim_max);
    }
    char *block = malloc(32 << 20);
    memset(block, 1, 32 << 20);
    fprintf(stderr, "allocated %d\n", block[12345]);
    return 0;
}
'''
PROBES = {"python": PROBE, "c": C_PROBE}
PROBE_CASE = Case.stdio("1 2\n", "3\n")
# The probe's peak memory varies by well under 1 MiB between runs on a healthy slot (the fork shares the
# worker's pages; only the 32 MiB block and the probe's own objects are new). 8 MiB is far above that noise
# and far below the symptoms of a poisoned slot (an address-space limit turns the probe into MLE).
PROBE_MEMORY_TOLERANCE = 8 << 20
CLEAN_SLATE = ("import os\nleft = os.listdir('/tmp') + os.listdir('/dev/shm')\n"
               "left += [t for t in ('shm', 'msg', 'sem') if len(open('/proc/sysvipc/' + t).readlines()) > 1]\n"
               "print(left or 'clean')\n")
RETURNED_BOUND = 1 << 20  # what a CaseResult gives back of stdout and of stderr by default, whatever the run wrote
# the judge's own folders (its venv, its checkout, its package), which a run must not even stat
JUDGE_DIRS = ",".join(dict.fromkeys([sys.prefix, str(Path(__file__).resolve().parents[3]),
                                      os.path.dirname(judgebox.__file__)]))
MARKER_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/root", "/etc", "/usr", "/usr/local/bin", "/work", "/work/main",
                  "/run", "/home", "/opt", "/var/lib")


def parse(path: Path) -> dict[str, list[str]]:
    """The ``# name: value`` (or ``// name: value``) lines at the top of a program; a name may repeat
    (``# assert:``), and a line ``#   more`` (two or more spaces) continues the previous value."""
    headers: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        match = re.fullmatch(COMMENT + r" ([a-z-]+): (.*)", line)
        if match:
            assert match[1] in HEADERS, f"{path.name}: unknown header {match[1]!r}"
            headers.setdefault(match[1], []).append(match[2].strip())
        elif headers and re.fullmatch(COMMENT + r"  +\S.*", line):
            values = headers[list(headers)[-1]]
            values[-1] += " " + line.lstrip("#/").strip()
        else:
            break
    language = headers.setdefault("language", ["python"])[0]
    assert SUFFIXES.get(path.suffix) == language, f"{path.name}: a {path.suffix} file with # language: {language}"
    return headers


def _params() -> list:
    params = []
    for path in sorted(p for p in HOSTILE.iterdir() if p.suffix in SUFFIXES):
        headers = parse(path)
        gap = headers.get("known-gap")
        marks = [pytest.mark.xfail(reason=f"known-gap: {gap[0]}", strict=True, raises=AssertionError)] if gap else []
        name = path.stem if path.suffix == ".py" else path.name
        for variant in headers.get("variants", [""])[0].split() or [""]:
            params.append(pytest.param(path, variant, id=f"{name}[{variant}]" if variant else name, marks=marks))
    return params


@dataclass
class Host:
    """What the host holds during the battery: things the programs must not read, touch or reach."""

    judge: judgebox.Judge  # the session's
    canaries: dict[Path, str]
    sleeper: subprocess.Popen  # its last argument is a tag the programs look for
    tcp: socket.socket  # listening on 127.0.0.1
    unix: socket.socket  # listening on an abstract address
    servers: list = field(default_factory=list)  # a real judgebox serve, started by the first check that needs it

    def server(self):
        if not self.servers:
            from support.server import Server

            self.servers.append(Server("--workers", "1"))
        return self.servers[0]


@pytest.fixture(scope="module")
def host(judge):
    """Canaries (root's home, /var/tmp, the host's /tmp), a sleeper, loopback listeners; and slots primed with
    a secret-bearing program and hidden test, as earlier submissions would have left them."""
    tag = secrets.token_hex(6)
    canaries = {Path(folder, f"jbx-canary-{tag}.txt"): f"{CANARY_SECRET}\n" for folder in ("/root", "/var/tmp", "/tmp")}
    for path, text in canaries.items():
        path.write_text(text)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", f"jbx-sleeper-{tag}"])
    tcp = socket.create_server(("127.0.0.1", 0))
    unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    unix.bind(f"\0jbx-unix-{tag}")
    unix.listen()
    for listener in (tcp, unix):
        listener.setblocking(False)
    prime = f'SECRET = "{HONEST_SECRET}"\nimport time\ntime.sleep(0.3)\n'
    cases = [Case.asserts(f'assert 1 + 1 == 2, "{HIDDEN_SECRET}"')]
    with ThreadPoolExecutor(len(judge._pool.slots)) as pool:  # one submission per slot, all at once
        primed = list(pool.map(lambda _: judge.judge(prime, cases), judge._pool.slots))
    assert all(r.verdict is Verdict.AC for r in primed), primed
    host = Host(judge, canaries, sleeper, tcp, unix)
    yield host
    for server in host.servers:
        server.close()
    sleeper.kill()
    sleeper.wait()
    for thing in (tcp, unix):
        thing.close()
    for path in canaries:
        path.unlink(missing_ok=True)


@dataclass
class Run:
    host: Host
    judge: judgebox.Judge  # the one that ran the hostile program
    output: str  # the hostile program's stdout and stderr
    result: judgebox.JudgeResult
    marker: str
    slot_pids: list[int]  # the slots' worker pids before the run
    code: str  # the hostile program as it ran, and what it ran on
    cases: list[Case]
    language: str
    limits: Limits


def check_canary(run: Run) -> None:
    """The canary files still exist, unchanged, and their secret did not reach the program's output."""
    for path, text in run.host.canaries.items():
        assert path.read_text() == text, f"canary {path} was changed"
    assert CANARY_SECRET not in run.output


def check_host_processes(run: Run) -> None:
    """The host's sleeper lives, and every slot's worker is the same process as before (none died)."""
    assert run.host.sleeper.poll() is None, "the host's sleeper process was killed"
    assert [slot.pid for slot in run.host.judge._pool.slots] == run.slot_pids, "a slot worker died and restarted"
    for pid in run.slot_pids:
        os.kill(pid, 0)


def check_no_leftovers(run: Run) -> None:
    """No process of this judge's slots but the zygotes runs as a slot uid once the runs are over. Only
    descendants of our slot workers count: another judgebox on the machine uses the same uids. The uid
    comes from the status file, as /proc/<pid> itself belongs to root for non-dumpable processes."""
    parents, uids, spares = {}, {}, {}
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            text = status.read_text()
        except OSError:  # it has just exited
            continue
        pid = int(status.parent.name)
        parents[pid] = int(re.search(r"^PPid:\s+(\d+)", text, re.M)[1])
        if re.search(r"^Name:\s+judgebox-(spare|slot)$", text, re.M):  # a spare is "slot" until it renames
            spares.setdefault(parents[pid], []).append(pid)
        uids[pid] = int(re.search(r"^Uid:\s+\d+\s+(\d+)", text, re.M)[1])
    roots = {*run.slot_pids, *(slot.pid for slot in run.judge._pool.slots)}

    def ours(pid: int) -> bool:
        while pid > 1:
            if pid in roots:
                return True
            pid = parents.get(pid, 0)
        return False

    zygotes = {pid for pid, parent in parents.items() if parent in roots}  # they run as the slot uid too
    # each zygote keeps one spare: its next run, forked in advance (a second one would be an impostor)
    expected = zygotes | {pids[0] for parent, pids in spares.items() if parent in zygotes and len(pids) == 1}
    leftovers = [(pid, uid) for pid, uid in uids.items() if uid in SLOT_UIDS and ours(pid) and pid not in expected]
    assert not leftovers, f"processes left behind: {leftovers}"


def check_host_tmp(run: Run) -> None:
    """The marker files the program wrote (to its private /tmp and /dev/shm, or tried elsewhere) are not on the host."""
    found = [p for folder in MARKER_FOLDERS for p in Path(folder).glob(f"{run.marker}*")]
    for path in found:
        path.unlink()
    assert not found, f"marker files on the host: {found}"


def check_judge_env(run: Run) -> None:
    """The test process's environment (inherited by nothing in the sandbox) did not reach the program."""
    assert ENV_SECRET not in run.output


def check_network(run: Run) -> None:
    """Nobody connected to the host's loopback TCP listener or its abstract unix socket."""
    for listener in (run.host.tcp, run.host.unix):
        try:
            listener.accept()[0].close()  # accepting it also keeps the next test from failing for it
        except BlockingIOError:
            continue
        raise AssertionError(f"the program connected to the host's listener {listener.getsockname()!r}")


def check_other_runs(run: Run) -> None:
    """Nothing of earlier submissions (their code, their hidden asserts) reached the program's output."""
    assert HONEST_SECRET not in run.output and HIDDEN_SECRET not in run.output


def check_slot_reusable(run: Run) -> None:
    """The judge that ran the program runs the next one normally, on a clean slate: nothing left in /tmp,
    /dev/shm or System V IPC (the very slot the program ran in)."""
    result = run.judge.judge(CLEAN_SLATE, [Case.stdio("", "clean\n")])
    assert result.verdict is Verdict.AC, f"the next run: {result.verdict} {result.cases[0].message}"


def check_returned_output(run: Run) -> None:
    """What the caller gets back of each stream is bounded by ``RETURNED_BOUND``, below the output limit,
    however much the program wrote (densely or sparsely, itself or through a child after it exited)."""
    for case in run.result.cases:
        sizes = len(case.stdout_raw), len(case.stderr_raw)
        assert max(sizes) <= RETURNED_BOUND, f"{case.verdict}: {sizes[0]} bytes of stdout, {sizes[1]} of stderr"


def check_verl_score(run: Run) -> None:
    """judgebox.verl's default_compute_score, given the program as a model's answer, scores it 0 as the
    program's own failure: never an infrastructure error that a trainer would mask."""
    from judgebox.verl import default_compute_score

    case = run.cases[0]
    if case.kind == "stdio":
        truth = {"inputs": [c.stdin.decode() for c in run.cases], "outputs": [c.expected_output for c in run.cases],
                 "input_mode": case.io}
    elif case.kind == "assert":
        truth = {"assert_case": [c.assert_code for c in run.cases]}
    else:
        truth = {"fn_name": case.fn_name, "inputs": [list(c.args) for c in run.cases],
                 "outputs": [c.expected_value for c in run.cases]}
    answer = f"```{FENCES[run.language]}\n{run.code}\n```"
    scored = default_compute_score("judgebox-hostile", answer, {**truth, "language": run.language})
    assert (scored["score"], scored["infra_error"]) == (0, False), scored
    assert scored["verdict"] not in ("SE", "CE"), scored


def check_run_code(run: Run) -> None:
    """Through a real judgebox serve, /run_code runs the program (empty stdin) as the program's failure:
    never a SandboxError, nor a compile error the program did not have."""
    import httpx

    assert all(case.kind == case.io == "stdio" for case in run.cases), "run-code checks stdio programs only"
    server = run.host.server()
    response = httpx.post(server.url + "/run_code", json={"code": run.code, "language": run.language,
                                                          "run_timeout": run.limits.cpu_time}, timeout=120)
    assert response.status_code == 200, response.text[:2000]
    body = response.json()
    assert body["status"] != "SandboxError", body
    for step in ("compile_result", "run_result"):
        assert (body.get(step) or {}).get("verdict") != "CE", body


CHECKS = {"canary": check_canary, "host-processes": check_host_processes, "no-leftovers": check_no_leftovers,
          "host-tmp": check_host_tmp, "judge-env": check_judge_env, "network": check_network,
          "other-runs": check_other_runs, "slot-reusable": check_slot_reusable, "verl-score": check_verl_score,
          "returned-output": check_returned_output,
          "run-code": check_run_code}


def prepare(path: Path, headers: dict[str, list[str]], host: Host, marker: str,
            variant: str = "") -> tuple[str, list[Case], Limits]:
    """The program's code with its placeholders filled in, its cases and its limits."""
    code = path.read_text()
    if "repeat" in headers:
        lines = code.splitlines(keepends=True)
        head = next(i for i, line in enumerate(lines) if not re.match(COMMENT, line))
        code = "".join(lines[:head]) + "".join(lines[head:]) * int(headers["repeat"][0])
    for name, value in {"CANARY_PATHS": repr([str(p) for p in host.canaries]), "MARKER": marker,
                        "TCP_PORT": str(host.tcp.getsockname()[1]), "UNIX_NAME": host.unix.getsockname()[1:].decode(),
                        "SLEEPER_TAG": host.sleeper.args[-1], "VARIANT": variant, "JUDGE_DIRS": JUDGE_DIRS}.items():
        code = code.replace("{" + name + "}", value)
    limits = {k: (float(v) if k.endswith("time") else int(v))
              for k, v in (item.split("=") for item in " ".join(headers.get("limits", [])).split())}
    kind = headers.get("kind", ["stdio"])[0]
    if kind == "assert":
        case = Case.asserts("\n".join(headers["assert"]))
    elif kind == "call":
        args, returns = (json.loads(headers[name][0]) for name in ("args", "returns"))
        case = Case.call(headers["call"][0], args, returns)
    else:
        assert kind in ("stdio", "file"), f"{path.name}: unknown kind {kind!r}"
        case = Case.stdio("", headers.get("output", ["blocked"])[0] + "\n", io=kind)
    return code, [case] * int(headers.get("cases", ["1"])[0]), BASE_LIMITS.replace(**limits)


def probe(target: judgebox.Judge, limits: Limits) -> dict[str, tuple]:
    """What the honest probes get on the judge's (only) slot: verdict, output, what they saw, peak memory."""
    seen = {}
    for language, code in PROBES.items():
        result = target.judge(code, [PROBE_CASE], language=language, limits=limits)
        case = result.cases[0]
        seen[language] = (case.verdict, case.stdout, case.stderr, case.message or result.message, case.memory_bytes)
    return seen


def check_same_slot(before: dict[str, tuple], target: judgebox.Judge, limits: Limits) -> None:
    """After the hostile program, the honest probe on its very slot gets what it got before it. (The slot may
    have replaced its worker, as it does when it cannot wipe the work folder: what counts is what runs see.)"""
    assert all(seen[0] is Verdict.AC for seen in before.values()), f"the probes before the attack: {before}"
    for attempt in ("first", "second"):
        for language, after in probe(target, limits).items():
            was = before[language]
            assert after[:4] == was[:4], f"the {attempt} {language} probe after it:\n{after[:4]}\nbefore:\n{was[:4]}"
            assert abs(after[4] - was[4]) <= PROBE_MEMORY_TOLERANCE, f"{language} peak memory {was[4]} -> {after[4]}"


@contextmanager
def judge_for(headers: dict[str, list[str]], shared: judgebox.Judge, limits: Limits):
    """A private one-slot judge that has already run the honest probes with these limits (so its cgroup is
    set up as in a long-lived slot), and what they got: every hostile program runs on a slot of its own and
    is followed there by the probes. It shares the session judge's artifact cache, so the C probe is built
    once."""
    with judgebox.Judge(slots=1) as own:
        own._programs.cache = shared._programs.cache
        yield own, probe(own, limits)


@pytest.mark.slow  # the whole battery, each program on a slot of its own with probes before and after: minutes
@pytest.mark.parametrize("path, variant", _params())
def test_hostile_program(path: Path, variant: str, judge, host: Host) -> None:
    """The hostile program gets an expected verdict, the honest one running beside it gets AC, every
    post-condition the program names still holds, and its slot is as it was before."""
    headers = parse(path)
    language = headers["language"][0]
    expected, untouched = set(headers["expect"][0].split()), headers.get("untouched", [""])[0].split()
    assert expected <= {v.value for v in Verdict} and set(untouched) <= set(CHECKS), "a header names nothing known"
    marker = f"jbx-marker-{secrets.token_hex(6)}"
    code, cases, limits = prepare(path, headers, host, marker, variant)
    with judge_for(headers, judge, limits) as (target, before):
        slot_pids = [slot.pid for slot in judge._pool.slots]
        with ThreadPoolExecutor(2) as pool:
            hostile = pool.submit(target.judge, code, cases, language=language, limits=limits)
            time.sleep(0.05)  # the hostile one takes a slot first; the honest one runs beside it
            honest = pool.submit(judge.judge, HONEST, [Case.stdio("20 22\n", "42\n")])
            result, fair = hostile.result(timeout=120), honest.result(timeout=120)
        output = "".join(case.stdout + case.stderr for case in result.cases)
        message = next((case.message for case in result.cases if not case.passed), result.message)
        assert result.verdict.value in expected, f"{result.verdict}: {message}\n{output[-3000:]}"
        assert fair.verdict is Verdict.AC, f"the honest run beside it: {fair.verdict} {fair.cases[0].message}"
        if before is not None:
            check_same_slot(before, target, limits)
        run = Run(host, target, output, result, marker, slot_pids, code, cases, language, limits)
        for name in untouched:
            CHECKS[name](run)
