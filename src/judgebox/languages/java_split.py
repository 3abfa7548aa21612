"""Java assert cases (the HumanEval-X form) with the program and the tests in two JVMs.

Run in one JVM, a program can read the pass token at /proc/self/fd/4 and write the pass itself, call
``System.exit(0)`` before the tests end, or tamper with what the tests use (a static initialiser, an
``equals`` that always agrees, a ``List`` subclass). Here:

- **the program's side** (S) is the program's classes plus ``harnesses/java/judgebox/JudgeboxServer.java``,
  compiled once per program into one jar (cached by content). In the same sandboxed build the server
  describes the program's classes (``--describe``: their constructors and methods with generic types);
  the program may print anything there instead, so every line is checked here and only names and types
  of a strict grammar become stubs (see ``stubs``). At run time S answers the tests' requests over the
  channel (fd 7) by reflection: construct, call, and equals/hashCode/toString of its own objects.
- **the tests' side** (T) is the tests compiled against generated stubs (``JudgeboxStubs``: the program's
  class names and signatures, each member forwarding over the channel) plus ``JudgeboxRt.java`` (the
  entry point and the channel) and ``JudgeboxWire.java`` (the codec, shared by both sides), built per
  distinct (stubs, tests) and passed as the tests' fd 6. No program class is in T's jar.
- values cross as data of a closed set (null, boxed primitives, String, BigInteger, BigDecimal, arrays,
  lists, sets, maps, Optional), rebuilt by the receiving side's own code into JDK classes chosen by the
  declared type; any other object stays in S behind a handle (a stub in T whose ``equals`` is the
  program's only against another of the program's objects). An exception of the program reaches the
  tests as an ordinary RuntimeException with its name and message.
- the stubs are nested in ``judgebox.JudgeboxStubs`` and imported on demand, so a program class named like
  a JDK class the tests use (``Arrays``, ``String``, ``AssertionError``) makes that name ambiguous (a
  compile error), never the tests' ``Arrays``.
- T runs with ``-ea`` and writes the pass ("asserts" and the token) only after the tests' ``main``
  returned; anything thrown is "assertion-failed" and exit 1. When the program's JVM ends while the tests
  wait on it (``System.exit``, ``Runtime.halt``, a crash), its status is the run's, as in one JVM, and
  nothing passes.

Known differences from one JVM: arguments cross by value (a program that mutates an argument does not
change the tests' copy; an immutable list the tests pass is a mutable copy in S), the program's checked
exceptions are not declared on the stubs, lambdas cannot be passed to the program, public fields of
the program's classes are not offered, names outside ASCII identifiers get no stub, and strings from
the program are interned (``==`` against a literal holds whenever the text is equal).
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import threading
import zipfile
from pathlib import Path

from ..sandbox.config import RUN_ENV
from ..sandbox.slot import Command, SplitCommand
from .artifacts import Artifact, ArtifactCache, Build
from .build import COMPILE_LIMITS, failed_build
from .split import SplitBuild, Toolbox

HARNESS = Path(__file__).with_name("harnesses") / "java" / "judgebox"
SOURCES = {name: (HARNESS / name).read_text(encoding="utf-8")
           for name in ("JudgeboxWire.java", "JudgeboxServer.java", "JudgeboxRt.java")}
VERSION = hashlib.sha256("\0".join(SOURCES[n] for n in sorted(SOURCES)).encode()).hexdigest()

JAVA = "/usr/bin/java"
JVM_FLAGS = ("--add-opens=java.base/java.io=ALL-UNNAMED",  # the channel's FileDescriptor (JudgeboxWire)
             "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Xshare:auto", "-Xss64m")
JAVAC = ("/usr/bin/javac -encoding UTF-8 -nowarn -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1"
         " -J-XX:-UsePerfData -d classes")
# The program's JVM runs under a shell that, once it ended, sends its status to the tests' side (a frame of
# 'Q' and the status byte), which exits with it (no pass): System.exit(0) leaves the run with status 0 as
# it would in one process. The program may forge or suppress that frame: it decides only a failing exit code.
PROGRAM_ARGV = ("/bin/sh", "-c", " ".join((JAVA, *JVM_FLAGS, "-XX:MaxRAMPercentage=50", "-cp", "/proc/self/fd/5",
                                         "judgebox.JudgeboxServer")) +
                '; s=$?; printf "\\\\000\\\\000\\\\000\\\\002Q\\\\$(printf %03o $s)" >&7')
TESTS_ARGV = (JAVA, *JVM_FLAGS, "-ea", "-XX:+DisableAttachMechanism", "-XX:MaxRAMPercentage=25",
              "-cp", "/proc/self/fd/6", "judgebox.JudgeboxRt")
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


def launcher(entry_class: str) -> str:
    """A class Main for a program whose ``main`` lives in another class (appended after a marker): judgebox
    runs class Main. An assert case's tests bring their own Main, and the launcher is cut off for them."""
    return (f"{LAUNCHER_MARK}class Main {{ public static void main(String[] args) throws Exception {{"
            f" {entry_class}.main(args); }} }}\n")


