"""Absolute paths in /run_code's ``files`` and ``fetch_files`` (SandboxFusion's ``/mnt/data/a.txt``, a program
that writes ``/mnt/b``): they exist at those very paths for the run that names them, on a size-capped tmpfs
made for it alone (sandbox/inside/abspaths.py), and are gone for the next run. Against a real ``judgebox
serve`` and, for what one slot must show, a real slot; the attack programs are in
tests/adversarial/sandbox/hostile/abs_paths_*.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import httpx
import pytest

from judgebox import Limits
from judgebox.sandbox.config import SandboxConfig
from judgebox.sandbox.slot import Command, PythonProgram, Slot
from judgebox.verdicts import Verdict

HOSTILE = Path(__file__).resolve().parents[1] / "adversarial" / "sandbox" / "hostile"
LIMITS = Limits(cpu_time=5, memory_mb=256)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _run_code(server, **fields) -> httpx.Response:
    return httpx.post(server.url + "/run_code", json={"language": "python", **fields}, timeout=60)


def test_sandboxfusion_fetch_files_at_an_absolute_path(server):
    """SandboxFusion's own runner test: a.txt in the work folder and /mnt/b, both fetched."""
    response = _run_code(server, code='open("a.txt", "w").write("secret"); open("/mnt/b", "w").write("sauce");',
                         fetch_files=["a.txt", "/mnt/b"])
    body = response.json()
    assert body["status"] == "Success", body
    assert {name: base64.b64decode(data).decode() for name, data in body["files"].items()} == {
        "a.txt": "secret", "/mnt/b": "sauce"}


def test_files_at_absolute_paths_are_there_and_writable(server):
    code = ("import os\nprint(open('/mnt/data/a.txt').read())\nprint(open('/workspace/in/b.txt').read())\n"
            "os.makedirs('/mnt/out/deep')\nopen('/mnt/out/deep/c.txt', 'w').write('made')\n")
    body = _run_code(server, code=code, files={"/mnt/data/a.txt": _b64("alpha"), "/workspace/in/b.txt": _b64("beta")},
                     fetch_files=["/mnt/out/deep/c.txt", "/mnt/data/a.txt", "/mnt/missing"]).json()
    assert body["status"] == "Success", body
    assert body["run_result"]["stdout"] == "alpha\nbeta\n"
    assert {name: base64.b64decode(data).decode() for name, data in body["files"].items()} == {
        "/mnt/out/deep/c.txt": "made", "/mnt/data/a.txt": "alpha"}


def test_an_executed_program_sees_them_too(server):
    body = _run_code(server, language="bash", code="cat /mnt/data/a.txt; echo written > /mnt/out.txt",
                     files={"/mnt/data/a.txt": _b64("from bash\n")}, fetch_files=["/mnt/out.txt"]).json()
    assert body["status"] == "Success", body
    assert body["run_result"]["stdout"] == "from bash\n"
    assert base64.b64decode(body["files"]["/mnt/out.txt"]) == b"written\n"


@pytest.mark.parametrize("path", ["/proc/self/environ", "/sys/x", "/dev/x", "/usr/lib/x", "/etc/passwd",
                                  "/var/cache/judgebox/x", "/mnt/../etc/passwd", "/tmp/../etc/x",
                                  "/mnt", "/", "//", "/mnt\0b", "a/../../b", "", "/bad name/x"])
def test_a_path_no_run_may_use_is_a_validation_error(server, path):
    for fields in ({"files": {path: _b64("x")}}, {"fetch_files": [path]}):
        response = _run_code(server, code="print(1)", **fields)
        assert response.status_code == 422, (fields, response.text)


def test_too_many_top_folders_is_a_validation_error(server):
    response = _run_code(server, code="print(1)", fetch_files=[f"/top{i}/x" for i in range(9)])
    assert response.status_code == 422, response.text
    eight = _run_code(server, code="print(1)", fetch_files=[f"/top{i}/x" for i in range(8)]).json()
    assert eight["status"] == "Success", eight


