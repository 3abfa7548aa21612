"""Assert-style tests for compiled and scripting languages (the HumanEval-X form), with positive evidence.

The test code is appended to the program, as the datasets expect, but the pass is the per-case token
copied from fd 4 into fd 3 by code that runs only after the tests returned; an ``exit(0)`` in the
solution, a ``System.exit(0)`` or a ``process.exit(0)`` never reaches it. JavaScript's
``console.assert`` only logs, so it is made to record failures, and a failure withholds the token.
"""

from __future__ import annotations

import re

PASS_NOTE = "asserts"  # what the Python harness writes too: payload line, then the token


def c_family(program: str, tests: str) -> str:
    return (f"{program}\n#define main judgebox_tests_main\n{tests}\n#undef main\n"
            "#include <unistd.h>\n"
            "int main(){ judgebox_tests_main(); char t[64]; ssize_t n = read(4, t, sizeof t);"
            f" if (write(3, \"{PASS_NOTE}\\n\", {len(PASS_NOTE) + 1}) < 0 || n <= 0 || write(3, t, n) != n) return 70;"
            " return 0; }\n")


def java(program: str, tests: str) -> str:
    renamed = re.sub(r"\bpublic\s+class\s+Main\b", "class JudgeboxTests", tests, count=1)
    return (f"{program}\n{renamed}\n"
            "public class Main { public static void main(String[] args) throws Exception {"
            " JudgeboxTests.main(args);"
            " byte[] token = java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(\"/proc/self/fd/4\"));"
            " try (java.io.FileOutputStream out = new java.io.FileOutputStream(\"/proc/self/fd/3\")) {"
            f" out.write(\"{PASS_NOTE}\\n\".getBytes()); out.write(token); }} }} }}\n")


def javascript(program: str, tests: str) -> str:
    return ("const judgeboxFailed = [];\n"
            "console.assert = (ok, ...message) => { if (!ok) { judgeboxFailed.push(message);"
            " console.error('Assertion failed', ...message); } };\n"
            f"{program}\n{tests}\n"
            ";(() => { const fs = require('fs');"
            " if (judgeboxFailed.length) { fs.writeSync(3, 'assertion-failed\\n'); process.exit(1); }"
            f" fs.writeSync(3, '{PASS_NOTE}\\n'); fs.writeSync(3, fs.readFileSync('/proc/self/fd/4')); }})();\n")
