"""open-r1's Codeforces ``input_mode: "file"``: the program reads input.txt and writes output.txt.

The convention (open-r1's Codeforces runner): the case's input is ``input.txt`` in the working folder,
stdin carries nothing, stdout is thrown away, and what is judged is ``output.txt`` after the run; a
program that leaves no ``output.txt`` is judged on an empty output. Every program here runs in the
sandbox, through ``judge()``, ``/judge`` and ``judgebox.verl``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

import judgebox
from judgebox import Case, InvalidCases, Limits, Verdict
from judgebox.verl import compute_score

SPECIAL_JUDGES = Path(__file__).resolve().parents[1] / "support" / "special_judges"

PY_SUM = """
a, b = map(int, open("input.txt").read().split())
with open("output.txt", "w") as out:
    out.write(f"{a + b}\\n")
"""
CPP_SUM = """
#include <cstdio>
int main() {
    int a, b;
    FILE *in = std::fopen("input.txt", "r"), *out = std::fopen("output.txt", "w");
    if (!in || !out || std::fscanf(in, "%d %d", &a, &b) != 2) return 1;
    std::fprintf(out, "%d\\n", a + b);
}
"""
CPP_WRONG = CPP_SUM.replace("a + b", "a - b")
PY_WRONG = PY_SUM.replace("a + b", "a - b")


def sum_problem(**settings) -> dict:
    return {"inputs": ["1 2\n", "5 5\n"], "outputs": ["3\n", "10\n"], "input_mode": "file", **settings}


# -- the setting --------------------------------------------------------------------------------------


def test_file_io_is_for_stdio_cases_only(judge):
    with pytest.raises(InvalidCases):
        Case.stdio("", "", io="pipe")
    with pytest.raises(InvalidCases):
        judge.judge("def f(): return 1", [Case("call", fn_name="f", expected_value=1, io="file")])
    interactive = {**sum_problem(), "interactor": {"language": "python", "code": "print(1)"}}
    with pytest.raises(InvalidCases):
        judge.judge(PY_SUM, interactive)


# -- verdicts, both runners ---------------------------------------------------------------------------

@pytest.mark.parametrize(("language", "code", "verdict"), [
    ("python", PY_SUM, Verdict.AC), ("python", PY_WRONG, Verdict.WA),
    ("cpp", CPP_SUM, Verdict.AC), ("cpp", CPP_WRONG, Verdict.WA),
])
def test_input_txt_and_output_txt(judge, language, code, verdict):
    result = judge.judge(code, sum_problem(), language=language)
    assert [c.verdict for c in result.cases] == [verdict] * 2, [c.message for c in result.cases]
    if verdict is Verdict.AC:  # the judged output is output.txt's, and it is what comes back
        assert [c.stdout for c in result.cases] == ["3\n", "10\n"]


OTHER_LANGUAGES = {
    "java": 'import java.io.*; import java.util.*; public class Main { public static void main(String[] a) '
            'throws Exception { Scanner s = new Scanner(new File("input.txt")); int x = s.nextInt(), y = s.nextInt(); '
            'PrintWriter w = new PrintWriter("output.txt"); w.println(x + y); w.close(); } }',
    "javascript": 'const fs = require("fs");\n'
                  'const [a, b] = fs.readFileSync("input.txt", "utf8").split(/\\s+/).map(Number);\n'
                  'fs.writeFileSync("output.txt", `${a + b}\\n`);',
    "go": 'package main\nimport ("fmt"; "os")\nfunc main() { f, _ := os.Open("input.txt"); var a, b int; '
          'fmt.Fscan(f, &a, &b); g, _ := os.Create("output.txt"); fmt.Fprintln(g, a+b); g.Close() }',
    "bash": "read a b < input.txt; echo $((a + b)) > output.txt",
    "pypy": PY_SUM,
}


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
@pytest.mark.parametrize("language", list(OTHER_LANGUAGES))
def test_every_language_finds_input_txt_in_its_working_folder(judge, language):
    result = judge.judge(OTHER_LANGUAGES[language], sum_problem(), language=language)
    assert [c.verdict for c in result.cases] == [Verdict.AC] * 2, [c.message for c in result.cases]


@pytest.mark.parametrize(("language", "code"), [
    ("python", "a, b = map(int, open('input.txt').read().split())\nprint(a + b)"),
    ("cpp", "#include <cstdio>\nint main(){int a,b;std::FILE*f=std::fopen(\"input.txt\",\"r\");"
            "std::fscanf(f,\"%d %d\",&a,&b);std::printf(\"%d\\n\",a+b);}"),
    ("python", "pass"),
])
def test_stdout_is_not_the_output_and_no_output_txt_is_an_empty_output(judge, language, code):
    """open-r1 sends a file-mode program's stdout nowhere: the right answer printed is judged as no output."""
    result = judge.judge(code, sum_problem(), language=language)
    assert [c.verdict for c in result.cases] == [Verdict.WA] * 2, [c.message for c in result.cases]
    assert [c.stdout for c in result.cases] == ["", ""]
    assert all("output.txt is missing or empty" in c.message for c in result.cases), [c.message for c in result.cases]
    empty = {"inputs": ["1 2\n"], "outputs": [""], "input_mode": "file", "checker": "exact"}
    assert judge.judge(code, empty, language=language).verdict is Verdict.AC  # nothing expected, nothing left


