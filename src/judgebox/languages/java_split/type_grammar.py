"""The grammar of one type of the description (``@Outer$Inner``, ``java.util.List<? extends T>[]``,
``<T extends Comparable<T>>``), parsed into stub source and its erasure. Anything outside it is a
``Skip``: the member is left out of the stubs, never spelled as the program wrote it.
"""

from __future__ import annotations

import re

from judgebox.languages.java_split.description import KEYWORDS, RESERVED, ProgramClass, Skip

MAX_TYPE_CHARS = 2000
PRIMITIVES = frozenset("boolean byte short char int long float double".split())
IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_TOKEN = re.compile(r"\s*(?:(@[A-Za-z0-9_$]+)|([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)|(\[\])|([<>,?&]))")


class TypeGrammar:
    """Parses one type of the description into stub source (and its erasure), by a strict grammar."""

    def __init__(self, classes: dict[str, ProgramClass], variables: dict[str, str]) -> None:
        self.classes = classes
        self.variables = variables  # type variable -> its erasure

    def tokens(self, text: str) -> list[str]:
        if len(text) > MAX_TYPE_CHARS:
            raise Skip("a type too long")
        out, at = [], 0
        while at < len(text):
            match = _TOKEN.match(text, at)
            if match is None or match.end() == at:
                if text[at:].strip() == "":
                    break
                raise Skip("a type outside the grammar")
            out.append(next(g for g in match.groups() if g is not None))
            at = match.end()
        return out

    def parse(self, text: str, allow_void: bool = False, varargs: bool = False) -> tuple[str, str]:
        tokens = self.tokens(text)
        if allow_void and tokens == ["void"]:
            return "void", "void"
        source, erasure, at = self._type(tokens, 0, 0)
        if at != len(tokens):
            raise Skip("trailing tokens")
        if varargs:
            if not source.endswith("[]"):
                raise Skip("varargs without an array")
            source = source[:-2] + "..."
        return source, erasure

    def _type(self, tokens: list[str], at: int, depth: int) -> tuple[str, str, int]:
        if depth > 20 or at >= len(tokens):
            raise Skip("a type too deep or cut short")
        token = tokens[at]
        at += 1
        if token.startswith("@"):
            cls = self.classes.get(token[1:])
            if cls is None:
                raise Skip("a class without a stub")
            source = erasure = cls.reference
        elif token in PRIMITIVES:
            source = erasure = token
        elif "." in token:
            segments = token.split(".")
            if segments[0] != "java" or any(s in KEYWORDS for s in segments):
                raise Skip("a class outside java.*")
            source = erasure = token
        elif token in self.variables:
            source, erasure = token, self.variables[token]
        else:
            raise Skip("an undeclared name")
        if at < len(tokens) and tokens[at] == "<":
            if token in PRIMITIVES or token in self.variables:
                raise Skip("type arguments on a primitive")
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
                raise Skip("unclosed type arguments")
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
            raise Skip("a primitive type argument")
        return source, at

    def type_params(self, text: str) -> str:
        """``<T extends X & Y, U>``: declares the variables (erasing to their first bound) and returns the
        source of the declaration."""
        if text == "":
            return ""
        tokens = self.tokens(text)
        if len(tokens) < 3 or tokens[0] != "<" or tokens[-1] != ">":
            raise Skip("type parameters outside the grammar")
        names, at, declared = [], 1, []
        while True:  # first pass: the names, so that bounds may name any of them (T extends Comparable<T>)
            name = tokens[at] if at < len(tokens) else ""
            if (not IDENTIFIER.fullmatch(name) or name in KEYWORDS or name in RESERVED or name.startswith("judgebox")
                    or name in PRIMITIVES):
                raise Skip("a type parameter name")
            names.append(name)
            depth = 0
            at += 1
            while at < len(tokens) and not (depth == 0 and tokens[at] in (",", ">")):
                depth += {"<": 1, ">": -1}.get(tokens[at], 0)
                at += 1
            if at >= len(tokens):
                raise Skip("unclosed type parameters")
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
                raise Skip("type parameters outside the grammar")
            at += 1
        if at != len(tokens):
            raise Skip("trailing tokens")
        return "<" + ", ".join(declared) + ">"
