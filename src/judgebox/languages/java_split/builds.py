"""The sandboxed builds of a Java split case and the language entry's ``split_asserts``: the harness's
runtime classes (once), the program's jar with its description (per program), the tests' jar against
the stubs (per distinct stubs and tests), each cached by content.
"""

from __future__ import annotations

import base64
import io
import os
import threading
import zipfile
from collections.abc import Mapping

from judgebox.languages.artifacts import Artifact, ArtifactCache, Build
from judgebox.languages.build import COMPILE_LIMITS, failed_build
from judgebox.languages.java_split.description import MAX_DESCRIPTION
from judgebox.languages.java_split.jvm import (
    ENV,
    JAVA,
    JAVAC,
    JVM_FLAGS,
    LAUNCHER_MARK,
    LIBRARIES,
    PROGRAM_ARGV,
    SOURCES,
    TESTS_ARGV,
    VERSION,
    ZIP_SCRIPT,
    zip_command,
)
from judgebox.languages.java_split.stubs import imports, stubs
from judgebox.languages.spec import SplitBuild, Toolbox
from judgebox.sandbox.slot import Command, SplitCommand

_runtime_classes: dict[str, dict[str, bytes]] = {}
_runtime_lock = threading.Lock()


def split_asserts(toolbox: Toolbox, program: str, tests: str) -> SplitBuild:
    """The two sides of one Java assert case (both builds cached by content)."""
    program = program.split(LAUNCHER_MARK)[0]
    jar, description = _program_side(toolbox, program)
    if jar.artifact is None:
        return SplitBuild(compile_error=jar.compile_error, system_error=jar.system_error)
    source = stubs(description, tests)
    tests_jar = _tests_side(toolbox, source, imports(program) + tests)
    if tests_jar.artifact is None:
        return SplitBuild(compile_error=tests_jar.compile_error, system_error=tests_jar.system_error)
    data = os.pread(tests_jar.artifact.fd, tests_jar.artifact.size, 0)
    return SplitBuild(SplitCommand(PROGRAM_ARGV, TESTS_ARGV, data, dict(ENV)), jar.artifact)


def _program_side(toolbox: Toolbox, program: str) -> tuple[Build, bytes]:
    cache: ArtifactCache = toolbox.cache
    key = cache.key("java-split-program", VERSION, program)
    fresh: dict[str, bytes] = {}

    def build_jar() -> Build:
        built, description = _build_program(toolbox, program)
        fresh["description"] = description
        return built

    jar = cache.get_or_build(key + ":jar", build_jar)
    if jar.artifact is None:
        return jar, b""

    def keep_description() -> Build:
        description = fresh.get("description")
        if description is None:  # evicted on its own: build again for it
            rebuilt, description = _build_program(toolbox, program)
            if rebuilt.system_error is not None:
                return Build(system_error=rebuilt.system_error)
        return Build(Artifact(description, "java-description"))

    described = cache.get_or_build(key + ":description", keep_description)
    if described.artifact is None:
        return Build(system_error=described.system_error or "the program's description was lost"), b""
    return jar, os.pread(described.artifact.fd, described.artifact.size, 0)


def _runtime(toolbox: Toolbox) -> dict[str, bytes] | Build:
    """The harness's own classes, compiled once (``classes/judgebox/*.class`` -> bytes), or the failed build."""
    key = toolbox.cache.key("java-split-runtime", VERSION)
    sources = {f"judgebox/{name}": text for name, text in SOURCES.items()}
    built = toolbox.cache.get_or_build(key, lambda: _sandboxed_build(
        toolbox, sources, f"cd /tmp && {JAVAC} judgebox/*.java && {zip_command('runtime.jar')}", "runtime.jar")[0])
    if built.artifact is None:
        return Build(system_error=f"the Java harness did not build: {built.compile_error or built.system_error}")
    with _runtime_lock:
        classes = _runtime_classes.get(key)
        if classes is None:
            data = os.pread(built.artifact.fd, built.artifact.size, 0)
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                classes = {f"classes/{name}": archive.read(name) for name in archive.namelist()
                           if name.startswith("judgebox/") and name.endswith(".class")}
            _runtime_classes[key] = classes
    return classes


def _side(classes: dict[str, bytes], tests_side: bool) -> dict[str, bytes]:
    """The runtime classes one side needs (the tests' side has no server; the program's side no stubs' base)."""
    tests_only = ("JudgeboxRt", "JudgeboxStub", "JudgeboxOpaque", "JudgeboxHandle", "JudgeboxProgramException")
    def of_tests(path: str) -> bool:
        return path.rsplit("/", 1)[-1].split("$")[0].removesuffix(".class") in tests_only
    return {path: data for path, data in classes.items()
            if ("JudgeboxServer" not in path) and (tests_side or not of_tests(path))}


def _build_program(toolbox: Toolbox, program: str) -> tuple[Build, bytes]:
    runtime = _runtime(toolbox)
    if isinstance(runtime, Build):
        return runtime, b""
    files: dict[str, str | bytes] = {"Main.java": program, **_side(runtime, tests_side=False),
                                     **{p: d for p, d in runtime.items() if "JudgeboxServer" in p}}
    script = (f"cd /tmp && {JAVAC} -cp classes:{LIBRARIES} Main.java && {zip_command('main.jar')} && {{ " + JAVA +
              " " + " ".join(JVM_FLAGS) + f" -cp classes:{LIBRARIES} judgebox.JudgeboxServer --describe classes"
              " > describe.txt"
              " 2>/dev/null; true; }")
    built, fetched = _sandboxed_build(toolbox, files, script, "main.jar", ("describe.txt",))
    return built, fetched.get("describe.txt", b"")[:MAX_DESCRIPTION]


def _tests_side(toolbox: Toolbox, stub_source: str, tests: str) -> Build:
    key = toolbox.cache.key("java-split-tests", VERSION, stub_source, tests)

    def build() -> Build:
        runtime = _runtime(toolbox)
        if isinstance(runtime, Build):
            return runtime
        files: dict[str, str | bytes] = {"Main.java": "import judgebox.JudgeboxStubs.*;\n" + tests,
                                         "judgebox/JudgeboxStubs.java": stub_source, **_side(runtime, tests_side=True)}
        script = (f"cd /tmp && {JAVAC} -cp classes:{LIBRARIES} Main.java judgebox/JudgeboxStubs.java"
                  f" && {zip_command('tests.jar')}")
        return _sandboxed_build(toolbox, files, script, "tests.jar")[0]

    return toolbox.cache.get_or_build(key, build)


def _sandboxed_build(toolbox: Toolbox, sources: Mapping[str, str | bytes], script: str, artifact: str,
                     extra: tuple[str, ...] = ()) -> tuple[Build, dict[str, bytes]]:
    sources = {**sources, "zip.py": ZIP_SCRIPT}
    files = {path: base64.b64encode(text if isinstance(text, bytes) else text.encode("utf-8", "surrogateescape"))
             .decode() for path, text in sources.items()}
    outcome = toolbox.submit(Command(("/bin/sh", "-c", script), dict(ENV)), b"", COMPILE_LIMITS, files,
                             (artifact, *extra)).result()
    if outcome.system_error is not None:
        return Build(system_error=f"compiling failed in the sandbox: {outcome.system_error}"), {}
    fetched = {name: base64.b64decode(data) for name, data in outcome.files.items()}
    if outcome.clean_exit and artifact in fetched:
        return Build(Artifact(fetched[artifact], "java-split"), compile_time=outcome.cpu_time), fetched
    return failed_build(outcome, COMPILE_LIMITS), {}