def test_stdin_is_empty_in_file_mode(judge):
    code = "import sys\nn = len(sys.stdin.buffer.read())\nopen('output.txt', 'w').write(str(n))\nprint(n)"
    assert judge.judge(code, {"inputs": ["1 2\n"], "outputs": ["0"], "input_mode": "file"}).verdict is Verdict.AC
    assert judge.judge(code, {"inputs": ["1 2\n"], "outputs": ["4"]}).verdict is Verdict.AC  # stdio: stdin has it


@pytest.mark.parametrize(("language", "code"), [
    ("python", "block = 'x' * (1 << 20)\nwith open('output.txt', 'w') as f:\n    for _ in range(3):\n"
               "        f.write(block)\n"),
    ("cpp", "#include <cstdio>\n#include <vector>\nint main(){std::vector<char> b(1<<20,'x');"
            "std::FILE*f=std::fopen(\"output.txt\",\"w\");for(int i=0;i<3;i++)std::fwrite(b.data(),1,b.size(),f);}"),
])
def test_an_output_txt_over_the_output_cap_is_ole(judge, language, code):
    """Bounded by the output cap as stdout is (not by the smaller returned bound: 2 MiB here)."""
    limits = Limits(output_bytes=2 << 20, returned_output_bytes=4096)
    result = judge.judge(code, sum_problem(), language=language, limits=limits)
    assert [c.verdict for c in result.cases] == [Verdict.OLE] * 2, [c.message for c in result.cases]


def test_an_output_txt_past_the_returned_bound_is_checked_whole(judge):
    """1 MiB of answer under a 4 KiB returned bound: checked in full (AC), returned cut and flagged."""
    code = "n = len(open('input.txt').read().split())\nopen('output.txt', 'w').write('7\\n' * n)"
    data = {"inputs": ["1 " * (512 * 1024)], "outputs": ["7\n" * (512 * 1024)], "input_mode": "file"}
    result = judge.judge(code, data, limits=Limits(returned_output_bytes=4096))
    case = result.cases[0]
    assert case.verdict is Verdict.AC, case.message
    assert case.stdout_length == 1 << 20 and case.stdout_truncated and len(case.stdout_raw) == 4096


@pytest.mark.parametrize("make", [
    "open('answer', 'w').write('3\\n10\\n'.split()[0 if open('input.txt').read() == '1 2\\n' else 1] + '\\n')\n"
    "os.symlink('answer', 'output.txt')",
    "os.symlink(os.path.abspath('answer_elsewhere'), 'output.txt')\n"
    "a, b = map(int, open('input.txt').read().split())\nopen('answer_elsewhere', 'w').write(f'{a + b}\\n')",
    "os.symlink('/etc/passwd', 'output.txt')",
    "os.mkfifo('output.txt')",
    "os.mkdir('output.txt')",
])
def test_an_output_txt_that_is_not_a_regular_file_is_no_output(judge, make):
    """A link is never followed (it could name any file the judge can read; here the right answer), nor
    a FIFO opened for reading (it would wait for a writer that is dead): the program left no output."""
    result = judge.judge("import os\n" + make, sum_problem())
    assert [c.verdict for c in result.cases] == [Verdict.WA] * 2, [c.message for c in result.cases]
    assert [c.stdout for c in result.cases] == ["", ""]


def test_a_checker_program_gets_output_txt_as_the_output(judge):
    checker = (SPECIAL_JUDGES / "sum_checker.py").read_text()
    assert judge.judge(PY_SUM, sum_problem(generated_checker=checker)).verdict is Verdict.AC
    assert judge.judge(PY_WRONG, sum_problem(generated_checker=checker)).verdict is Verdict.WA
    assert judge.judge("print(3)", sum_problem(generated_checker=checker)).verdict is Verdict.WA


def test_the_next_run_on_the_slot_sees_none_of_the_files():
    """input.txt and output.txt are the run's: the work folder is wiped before the next one."""
    stdio_look = "import os\nprint(sorted(os.listdir('.')))"
    file_look = "import os\nseen = sorted(os.listdir('.'))\nopen('output.txt', 'w').write(str(seen))"
    with judgebox.Judge(slots=1) as alone:
        assert alone.judge(PY_SUM, sum_problem()).verdict is Verdict.AC
        assert alone.judge(stdio_look, [Case.stdio("", "[]\n")], checker="exact").verdict is Verdict.AC
        assert alone.judge(PY_SUM, sum_problem()).verdict is Verdict.AC
        seen = alone.judge(file_look, [Case.stdio("1\n", "['input.txt']", io="file")] * 2, checker="exact")
    assert [c.verdict for c in seen.cases] == [Verdict.AC] * 2, [c.stdout for c in seen.cases]


