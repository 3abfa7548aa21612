"""judgebox run by an unprivileged user: user-namespace mode, with no uid switch, and no cgroups unless a
cgroup v2 subtree with the memory controller is delegated to it (then it uses that).

The judge runs as uid 65534 under Debian's Python, with judgebox and pyseccomp copied to a folder that
user can read (the checkout and the venv may sit under root's private home).

Languages in this mode (RLIMIT_AS for memory, no cgroups): a correct program in Java, JavaScript,
TypeScript or Go gets AC, or the judge refuses it before anything runs with ``judgebox.LanguageUnavailable``
(a SandboxError) naming the language and why; never RE, TLE or CE for a correct program. /run_code's
handling, run by the same user, says SandboxError with that message instead.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import httpx
import pyseccomp
import pytest

import judgebox

SCRIPT = r'''
import json, judgebox
from judgebox import Case, Limits
report = judgebox.isolation_report()
verdicts = {}
with judgebox.Judge(slots=1) as j:
    def verdict(code, expected="", **limits):
        return str(j.judge(code, [Case.stdio("", expected)], limits=Limits(**limits)).verdict)
    verdicts["honest"] = verdict("print(6 * 7)", "42")
    verdicts["network"] = verdict(
        "import socket\ntry:\n    socket.create_connection(('127.0.0.1', 22), timeout=1); print('open')\n"
        "except OSError:\n    print('blocked')", "blocked")
    verdicts["write_outside"] = verdict(
        "try:\n    open('/var/tmp/judgebox-escape', 'w'); print('wrote')\nexcept OSError:\n    print('blocked')",
        "blocked")
    verdicts["signal_judge"] = verdict(
        "import os\ntry:\n    os.kill(%d, 0); print('reached')\nexcept OSError:\n    print('blocked')" % JUDGE_PID,
        "blocked")
    verdicts["memory_bomb"] = verdict("x = bytearray(2 << 30)", memory_mb=256)
    verdicts["fork_bomb"] = verdict("import os\nwhile True:\n    os.fork()", cpu_time=1, wall_time=3, processes=16)
    verdicts["busy_loop"] = verdict("while True: pass", cpu_time=0.5)
print(json.dumps({"report": report, "verdicts": verdicts}))
'''


A_PLUS_B = {
    "java": "import java.util.*;\npublic class Main { public static void main(String[] a) {"
            " Scanner s = new Scanner(System.in); System.out.println(s.nextInt() + s.nextInt()); } }\n",
    "javascript": "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n"
                  "console.log(a + b);\n",
    "typescript": "const [a, b]: number[] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n"
                  "console.log(a + b);\n",
    "go": 'package main\n\nimport "fmt"\n\nfunc main() {\n\tvar a, b int\n\tfmt.Scan(&a, &b)\n'
          '\tfmt.Println(a + b)\n}\n',
}

LANGUAGES_SCRIPT = r'''
import json, sys
from concurrent.futures import ThreadPoolExecutor
import judgebox
from judgebox import Case, Limits
from judgebox.judging import default_judge

programs = json.loads(sys.argv[1])
# A correct a+b transpiles or compiles in well under a second: a build still going after 15 s is one of the
# failures under test, and waiting out the default 60 s would only make the test slow.
try:
    import judgebox.judging.jobs
    from judgebox.languages import build as building
    quick = building.COMPILE_LIMITS.replace(cpu_time=10, wall_time=15)
    defaults = building.build.__defaults__
    building.build.__defaults__ = tuple(quick if d is building.COMPILE_LIMITS else d for d in defaults)
    judgebox.judging.jobs.COMPILE_LIMITS = quick
except (ImportError, AttributeError, TypeError):  # the build code moved: the test is only slower
    pass


def judged(judge, language, code):
    try:
        result = judge.judge(code, [Case.stdio("20 22\n", "42\n")], language=language, limits=Limits(cpu_time=3))
        case = result.cases[0] if result.cases else None
        return {"verdict": str(result.verdict),
                "message": (result.message or (case.message + " " + case.stderr if case else ""))[:1500]}
    except Exception as exc:
        unavailable = getattr(judgebox, "LanguageUnavailable", None)
        return {"raised": type(exc).__name__, "message": str(exc)[:1500],
                "language_unavailable": unavailable is not None and isinstance(exc, unavailable),
                "sandbox_error": isinstance(exc, judgebox.SandboxError)}


def run_code(language, code):
    # /run_code's own request handling, in process (judgebox.verl's embedded transport), without a server
    body = {"code": code, "language": language, "stdin": "20 22\n", "run_timeout": 3, "compile_timeout": 4}
    reply, error = default_judge().run_code([body])[0]
    return reply if error is None else {"status": "transport error", "message": error}


with judgebox.Judge(slots=2) as j, ThreadPoolExecutor(2 * len(programs)) as pool:
    judges = {language: pool.submit(judged, j, language, code) for language, code in programs.items()}
    served = {language: pool.submit(run_code, language, code) for language, code in programs.items()}
    print(json.dumps({"judge": {k: f.result() for k, f in judges.items()},
                      "run_code": {k: f.result() for k, f in served.items()}}))
'''


@pytest.fixture(scope="module")
def languages_as_nobody(readable_copy) -> dict:
    site = Path(httpx.__file__).resolve().parents[1]  # pydantic, for /run_code's schemas: pure or cp311
    run = subprocess.run([*AS_NOBODY, "/usr/bin/python3", "-c", LANGUAGES_SCRIPT, json.dumps(A_PLUS_B)],
                         cwd=readable_copy, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": f"{readable_copy}:{site}"},
                         capture_output=True, text=True, timeout=240, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.splitlines()[-1])


AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become another user (CI runs as root)")


def refused_properly(language: str, outcome: dict) -> bool:
    """AC, or LanguageUnavailable before anything ran, naming the language and a reason."""
    if outcome.get("verdict") == "AC":
        return True
    message = outcome.get("message", "")
    named = language in message.lower() and len(message) > len(language) + 10  # the language, and why
    return bool(outcome.get("language_unavailable")) and named


@pytest.fixture(scope="module")
def readable_copy():
    folder = Path(tempfile.mkdtemp(prefix="judgebox-unpriv-"))
    shutil.copytree(Path(judgebox.__file__).parent, folder / "judgebox",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(pyseccomp.__file__, folder)
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    yield folder
    shutil.rmtree(folder)


@needs_root
def test_unprivileged_user_gets_user_namespace_isolation(readable_copy):
    script = SCRIPT.replace("JUDGE_PID", str(os.getpid()))
    run = subprocess.run(
        [*AS_NOBODY, "/usr/bin/python3", "-c", script],
        cwd=readable_copy, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(readable_copy)},
        capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.splitlines()[-1])
    report = result["report"]
    assert (report["mode"], report["euid"], report["ok"]) == ("user", 65534, True), report
    assert report["layers"]["user_namespace"] and not report["layers"]["cgroup_memory"]
    verdicts = result["verdicts"]
    assert verdicts.pop("fork_bomb") in ("RE", "TLE")  # fork() fails (RE) or the bomb spins on (TLE)
    assert verdicts == {"honest": "AC", "network": "AC", "write_outside": "AC", "signal_judge": "AC",
                        "memory_bomb": "MLE", "busy_loop": "TLE"}


@needs_root
def test_unprivileged_languages_run_or_are_refused_up_front(languages_as_nobody):
    """As non-root, a correct a+b in Java, JavaScript, TypeScript and Go gets AC, or judge() raises
    LanguageUnavailable (naming the language and why) before running anything: never RE, TLE or CE."""
    outcomes = languages_as_nobody["judge"]
    wrong = {language: outcome for language, outcome in outcomes.items() if not refused_properly(language, outcome)}
    assert wrong == {}


@needs_root
def test_unprivileged_run_code_says_sandbox_error_for_unavailable_languages(languages_as_nobody):
    """/run_code's handling (in process, as judgebox.verl's embedded transport does it) as non-root: a+b
    gives 42, or status SandboxError with a message naming the language; never a failed compile or run."""
    wrong = {}
    for language, body in languages_as_nobody["run_code"].items():
        ran = body["status"] == "Success" and (body.get("run_result") or {}).get("stdout", "").strip() == "42"
        refused = body["status"] == "SandboxError" and language in body.get("message", "").lower()
        if not (ran or refused):
            wrong[language] = {key: body.get(key) for key in ("status", "message", "compile_result", "run_result")}
    assert wrong == {}


DELEGATED_SCRIPT = r'''
import json, sys, judgebox
from judgebox import Case
from judgebox.sandbox.cgroups import detect
found = detect("user")
report = judgebox.isolation_report()
try:
    with judgebox.Judge(slots=1) as j:
        java = str(j.judge(sys.argv[1], [Case.stdio("20 22\n", "42\n")], language="java").verdict)
except judgebox.LanguageUnavailable as exc:
    java = "unavailable: " + str(exc)
print(json.dumps({"group": found.v2_group, "controllers": sorted(found.v2_controllers),
                  "hierarchy": report["layers"]["cgroup_hierarchy"], "memory": report["layers"]["cgroup_memory"],
                  "java": java}))
'''


@pytest.fixture
def delegated_group():
    """A cgroup v2 group handed to uid 65534 as systemd's Delegate=yes does: the group and its
    cgroup.procs, cgroup.subtree_control and cgroup.threads owned by the user."""
    from judgebox.sandbox.cgroups import common, v2

    parent = v2.delegated_group()
    if parent is None:
        pytest.skip("no cgroup2 mount that this process is in")
    group = os.path.join(parent, f"judgebox-test-delegated-{os.getpid()}")
    os.mkdir(group)
    for path in (group, *(os.path.join(group, name) for name in ("cgroup.procs", "cgroup.subtree_control",
                                                                   "cgroup.threads"))):
        os.chown(path, 65534, 65534)
    yield group
    for folder, _, _ in os.walk(group, topdown=False):
        common.remove_group(folder, kill=True)
    assert not os.path.exists(group)


@needs_root
def test_unprivileged_judge_finds_its_delegated_cgroup_v2_subtree(readable_copy, delegated_group):
    """Run inside a group delegated to it, the unprivileged judge finds that group; it uses it when the
    memory controller was delegated too (Java runs), and otherwise keeps the address-space limit and
    refuses Java up front. This machine's cgroup2 has no memory controller (memory is on v1), so here
    the second holds; the first is asserted wherever the group has memory."""
    join = f"echo $$ > {delegated_group}/cgroup.procs && exec \"$@\""
    run = subprocess.run(["/bin/sh", "-c", join, "sh", *AS_NOBODY, "/usr/bin/python3", "-c", DELEGATED_SCRIPT,
                          A_PLUS_B["java"]], cwd=readable_copy,
                         env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(readable_copy)},
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.splitlines()[-1])
    assert result["group"] == delegated_group
    if "memory" in result["controllers"]:
        assert (result["hierarchy"], result["memory"], result["java"]) == ("v2", True, "AC"), result
    else:
        assert (result["hierarchy"], result["memory"]) == ("none", False), result
        assert result["java"].startswith("unavailable: java is not available in user mode"), result
