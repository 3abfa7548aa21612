"""The ``judgebox`` command as users run it: real subprocesses of the installed entry point, real sandboxes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

JUDGEBOX = str(Path(sys.executable).with_name("judgebox"))
SUM_CPP = '#include <cstdio>\nint main() { int a, b; scanf("%d %d", &a, &b); printf("%d\\n", a + b); }\n'


def judgebox(*args: str, stdin: str = "", timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JUDGEBOX, *args], input=stdin, capture_output=True, text=True, timeout=timeout,
                          check=False)


def test_run_guesses_cpp_from_the_extension(tmp_path: Path) -> None:
    program = tmp_path / "a.cpp"
    program.write_text(SUM_CPP)
    done = judgebox("run", str(program), "--input", "2 40")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "42\n"
    assert "OK exit 0" in done.stderr and "(cpp, compiled" in done.stderr


SUMS = {
    "Sum.java": ("java", "public class Sum { public static void main(String[] a) { java.util.Scanner s = "
                         "new java.util.Scanner(System.in); System.out.println(s.nextInt() + s.nextInt()); } }\n"),
    "sum.js": ("javascript", 'const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(" ").map(Number);\n'
                             "console.log(a + b);\n"),
    "sum.go": ("go", 'package main\nimport "fmt"\n'
                     "func main() { var a, b int; fmt.Scan(&a, &b); fmt.Println(a + b) }\n"),
    "sum.rs": ("rust", "use std::io::Read;\nfn main() { let mut s = String::new(); "
                       "std::io::stdin().read_to_string(&mut s).unwrap(); let v: Vec<i64> = "
                       "s.split_whitespace().map(|x| x.parse().unwrap()).collect();\n"
                       'println!("{}", v[0] + v[1]); }\n'),
    "sum.c": ("c", '#include <stdio.h>\n'
                   'int main(void) { int a, b; scanf("%d %d", &a, &b); printf("%d\\n", a + b); }\n'),
}


@pytest.mark.slow  # about 7 s in all on this busy 2-core machine
@pytest.mark.parametrize("name", list(SUMS))
def test_run_guesses_each_language_from_its_extension(tmp_path: Path, name: str) -> None:
    language, code = SUMS[name]
    program = tmp_path / name
    program.write_text(code)
    done = judgebox("run", str(program), "--input", "20 22")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "42\n"
    assert f"({language}" in done.stderr.splitlines()[-1]


def test_run_plain_python_reports_exit_status_and_output(tmp_path: Path) -> None:
    program = tmp_path / "shout.py"
    program.write_text("import sys\nprint(sys.stdin.read().upper(), end='')\nsys.stderr.write('bye')\n"
                       "raise SystemExit(3)\n")
    given = tmp_path / "in.txt"
    given.write_text("hello\n")
    done = judgebox("run", str(program), "--stdin", str(given))
    assert done.returncode == 1
    assert done.stdout == "HELLO\n"
    assert "bye" in done.stderr and "RE exit 3" in done.stderr and "(python)" in done.stderr
    assert "expected" not in done.stderr  # a plain run compares against nothing


def test_run_reads_standard_input_when_no_input_is_given(tmp_path: Path) -> None:
    program = tmp_path / "echo.py"
    program.write_text("print(input()[::-1])\n")
    done = judgebox("run", str(program), stdin="abc\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "cba\n"


@pytest.mark.slow  # about 4 s in all on this busy 2-core machine
@pytest.mark.parametrize(("code", "flags", "verdict"), [
    ("x = bytearray(1 << 30)\nprint(len(x))\n", ("--memory-mb", "64"), "MLE"),
    ("while True:\n    pass\n", ("--cpu-time", "0.5"), "TLE"),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n", (), "RE signal 11"),
    ("while True:\n    print('y' * 4096)\n", (), "OLE"),
])
def test_run_shows_how_the_run_ended(tmp_path: Path, code: str, flags: tuple[str, ...], verdict: str) -> None:
    program = tmp_path / "p.py"
    program.write_text(code)
    done = judgebox("run", str(program), *flags)
    assert done.returncode == 1
    assert verdict in done.stderr


def test_run_compile_error_is_ce(tmp_path: Path) -> None:
    program = tmp_path / "bad.cpp"
    program.write_text("int main() { return x; }\n")
    done = judgebox("run", str(program))
    assert done.returncode == 1
    assert "CE" in done.stderr and "was not declared in this scope" in done.stderr


def test_run_language_flag_beats_the_extension(tmp_path: Path) -> None:
    program = tmp_path / "prog.txt"
    program.write_text("print(6 * 7)\n")
    done = judgebox("run", str(program), "--language", "python")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "42\n"


def test_run_unknown_extension_without_language_is_a_clear_error(tmp_path: Path) -> None:
    program = tmp_path / "prog.xyz"
    program.write_text("print(1)\n")
    done = judgebox("run", str(program))
    assert done.returncode == 2
    assert "cannot tell the language of 'prog.xyz'" in " ".join(done.stderr.split())
    assert done.stdout == ""


@pytest.mark.parametrize("missing", ["program", "stdin"])
def test_run_a_file_it_cannot_read_is_a_one_line_error(tmp_path: Path, missing: str) -> None:
    program = tmp_path / "a.py"
    if missing == "stdin":
        program.write_text("print(input())\n")
    done = judgebox("run", str(program), *(["--stdin", str(tmp_path / "in.txt")] if missing == "stdin" else []))
    assert done.returncode == 2
    gone = program if missing == "program" else tmp_path / "in.txt"
    assert " ".join(done.stderr.split()) == f"judgebox run: cannot read {gone}: No such file or directory"


def test_run_a_program_that_is_not_utf8_is_a_one_line_error(tmp_path: Path) -> None:
    program = tmp_path / "a.py"
    program.write_bytes(b"print(1)\n\xff\xfe\n")
    done = judgebox("run", str(program))
    assert done.returncode == 2
    assert " ".join(done.stderr.split()) == f"judgebox run: cannot read {program}: not UTF-8 text"


@pytest.mark.slow  # about 11 s in all on this busy 2-core machine
def test_languages_json_has_every_language_with_versions_and_the_isolation_report() -> None:
    from judgebox.languages import LANGUAGES

    done = judgebox("languages", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert set(report) == {"languages", "isolation"}
    by_name = {entry["name"]: entry for entry in report["languages"]}
    assert list(by_name) == [spec.name for spec in LANGUAGES]
    assert by_name["python"]["available"] and by_name["python"]["version"].startswith("Python 3.")
    gpp = subprocess.run(["g++", "-dumpfullversion"], capture_output=True, text=True, check=True).stdout.strip()
    assert gpp in by_name["cpp"]["version"]
    for name, entry in by_name.items():
        assert entry["available"] or entry["reason"], name
        assert entry["version"] or not entry["available"], name
    isolation = report["isolation"]
    assert isolation["ok"] and isolation["layers"]["seccomp"]


@pytest.mark.slow  # about 15 s in all on this busy 2-core machine
def test_languages_table_shows_the_toolchain_column() -> None:
    done = judgebox("languages")
    assert done.returncode == 0, done.stderr
    assert "toolchain" in done.stdout and "available" in done.stdout and "isolation" in done.stdout


@pytest.mark.slow
def test_bench_quick_json_compares_python_and_cpp_against_fresh_processes() -> None:
    done = judgebox("bench", "--quick", "--json", timeout=600)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert set(figures["languages"]) == {"python", "cpp"}
    for language, compared in figures["languages"].items():
        contenders = compared["contenders"]
        ours = contenders["judgebox, 1 submission"]
        assert ours["isolation"] == "full" and ours["latency_n"] > 0 and ours["cases_per_s"] > 0, language
        baseline = contenders[compared["cheapest_baseline"]]
        assert baseline["isolation"] == "none" and baseline["cases_per_s"] > 0, language
        assert compared["speedup"] == pytest.approx(ours["cases_per_s"] / baseline["cases_per_s"])
        if shutil.which("bwrap"):
            assert any(f["isolation"] == "bwrap" for f in contenders.values()), language
    assert "Target: Python's median per-case overhead" in done.stderr
