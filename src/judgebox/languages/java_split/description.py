"""Reading the program's classes as the program's side's describe step printed them: a class per ``C``
line, its constructors (``K``) and methods (``M``) with their generic types as text.

The program may print anything in that step instead, so every line is checked against the format and
only names of a strict grammar are kept; a line outside the format is dropped.
"""

from __future__ import annotations

import re

MAX_DESCRIPTION = 1 << 20
MAX_CLASSES = 500
MAX_MEMBERS = 2000

KEYWORDS = frozenset("""abstract assert boolean break byte case catch char class const continue default do double else
enum extends final finally float for goto if implements import instanceof int interface long native new package
private protected public return short static strictfp super switch synchronized this throw throws transient try void
volatile while true false null var record yield sealed permits non-sealed _""".split())
# simple names a stub never takes: they would obscure the packages or the harness's own classes in T
RESERVED = frozenset({"java", "javax", "jdk", "sun", "com", "org", "judgebox"})
STATIC, VARARGS, PRIVATE = 0x8, 0x80, 0x2
_BINARY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\$[A-Za-z_][A-Za-z0-9_]*)*")


class Skip(Exception):
    """A member (or class) the stubs leave out: a name or type outside the grammar, or a class without a stub."""


class ProgramClass:
    def __init__(self, name: str, modifiers: int, kind: str, superclass: str | None, type_params: str) -> None:
        self.name, self.modifiers, self.kind, self.superclass = name, modifiers, kind, superclass
        self.type_params = type_params
        self.constructors: list[tuple[int, str, list[str]]] = []
        self.methods: list[tuple[int, str, str, str, list[str]]] = []
        self.nested: list[ProgramClass] = []

    @property
    def simple(self) -> str:
        return self.name.rsplit("$", 1)[-1]

    @property
    def reference(self) -> str:  # how stub code names its stub
        return "JudgeboxStubs." + self.name.replace("$", ".")


def _int(text: str) -> int:
    if not re.fullmatch(r"-?[0-9]{1,10}", text):
        raise Skip("not a number")
    return int(text)


def parse_description(description: bytes) -> dict[str, ProgramClass]:
    """The program's classes as its describe step printed them; lines outside the format are dropped."""
    classes: dict[str, ProgramClass] = {}
    current: ProgramClass | None = None
    members = 0
    for raw in description.decode("utf-8", "replace").split("\n"):
        fields = raw.split("\t")
        try:
            if fields[0] == "C" and len(fields) == 6 and len(classes) < MAX_CLASSES:
                current = None
                name = fields[1]
                if not _BINARY.fullmatch(name) or name in classes:
                    raise Skip(name)
                segments = name.split("$")
                if any(s in KEYWORDS or s in RESERVED or s.startswith("Judgebox") for s in segments):
                    raise Skip(name)
                if len(set(segments)) != len(segments):  # a nested class named like an enclosing one
                    raise Skip(name)
                if fields[3] not in ("c", "i", "e", "inner"):
                    raise Skip(fields[3])
                superclass = None if fields[4] == "-" else fields[4]
                if superclass is not None and not _BINARY.fullmatch(superclass):
                    raise Skip(superclass)
                current = ProgramClass(name, _int(fields[2]), fields[3], superclass, fields[5])
                classes[name] = current
            elif fields[0] == "K" and current is not None and len(fields) >= 3 and members < MAX_MEMBERS:
                members += 1
                current.constructors.append((_int(fields[1]), fields[2], fields[3:]))
            elif fields[0] == "M" and current is not None and len(fields) >= 5 and members < MAX_MEMBERS:
                members += 1
                current.methods.append((_int(fields[1]), fields[2], fields[3], fields[4], fields[5:]))
        except Skip:
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
