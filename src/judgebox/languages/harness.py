"""Assert-style tests for compiled and scripting languages (the HumanEval-X form), with positive evidence.

For C, C++ and Java the test code is appended to the program, as the datasets expect, but the pass is
the per-case token copied from fd 4 into fd 3 by code that runs only after the tests returned; an
``exit(0)`` in the solution or a ``System.exit(0)`` never reaches it. JavaScript and TypeScript run the
tests in a process of their own (``js_split``): the program never holds the token or the report.
"""

from __future__ import annotations

import re

PASS_NOTE = "asserts"  # what the Python harness writes too: payload line, then the token


def c_family(program: str, tests: str) -> str:
    # The tests' ``int main()`` is renamed. In C++ only ``main`` may flow off its end (an implicit
    # ``return 0``): any other int function doing so is undefined, and g++ -O2 compiles it as unreachable,
    # running into whatever code follows. So in C++ it becomes a lambda (its return type deduced: void,
    # or int for a ``return 0``); C may flow off the end of an int function whose value is not used.
    return (f"{program}\n#ifdef __cplusplus\n"
            "#define main judgebox_tests_unused(); static auto judgebox_tests_main = []\n"
            f"#else\n#define main judgebox_tests_main\n#endif\n{tests}\n"
            "#ifdef __cplusplus\n;\n#endif\n#undef main\n"
            "#include <unistd.h>\n"
            "int main(){ judgebox_tests_main(); char t[64]; ssize_t n = read(4, t, sizeof t);"
            f" if (write(3, \"{PASS_NOTE}\\n\", {len(PASS_NOTE) + 1}) < 0 || n <= 0 || write(3, t, n) != n) return 70;"
            " return 0; }\n")


JAVA_LAUNCHER_MARK = "\n// judgebox: launcher\n"


def java_launcher(entry_class: str) -> str:
    """A class Main for a program whose ``main`` lives in another class (appended, after a marker)."""
    return (f"{JAVA_LAUNCHER_MARK}class Main {{ public static void main(String[] args) throws Exception {{"
            f" {entry_class}.main(args); }} }}\n")


def java(program: str, tests: str) -> str:
    renamed = re.sub(r"\bpublic\s+class\s+Main\b", "class JudgeboxTests", tests, count=1)
    program = program.split(JAVA_LAUNCHER_MARK)[0]  # the tests bring their own entry point: no launcher
    return (f"{program}\n{renamed}\n"
            "public class Main { public static void main(String[] args) throws Exception {"
            " JudgeboxTests.main(args);"
            " byte[] token = java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(\"/proc/self/fd/4\"));"
            " try (java.io.FileOutputStream out = new java.io.FileOutputStream(\"/proc/self/fd/3\")) {"
            f" out.write(\"{PASS_NOTE}\\n\".getBytes()); out.write(token); }} }} }}\n")
