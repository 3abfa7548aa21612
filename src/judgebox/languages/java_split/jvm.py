"""How the two Java sides start: the harness's own Java sources (and the version that keys every build),
the JVMs' command lines, the jar step, and the launcher class Main of a program whose ``main`` lives in
another class.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from judgebox.sandbox.config import RUN_ENV

HARNESS = Path(__file__).parent.parent / "harnesses" / "java" / "judgebox"
SOURCES = {name: (HARNESS / name).read_text(encoding="utf-8")
           for name in ("JudgeboxWire.java", "JudgeboxServer.java", "JudgeboxRt.java")}
VERSION = hashlib.sha256("\0".join(SOURCES[n] for n in sorted(SOURCES)).encode()).hexdigest()

JAVA = "/usr/bin/java"
# The libraries both sides find as a single Java run does (org.javatuples: MultiPL-E's and CRUXEval-X's Java
# import it), from Debian's packages (scripts/setup.sh).
LIBRARIES = "/usr/share/java/javatuples.jar"
JVM_FLAGS = ("--add-opens=java.base/java.io=ALL-UNNAMED",  # the channel's FileDescriptor (JudgeboxWire)
             "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Xshare:auto", "-Xss64m")
JAVAC = ("/usr/bin/javac -encoding UTF-8 -nowarn -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1"
         " -J-XX:-UsePerfData -d classes")
# The program's JVM runs under a shell that, once it ended, sends its status to the tests' side (a frame of
# 'Q' and the status byte), which exits with it (no pass): System.exit(0) leaves the run with status 0 as
# it would in one process. The program may forge or suppress that frame: it decides only a failing exit code.
# -ea as in a single Java run (languages/catalog.py): the program's own asserts are its author's checks.
PROGRAM_ARGV = ("/bin/sh", "-c", " ".join((JAVA, *JVM_FLAGS, "-ea", "-XX:MaxRAMPercentage=50",
                                         "-cp", "/proc/self/fd/5:" + LIBRARIES,
                                         "judgebox.JudgeboxServer")) +
                '; s=$?; printf "\\\\000\\\\000\\\\000\\\\002Q\\\\$(printf %03o $s)" >&7')
TESTS_ARGV = (JAVA, *JVM_FLAGS, "-ea", "-XX:+DisableAttachMechanism", "-XX:MaxRAMPercentage=25",
              "-cp", "/proc/self/fd/6:" + LIBRARIES, "judgebox.JudgeboxRt")
ENV = dict(RUN_ENV)
# a jar of a folder's files, by the sandbox's own Python (a fraction of the jar tool's start-up); the jar
# tool where that Python is not there
ZIP_SCRIPT = """import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_DEFLATED) as z:
    for top, folders, names in os.walk(sys.argv[2]):
        folders.sort()
        for name in sorted(names):
            path = os.path.join(top, name)
            z.write(path, os.path.relpath(path, sys.argv[2]))
"""

LAUNCHER_MARK = "\n// judgebox: launcher\n"  # before a launcher class Main (``launcher``), which the tests replace


def launcher(entry_class: str) -> str:
    """A class Main for a program whose ``main`` lives in another class (appended after a marker): judgebox
    runs class Main. An assert case's tests bring their own Main, and the launcher is cut off for them."""
    return (f"{LAUNCHER_MARK}class Main {{ public static void main(String[] args) throws Exception {{"
            f" {entry_class}.main(args); }} }}\n")


def zip_command(jar: str) -> str:
    return f"{{ /usr/bin/python3 -I zip.py {jar} classes 2>/dev/null || /usr/bin/jar cf {jar} -C classes . ; }}"
