"""judgebox run by an unprivileged user: user-namespace mode, with no cgroups and no uid switch.

The judge runs as uid 65534 under Debian's Python, with judgebox and pyseccomp copied to a folder that
user can read (the checkout and the venv may sit under root's private home).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

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


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to become another user (CI runs as root)")
def test_unprivileged_user_gets_user_namespace_isolation(readable_copy):
    script = SCRIPT.replace("JUDGE_PID", str(os.getpid()))
    run = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script],
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