def _zip(jar: str) -> str:
    return f"{{ /usr/bin/python3 -I zip.py {jar} classes 2>/dev/null || /usr/bin/jar cf {jar} -C classes . ; }}"


_runtime_classes: dict[str, dict[str, bytes]] = {}
_runtime_lock = threading.Lock()

LAUNCHER_MARK = "\n// judgebox: launcher\n"  # before a launcher class Main (``launcher``), which the tests replace
MAX_DESCRIPTION = 1 << 20
MAX_CLASSES = 500
MAX_MEMBERS = 2000
MAX_TYPE_CHARS = 2000

KEYWORDS = frozenset("""abstract assert boolean break byte case catch char class const continue default do double else
enum extends final finally float for goto if implements import instanceof int interface long native new package
private protected public return short static strictfp super switch synchronized this throw throws transient try void
volatile while true false null var record yield sealed permits non-sealed _""".split())
PRIMITIVES = frozenset("boolean byte short char int long float double".split())
# simple names a stub never takes: they would obscure the packages or the harness's own classes in T
RESERVED = frozenset({"java", "javax", "jdk", "sun", "com", "org", "judgebox"})
OBJECT_METHODS = frozenset({"equals", "hashCode", "toString", "getClass", "notify", "notifyAll", "wait",
                            "finalize", "clone"})
STATIC, VARARGS, PRIVATE = 0x8, 0x80, 0x2
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_BINARY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\$[A-Za-z_][A-Za-z0-9_]*)*")
_TOKEN = re.compile(r"\s*(?:(@[A-Za-z0-9_$]+)|([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)|(\[\])|([<>,?&]))")
_IMPORT = re.compile(r"^[ \t]*import[ \t]+(java(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(\.\*)?[ \t]*;[ \t]*$", re.M)
_TESTS_CLASSES = re.compile(r"\b(?:class|interface|enum|record)\s+([A-Za-z_]\w*)")


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


def imports(program: str) -> str:
    """The program's imports of ``java.*`` packages and classes, which the tests (appended to the program in
    the dataset's form) rely on; only that strict form is carried over into the tests' source."""
    found = []
    for match in _IMPORT.finditer(program):
        name = match.group(1)
        if not any(segment in KEYWORDS for segment in name.split(".")) and len(found) < 100:
            found.append(f"import {name}{match.group(2) or ''};\n")
    return "".join(dict.fromkeys(found))


# -- the builds ------------------------------------------------------------------------------------------

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
        toolbox, sources, f"cd /tmp && {JAVAC} judgebox/*.java && {_zip('runtime.jar')}", "runtime.jar")[0])
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
    files = {"Main.java": program, **_side(runtime, tests_side=False),
             **{p: d for p, d in runtime.items() if "JudgeboxServer" in p}}
    script = (f"cd /tmp && {JAVAC} -cp classes Main.java && {_zip('main.jar')} && {{ " + JAVA + " " +
              " ".join(JVM_FLAGS) + " -cp classes judgebox.JudgeboxServer --describe classes > describe.txt"
              " 2>/dev/null; true; }")
    built, fetched = _sandboxed_build(toolbox, files, script, "main.jar", ("describe.txt",))
    return built, fetched.get("describe.txt", b"")[:MAX_DESCRIPTION]


def _tests_side(toolbox: Toolbox, stub_source: str, tests: str) -> Build:
    key = toolbox.cache.key("java-split-tests", VERSION, stub_source, tests)

    def build() -> Build:
        runtime = _runtime(toolbox)
        if isinstance(runtime, Build):
            return runtime
        files = {"Main.java": "import judgebox.JudgeboxStubs.*;\n" + tests,
                 "judgebox/JudgeboxStubs.java": stub_source, **_side(runtime, tests_side=True)}
        script = f"cd /tmp && {JAVAC} -cp classes Main.java judgebox/JudgeboxStubs.java && {_zip('tests.jar')}"
        return _sandboxed_build(toolbox, files, script, "tests.jar")[0]

    return toolbox.cache.get_or_build(key, build)