@pytest.fixture(scope="module")
def slot():
    one = Slot(SandboxConfig())
    yield one
    one.close()


LOOK = PythonProgram("import os\nfor p in ('/mnt', '/mnt/b', '/workspace'):\n    print(p, os.path.lexists(p))\n"
                     "print(os.stat('/').st_nlink)\n")


def test_the_next_run_on_the_slot_sees_nothing_of_them(slot):
    before = slot.run(LOOK, b"", LIMITS)
    assert b"/mnt False" in before.stdout, before
    wrote = slot.run(PythonProgram("open('/mnt/b', 'w').write('x')\nopen('/workspace/c', 'w').write('y')\n"), b"",
                     LIMITS, files={"/workspace/in": _b64("z")}, fetch=("/mnt/b",))
    assert wrote.clean_exit and wrote.files == {"/mnt/b": _b64("x")}, wrote
    for _ in range(2):  # the first run after may be a spare forked before the attack ended
        assert slot.run(LOOK, b"", LIMITS).stdout == before.stdout
    # and an exec'd program's view of the root is the same
    assert slot.run(Command(("/bin/ls", "-a", "/")), b"", LIMITS).stdout == slot.run(
        Command(("/bin/ls", "-a", "/")), b"", LIMITS).stdout


def _hostile(name: str) -> PythonProgram:
    return PythonProgram((HOSTILE / name).read_text().replace("{MARKER}", "jbx-abs-marker"))


def test_undeclared_absolute_paths_stay_unwritable(slot):
    outcome = slot.run(_hostile("abs_paths_undeclared.py"), b"", LIMITS)
    assert outcome.stdout == b"blocked\n", outcome


def test_links_out_of_the_folder_are_not_fetched(slot):
    outcome = slot.run(_hostile("abs_paths_escape.py"), b"", LIMITS,
                       fetch=("/mnt/passwd", "/mnt/environ", "/mnt/root", "/mnt/hard", "/mnt/note"))
    assert outcome.stdout == b"blocked\n", outcome
    assert outcome.files == {"/mnt/note": _b64("only this run\n")}
    assert b"/mnt False" in slot.run(LOOK, b"", LIMITS).stdout


def test_a_huge_file_at_an_absolute_path_is_bounded_by_the_caps(slot):
    outcome = slot.run(_hostile("abs_paths_fill.py"), b"", LIMITS.replace(memory_mb=512), fetch=("/mnt/huge",))
    assert outcome.stdout == b"blocked\n", outcome
    assert outcome.files == {}  # removed by the program; and a file past the returned bound is never fetched
    big = slot.run(PythonProgram("open('/mnt/big', 'wb').write(b'x' * (4 << 20))\n"), b"", LIMITS,
                   fetch=("/mnt/big",))
    assert big.clean_exit and big.files == {}, "a fetched file is at most the returned-output bound"
    assert b"/mnt False" in slot.run(LOOK, b"", LIMITS).stdout


def test_a_top_folder_the_root_has_is_a_system_error_never_the_programs():
    """A configured read path's top folder is in the sandbox's root: the slot refuses to shadow it, and the run
    is SE (the caller's configuration), never a verdict on the program. The read path is a folder of the test's
    own at the host's root, so the test does not depend on where the checkout lives (a checkout under /tmp
    has a top folder that is refused for another reason)."""
    import tempfile

    from judgebox import languages
    from judgebox.judging.classify import classify

    folder = tempfile.mkdtemp(prefix="judgebox-top-", dir="/")
    own = Slot(SandboxConfig(extra_read_paths=(folder,)))
    try:
        outcome = own.run(LOOK, b"", LIMITS, fetch=(f"{folder}/x",))
        assert classify(outcome, languages.get("python")).verdict is Verdict.SE
        assert "sandbox's own folders" in (outcome.system_error or ""), outcome
        assert own.run(LOOK, b"", LIMITS).clean_exit  # the slot runs on
    finally:
        own.close()
        os.rmdir(folder)
