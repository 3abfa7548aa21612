"""The tests' side's view of the program, generated: ``judgebox.JudgeboxStubs``, a stub per class of the
program with its constructors and methods, each forwarding over the channel, and the program's
``java.*`` imports the tests rely on. No program class is compiled into the tests' jar.
"""

from __future__ import annotations

import re

from judgebox.languages.java_split.description import KEYWORDS, STATIC, VARARGS, ProgramClass, Skip, parse_description
from judgebox.languages.java_split.type_grammar import IDENTIFIER, TypeGrammar

OBJECT_METHODS = frozenset({"equals", "hashCode", "toString", "getClass", "notify", "notifyAll", "wait",
                            "finalize", "clone"})
_IMPORT = re.compile(r"^[ \t]*import[ \t]+(java(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(\.\*)?[ \t]*;[ \t]*$", re.M)
_TESTS_CLASSES = re.compile(r"\b(?:class|interface|enum|record)\s+([A-Za-z_]\w*)")


def imports(program: str) -> str:
    """The program's imports of ``java.*`` packages and classes, which the tests (appended to the program in
    the dataset's form) rely on; only that strict form is carried over into the tests' source."""
    found: list[str] = []
    for match in _IMPORT.finditer(program):
        name = match.group(1)
        if not any(segment in KEYWORDS for segment in name.split(".")) and len(found) < 100:
            found.append(f"import {name}{match.group(2) or ''};\n")
    return "".join(dict.fromkeys(found))


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


def _stub(cls: ProgramClass, classes: dict[str, ProgramClass], indent: str) -> str:
    try:
        class_types = TypeGrammar(classes, {})
        type_params = class_types.type_params(cls.type_params) if cls.kind != "i" else ""
    except Skip:
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
            types = TypeGrammar(classes, dict(class_types.variables))
            declared = types.type_params(params_text)
            parsed = [types.parse(p, varargs=bool(modifiers & VARARGS) and k == len(params) - 1)
                      for k, p in enumerate(params)]
        except Skip:
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
        if (not IDENTIFIER.fullmatch(name) or name in KEYWORDS or name in OBJECT_METHODS
                or name.startswith("judgebox")):
            continue
        static = bool(modifiers & STATIC)
        try:
            types = TypeGrammar(classes, {} if static else dict(class_types.variables))
            declared = types.type_params(params_text)
            result, _ = types.parse(returns, allow_void=True)
            parsed = [types.parse(p, varargs=bool(modifiers & VARARGS) and k == len(params) - 1)
                      for k, p in enumerate(params)]
        except Skip:
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