# -- the entry points ---------------------------------------------------------------------------------

def test_judge_endpoint_takes_file_mode_both_ways(server):
    for body in ({"code": PY_SUM, "test_cases": sum_problem()},
                 {"code": CPP_SUM, "language": "cpp", "cases": [
                     {"stdin": "1 2\n", "expected_output": "3\n", "io": "file"},
                     {"stdin": "5 5\n", "expected_output": "10\n", "io": "file"}]}):
        response = httpx.post(server.url + "/judge", json=body, timeout=120)
        assert response.status_code == 200, response.text
        assert response.json()["verdict"] == "AC", response.json()
    wrong = httpx.post(server.url + "/judge", json={"code": "print(3)", "test_cases": sum_problem()}, timeout=120)
    assert wrong.json()["verdict"] == "WA", wrong.json()
    refused = httpx.post(server.url + "/judge", timeout=60, json={
        "code": "def f(): return 1", "cases": [{"kind": "call", "fn_name": "f", "io": "file"}]})
    assert refused.status_code == 422, refused.text


def test_verl_profile_judgebox_judges_it_and_profile_verl_refuses_it():
    completion = f"```python\n{PY_SUM}\n```"
    score, metadata = compute_score(None, None, None, completion, json.dumps(sum_problem()))
    assert score == 1.0, metadata
    score, metadata = compute_score(None, None, None, completion, sum_problem(), profile="verl")
    assert score == 0.0 and "input_mode" in metadata[0]["error"], metadata


# -- what it costs the judge --------------------------------------------------------------------------

MEASURE_FILE_MODE = r'''
import gc, json, re, sys
import judgebox
from judgebox import Case, Limits

cap = int(sys.argv[1])
flood = ("import os\nos.write(1, b'y' * (%d - 4096))\n"
         "with open('output.txt', 'wb') as f:\n    f.write(b'x' * (%d - 4096))\n" % (cap, cap))
sparse = "import os\nos.ftruncate(1, 60 << 20)\nos.truncate(open('output.txt', 'wb').name, 60 << 20)\n"


def status(key):
    return int(re.search(key + r":\s+(\d+) kB", open("/proc/self/status").read())[1]) * 1024


report = {}
with judgebox.Judge(slots=1) as judge:
    limits = Limits(cpu_time=2, output_bytes=cap)
    for _ in range(2):
        judge.judge("open('output.txt', 'w').write('ok')", [Case.stdio("", "ok", io="file")] * 4, limits=limits)
    for name, code in (("flood", flood), ("sparse", sparse)):
        gc.collect()
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        base = status("VmRSS")
        result = judge.judge(code, [Case.stdio("", "ok\n", io="file")] * 4, limits=limits)
        report[name] = {"grew": status("VmHWM") - base, "verdicts": [str(c.verdict) for c in result.cases]}
        del result
print(json.dumps(report))
'''


def test_file_mode_costs_the_judge_less_than_three_output_caps():
    """output.txt near the cap beside a stdout near the cap, or both sparse and far past it: the judge's
    peak stays below 3x the cap (plus the returned bound kept per finished case), as for stdout alone."""
    cap, returned = 4 << 20, 1 << 20
    env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "131072"}  # freed buffers leave the RSS (see test_judge_memory)
    run = subprocess.run([sys.executable, "-c", MEASURE_FILE_MODE, str(cap)], capture_output=True, text=True,
                         timeout=300, check=False, env=env)
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads(run.stdout.splitlines()[-1])
    assert report["flood"]["verdicts"] == ["WA"] * 4, report
    assert report["sparse"]["verdicts"] == ["OLE"] * 4, report
    for name, measured in report.items():
        assert measured["grew"] < 3 * cap + 4 * 2 * returned, f"{name}: {measured['grew'] / (1 << 20):.1f} MiB"


def test_verl_through_servers(server):
    """judgebox:// sends the cases' io to /judge; a plain SandboxFusion /run_code server, which judges stdout
    and fetches files only up to its returned bound, is refused with the reason, never scored wrong."""
    from support.proxy import Proxy

    completion = f"```python\n{PY_SUM}\n```"
    score, metadata = compute_score(f"judgebox://127.0.0.1:{server.port}", None, None, completion, sum_problem())
    assert score == 1.0, metadata
    with Proxy(server.url, forward={"/run_code"}) as plain:
        score, metadata = compute_score(plain.url + "/run_code", None, None, completion, sum_problem())
    assert score == 0.0 and "input_mode" in json.dumps(metadata), metadata
