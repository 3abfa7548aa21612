"""What a language is to judgebox: a few declarations, and hooks only for real quirks.

A spec names the file the code goes in, the command that builds it (none for interpreted languages)
and the file that build leaves, and the command that runs it. The built program (or, for interpreted
languages, the source itself) reaches every run as a sealed memfd at ``/proc/self/fd/5``, so a case
costs no copy of it. Placeholders in commands: ``{source}`` (the source file in the work folder),
``{program}`` (the program's memfd) and ``{workdir}``.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from judgebox.languages.artifacts import Artifact, ArtifactCache, Build
from judgebox.sandbox.outcome import RunOutcome
from judgebox.sandbox.slot import SplitCommand

PROGRAM_PATH = "/proc/self/fd/5"
WORKDIR = "/tmp"


# -- the two-process harness's hook (languages/split.py): what it is given and what it gives back --------

@dataclass(frozen=True)
class SplitBuild:
    """An assert case ready to run as two processes, or the build's failure."""

    job: SplitCommand | None = None
    program: Artifact | None = None  # fd 5 of both sides
    compile_error: str | None = None
    system_error: str | None = None


@dataclass(frozen=True)
class Toolbox:
    """What a language's split harness may use to prepare its two sides: sandboxed, cached builds
    (``build``), sandboxed runs of a helper program (``submit``, the worker pool's), the cache itself
    for anything else worth keeping by content (``cache``), and the catalog's entries by name (``language``:
    a harness module cannot import the catalog, which imports it)."""

    build: Callable[[LanguageSpec, str], Build]  # a spec and a source -> the cached build of that source
    submit: Callable[..., Future[RunOutcome]]
    cache: ArtifactCache
    toolchain_cache: str
    language: Callable[[str], LanguageSpec]


@dataclass(frozen=True)
class SelfTest:
    """A program that echoes its input, the first thing a language must get right to be offered."""

    code: str
    stdin: str = "judgebox 42\n"
    expected: str = "judgebox 42\n"


@dataclass(frozen=True)
class LibraryProbe:
    """The libraries a language's programs can use here, and a program that prints ``name version`` on a
    line for each one it finds: the languages report shows what a submission can import on this machine."""

    names: tuple[str, ...]
    code: str


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    source: str  # file name of the code in the work folder
    run: tuple[str, ...]
    self_test: SelfTest
    aliases: tuple[str, ...] = ()
    compile: tuple[str, ...] = ()  # empty: interpreted; the program is the source
    artifact: str | None = None  # what the compile step leaves in the work folder
    requires: tuple[str, ...] = ()  # executables that must exist for the language to be offered
    env: dict[str, str] = field(default_factory=dict)
    description: str = ""
    runner: str = "exec"  # "exec": a program in the sandbox; "python-fork": the slot's warm interpreter
    prepare: Callable[[str], str] | None = None  # a quirk of the source (Java's class name, PHP's tag)
    # program + tests -> the two-process assert harness (languages/split.py); none: stdio cases only
    split_asserts: Callable[[Toolbox, str, str], SplitBuild] | None = None
    memory_floor_mb: int = 0  # some runtimes cannot start below this; their limit is raised to it
    pch_flags: tuple[str, ...] = ()  # C++: the flags a precompiled bits/stdc++.h must be built with
    out_of_memory_line: str | None = None  # a regex: the runtime's own report of running out of memory (MLE)
    needs_memory_cgroup: bool = False  # its runtime cannot run under an address-space limit (user mode)
    libraries: LibraryProbe | None = None  # the libraries scripts/setup.sh installs for it

    @property
    def compiled(self) -> bool:
        return bool(self.compile)

    def command(self, template: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(part.format(source=f"{WORKDIR}/{self.source}", program=PROGRAM_PATH, workdir=WORKDIR)
                     for part in template)

    def source_for(self, code: str) -> str:
        return self.prepare(code) if self.prepare else code