def _sandboxed_build(toolbox: Toolbox, sources: dict[str, str | bytes], script: str, artifact: str,
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


# -- the stubs -------------------------------------------------------------------------------------------

class _Skip(Exception):
    """A member (or class) the stubs leave out: a name or type outside the grammar, or a class without a stub."""


class _Class:
    def __init__(self, name: str, modifiers: int, kind: str, superclass: str | None, type_params: str) -> None:
        self.name, self.modifiers, self.kind, self.superclass = name, modifiers, kind, superclass
        self.type_params = type_params
        self.constructors: list[tuple[int, str, list[str]]] = []
        self.methods: list[tuple[int, str, str, str, list[str]]] = []
        self.nested: list[_Class] = []

    @property
    def simple(self) -> str:
        return self.name.rsplit("$", 1)[-1]

    @property
    def reference(self) -> str:  # how stub code names its stub
        return "JudgeboxStubs." + self.name.replace("$", ".")


def _int(text: str) -> int:
    if not re.fullmatch(r"-?[0-9]{1,10}", text):
        raise _Skip("not a number")
    return int(text)


def parse_description(description: bytes) -> dict[str, _Class]:
    """The program's classes as its describe step printed them; lines outside the format are dropped."""
    classes: dict[str, _Class] = {}
    current: _Class | None = None
    members = 0
    for raw in description.decode("utf-8", "replace").split("\n"):
        fields = raw.split("\t")
        try:
            if fields[0] == "C" and len(fields) == 6 and len(classes) < MAX_CLASSES:
                current = None
                name = fields[1]
                if not _BINARY.fullmatch(name) or name in classes:
                    raise _Skip(name)
                segments = name.split("$")
                if any(s in KEYWORDS or s in RESERVED or s.startswith("Judgebox") for s in segments):
                    raise _Skip(name)
                if len(set(segments)) != len(segments):  # a nested class named like an enclosing one
                    raise _Skip(name)
                if fields[3] not in ("c", "i", "e", "inner"):
                    raise _Skip(fields[3])
                superclass = None if fields[4] == "-" else fields[4]
                if superclass is not None and not _BINARY.fullmatch(superclass):
                    raise _Skip(superclass)
                current = _Class(name, _int(fields[2]), fields[3], superclass, fields[5])
                classes[name] = current
            elif fields[0] == "K" and current is not None and len(fields) >= 3 and members < MAX_MEMBERS:
                members += 1
                current.constructors.append((_int(fields[1]), fields[2], fields[3:]))
            elif fields[0] == "M" and current is not None and len(fields) >= 5 and members < MAX_MEMBERS:
                members += 1
                current.methods.append((_int(fields[1]), fields[2], fields[3], fields[4], fields[5:]))
        except _Skip:
            continue
    # nested classes need their enclosing class; a private class gets no stub
    kept = {}
    for name, cls in sorted(classes.items(), key=lambda item: item[0].count("$")):
        outer = name.rpartition("$")[0]
        if cls.modifiers & PRIVATE or (outer and outer not in kept):
            continue
        kept[name] = cls
        if outer:
            kept[outer].nested.append(cls)
    return kept


class _Types:
    """Parses one type of the description into stub source (and its erasure), by a strict grammar."""

    def __init__(self, classes: dict[str, _Class], variables: dict[str, str]) -> None:
        self.classes = classes
        self.variables = variables  # type variable -> its erasure

    def tokens(self, text: str) -> list[str]:
        if len(text) > MAX_TYPE_CHARS:
            raise _Skip("a type too long")
        out, at = [], 0
        while at < len(text):
            match = _TOKEN.match(text, at)
            if match is None or match.end() == at:
                if text[at:].strip() == "":
                    break
                raise _Skip("a type outside the grammar")
            out.append(next(g for g in match.groups() if g is not None))
            at = match.end()
        return out

    def parse(self, text: str, allow_void: bool = False, varargs: bool = False) -> tuple[str, str]:
        tokens = self.tokens(text)
        if allow_void and tokens == ["void"]:
            return "void", "void"
        source, erasure, at = self._type(tokens, 0, 0)
        if at != len(tokens):
            raise _Skip("trailing tokens")
        if varargs:
            if not source.endswith("[]"):
                raise _Skip("varargs without an array")
            source = source[:-2] + "..."
        return source, erasure

    def _type(self, tokens: list[str], at: int, depth: int) -> tuple[str, str, int]:
        if depth > 20 or at >= len(tokens):
            raise _Skip("a type too deep or cut short")
        token = tokens[at]
        at += 1
        if token.startswith("@"):
            cls = self.classes.get(token[1:])
            if cls is None:
                raise _Skip("a class without a stub")
            source = erasure = cls.reference
        elif token in PRIMITIVES:
            source = erasure = token
        elif "." in token:
            segments = token.split(".")
            if segments[0] != "java" or any(s in KEYWORDS for s in segments):
                raise _Skip("a class outside java.*")
            source = erasure = token
        elif token in self.variables:
            source, erasure = token, self.variables[token]
        else:
            raise _Skip("an undeclared name")
        if at < len(tokens) and tokens[at] == "<":
            if token in PRIMITIVES or token in self.variables:
                raise _Skip("type arguments on a primitive")
            arguments = []
            at += 1
            while True:
                argument, at = self._argument(tokens, at, depth + 1)
                arguments.append(argument)
                if at < len(tokens) and tokens[at] == ",":
                    at += 1
                    continue
                if at < len(tokens) and tokens[at] == ">":
                    at += 1
                    break
                raise _Skip("unclosed type arguments")
            source += "<" + ", ".join(arguments) + ">"
        while at < len(tokens) and tokens[at] == "[]":
            source += "[]"
            erasure += "[]"
            at += 1
        return source, erasure, at

    def _argument(self, tokens: list[str], at: int, depth: int) -> tuple[str, int]:
        if at < len(tokens) and tokens[at] == "?":
            at += 1
            if at < len(tokens) and tokens[at] in ("extends", "super"):
                word = tokens[at]
                source, _, at = self._type(tokens, at + 1, depth)
                return f"? {word} {source}", at
            return "?", at
        source, _, at = self._type(tokens, at, depth)
        if source in PRIMITIVES:
            raise _Skip("a primitive type argument")
        return source, at

    def type_params(self, text: str) -> str:
        """``<T extends X & Y, U>``: declares the variables (erasing to their first bound) and returns the
        source of the declaration."""
        if text == "":
            return ""
        tokens = self.tokens(text)
        if len(tokens) < 3 or tokens[0] != "<" or tokens[-1] != ">":
            raise _Skip("type parameters outside the grammar")
        names, at, declared = [], 1, []
        while True:  # first pass: the names, so that bounds may name any of them (T extends Comparable<T>)
            name = tokens[at] if at < len(tokens) else ""
            if (not _IDENT.fullmatch(name) or name in KEYWORDS or name in RESERVED or name.startswith("judgebox")
                    or name in PRIMITIVES):
                raise _Skip("a type parameter name")
            names.append(name)
            depth = 0
            at += 1
            while at < len(tokens) and not (depth == 0 and tokens[at] in (",", ">")):
                depth += {"<": 1, ">": -1}.get(tokens[at], 0)
                at += 1
            if at >= len(tokens):
                raise _Skip("unclosed type parameters")
            if tokens[at] == ">":
                break
            at += 1
        for name in names:
            self.variables.setdefault(name, "java.lang.Object")
        at = 1
        for name in names:
            at += 1
            bounds: list[str] = []
            if tokens[at] == "extends":
                at += 1
                while True:
                    source, erasure, at = self._type(tokens, at, 1)
                    if not bounds:
                        self.variables[name] = erasure if erasure not in names else "java.lang.Object"
                    bounds.append(source)
                    if tokens[at] == "&":
                        at += 1
                        continue
                    break
            declared.append(name + (" extends " + " & ".join(bounds) if bounds else ""))
            if tokens[at] not in (",", ">"):
                raise _Skip("type parameters outside the grammar")
            at += 1
        if at != len(tokens):
            raise _Skip("trailing tokens")
        return "<" + ", ".join(declared) + ">"


def stubs(description: bytes, tests: str) -> str:
    """``judgebox.JudgeboxStubs``: a stub per class of the program (the tests' own classes aside), with the
    program's constructors and methods, each forwarding to the program's process."""
    classes = parse_description(description)
    own = set(_TESTS_CLASSES.findall(tests))
    tops = [c for name, c in sorted(classes.items()) if "$" not in name and name not in own]
    kept = {}
    pending = list(tops)
    while pending:
        cls = pending.pop()
        kept[cls.name] = cls
        pending.extend(cls.nested)
    body = "".join(_stub(cls, kept, "    ") for cls in tops)
    return ("package judgebox;\n\n@SuppressWarnings({\"unchecked\", \"rawtypes\"})\n"
            f"public final class JudgeboxStubs {{\n    private JudgeboxStubs() {{}}\n{body}}}\n")


def _stub(cls: _Class, classes: dict[str, _Class], indent: str) -> str:
    try:
        class_types = _Types(classes, {})
        type_params = class_types.type_params(cls.type_params) if cls.kind != "i" else ""
    except _Skip:
        return ""
    parent = classes.get(cls.superclass or "")
    base = parent.reference if parent is not None else "judgebox.JudgeboxStub"
    inner = indent + "    "
    lines = [f"{indent}public static class {cls.simple}{type_params} extends {base} {{",
             f"{inner}protected {cls.simple}(judgebox.JudgeboxHandle h) {{ super(h); }}"]
    seen: set[tuple[str, tuple[str, ...]]] = set()
    concrete = cls.kind == "c"
    for number, (modifiers, params_text, params) in enumerate(cls.constructors if concrete else []):
        try:
            types = _Types(classes, dict(class_types.variables))
            declared = types.type_params(params_text)
            parsed = [types.parse(p, varargs=bool(modifiers & VARARGS) and k == len(params) - 1)
                      for k, p in enumerate(params)]
        except _Skip:
            continue
        erasures = tuple(e for _, e in parsed)
        if ("<init>", erasures) in seen:
            continue
        seen.add(("<init>", erasures))
        field = f"judgebox$k{number}"
        lines.append(f"{inner}private static final java.lang.reflect.Constructor<?> {field} = "
                     f"judgebox.JudgeboxRt.constructor({_literal(cls.reference)}{_classes(erasures)});")
        formals = ", ".join(f"{s} a{k}" for k, (s, _) in enumerate(parsed))
        actuals = ", ".join(f"a{k}" for k in range(len(parsed)))
        lines.append(f"{inner}public {declared + ' ' if declared else ''}{cls.simple}({formals}) {{ super("
                     f"judgebox.JudgeboxRt.construct({field}, new java.lang.Object[]{{{actuals}}})); }}")
    for number, (modifiers, name, params_text, returns, params) in enumerate(cls.methods):
        if (not _IDENT.fullmatch(name) or name in KEYWORDS or name in OBJECT_METHODS
                or name.startswith("judgebox")):
            continue
        static = bool(modifiers & STATIC)
        try:
            types = _Types(classes, {} if static else dict(class_types.variables))
            declared = types.type_params(params_text)
            result, _ = types.parse(returns, allow_void=True)
            parsed = [types.parse(p, varargs=bool(modifiers & VARARGS) and k == len(params) - 1)
                      for k, p in enumerate(params)]
        except _Skip:
            continue
        erasures = tuple(e for _, e in parsed)
        if (name, erasures) in seen:
            continue
        seen.add((name, erasures))
        field = f"judgebox$m{number}"
        lines.append(f"{inner}private static final java.lang.reflect.Method {field} = judgebox.JudgeboxRt.method("
                     f"{_literal(cls.reference)}, \"{name}\"{_classes(erasures)});")
        formals = ", ".join(f"{s} a{k}" for k, (s, _) in enumerate(parsed))
        call = (f"judgebox.JudgeboxRt.call({field}, {'null' if static else 'this'}, "
                f"new java.lang.Object[]{{{', '.join(f'a{k}' for k in range(len(parsed)))}}})")
        statement = f"{call};" if result == "void" else f"return ({result}) {call};"
        lines.append(f"{inner}public {'static ' if static else ''}{declared + ' ' if declared else ''}{result} "
                     f"{name}({formals}) {{ {statement} }}")
    for nested in cls.nested:
        lines.append(_stub(nested, classes, inner).rstrip("\n"))
    lines.append(f"{indent}}}")
    return "\n".join(line for line in lines if line) + "\n"


def _literal(reference: str) -> str:
    return f"{reference}.class"


def _classes(erasures: tuple[str, ...]) -> str:
    return "".join(f", {e}.class" for e in erasures)
