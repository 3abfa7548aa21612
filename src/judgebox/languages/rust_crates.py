"""The crates HumanEval-X's Rust evaluation builds with (``rand``, ``regex``, ``md5``), for Rust programs and tests.

HumanEval-X runs ``cargo test`` in a project whose dependencies are ``rand``, ``regex`` and ``md5``: its
prompts import them (``use rand::Rng; use regex::Regex; use md5;``), some programs use them
(``regex::Regex``, ``md5::compute``) and some tests do (``rand::random``, ``rand::thread_rng()`` with ``Rng``).
Debian packages their sources (``librust-rand-dev``, ``librust-regex-dev`` and ``librust-regex+default-dev``,
``librust-md5-dev``, under ``/usr/share/cargo/registry``) and Debian's ``cargo`` builds them offline from
there. They are built once per machine into the toolchain cache (a folder the sandbox reads), from the
system's sources only, with the system's rustc (the one that builds the submissions: an rlib is only usable
by the compiler that made it), as the go harness builds testify and the C++ entry its precompiled header: no
submission reaches this build. A build whose program or tests name one of the crates is then given them
(``--extern rand=... --extern regex=... --extern md5=... -L dependency=...``: nothing is linked in that the
program does not use; about the cost of loading their metadata). Where the packages or ``cargo`` are
missing, nothing is linked: a program that uses a crate does not compile (CE, the compiler names the crate).
The assert harness (``rust_split``) links them into both sides; a stdio build gets them from
:func:`compile_arguments`, which ``languages/build.py``'s ``compile_command`` adds to rustc's arguments.

Known difference: Debian has rand 0.8, HumanEval-X's project asks for rand 0.4. Programs get rand 0.8 as it
is. The tests, which HumanEval-X wrote for rand 0.4 and which reach ``Rng`` through the program's prompt
(``use super::*``), see an ``Rng`` of rand 0.4's methods (``gen``, ``gen_range(low, high)``, ``gen_bool``,
``gen_weighted_bool``, ``shuffle``, ``choose``) implemented by rand 0.8 for every generator; tests that
import ``rand::Rng`` themselves get rand 0.8's.
"""

from __future__ import annotations

import glob
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import threading
from dataclasses import dataclass

from judgebox.languages.toolchain import built_once

RUSTC = "/usr/bin/rustc"
CARGO = "/usr/bin/cargo"
REGISTRY = "/usr/share/cargo/registry"  # Debian's librust-*-dev sources
# the crates, as HumanEval-X's Cargo.toml names them (rand: Debian's 0.8, see above)
CRATES = {"rand": "0.8", "regex": "1", "md5": "0.7"}
PACKAGES = ("cargo", "librust-rand-dev", "librust-regex-dev", "librust-regex+default-dev", "librust-md5-dev")
MENTION = re.compile(r"\b(?:rand|regex|md5)\b")
BUILD_TIMEOUT = 1200  # seconds; about 45 s on two idle cores
# the crate's own items in the tests' scope, as a program's prompt gives them through `use super::*`; a glob,
# so the tests' own names and imports take precedence
TESTS_SCOPE = """
#[allow(unused_imports, dead_code)]
mod judgebox_crates {
    pub use ::regex::Regex;
    // rand 0.4's Rng (HumanEval-X's tests are written for it), implemented by rand 0.8
    pub trait Rng: ::rand::RngCore {
        fn gen<T>(&mut self) -> T where ::rand::distributions::Standard: ::rand::distributions::Distribution<T> {
            ::rand::Rng::gen(self)
        }
        fn gen_range<T: ::rand::distributions::uniform::SampleUniform + ::std::cmp::PartialOrd>(
            &mut self, low: T, high: T) -> T {
            ::rand::Rng::gen_range(self, low..high)
        }
        fn gen_bool(&mut self, p: f64) -> bool {
            ::rand::Rng::gen_bool(self, p)
        }
        fn gen_weighted_bool(&mut self, n: u32) -> bool {
            n <= 1 || ::rand::Rng::gen_range(self, 0..n) == 0
        }
        fn shuffle<T>(&mut self, values: &mut [T]) {
            ::rand::seq::SliceRandom::shuffle(values, self)
        }
        fn choose<'a, T>(&mut self, values: &'a [T]) -> ::std::option::Option<&'a T> {
            ::rand::seq::SliceRandom::choose(values, self)
        }
    }
    impl<R: ::rand::RngCore + ?Sized> Rng for R {}
}
use judgebox_crates::*;
"""
USE = re.compile(r"\b(?:use\s+(?:::\s*)?|extern\s+crate\s+)([A-Za-z_][A-Za-z0-9_]*)")


@dataclass(frozen=True)
class Crates:
    """The built crates: the rlib of each, and the folder of them and their dependencies."""

    folder: str
    rlibs: dict[str, str]

    @property
    def flags(self) -> str:
        """rustc's arguments that give a build the crates (shell-quoted)."""
        externs = " ".join(f"--extern {name}={shlex.quote(path)}" for name, path in sorted(self.rlibs.items()))
        return f" {externs} -L {shlex.quote('dependency=' + self.folder)}"

    def arguments(self) -> tuple[str, ...]:
        """The same arguments, as an argv's."""
        out: list[str] = []
        for name, path in sorted(self.rlibs.items()):
            out += ["--extern", f"{name}={path}"]
        return (*out, "-L", f"dependency={self.folder}")


_lock = threading.Lock()
_built: dict[str, Crates | None] = {}


def available(toolchain_cache: str) -> Crates | None:
    """The crates, built now if they were not (this may take a minute, once per machine); None where they
    cannot be had (packages missing, no writable cache, a failed build)."""
    with _lock:
        if toolchain_cache not in _built:
            _built[toolchain_cache] = _build(toolchain_cache)
        return _built[toolchain_cache]


def linked(toolchain_cache: str, *sources: str) -> Crates | None:
    """The crates a build of ``sources`` is given: when one of them names a crate, and they are here."""
    if not any(MENTION.search(source) for source in sources):
        return None
    return available(toolchain_cache)


def compile_arguments(toolchain_cache: str, source: str) -> tuple[str, ...]:
    """What a stdio build of ``source`` adds to rustc's arguments: the crates, when it names one."""
    crates = linked(toolchain_cache, source)
    return crates.arguments() if crates is not None else ()


def flags(crates: Crates | None) -> str:
    return crates.flags if crates is not None else ""


def dropped_uses(program: str, rewrites: list, crates: Crates | None) -> list:
    """The program's rewrites without the drop of a ``use``/``extern crate`` of a crate that is linked."""
    if crates is None:
        return rewrites
    kept = []
    for item in rewrites:
        used = USE.search(program, item.start, item.end) if item.kind == "foreign-use" else None
        if used is None or used[1] not in crates.rlibs:
            kept.append(item)
    return kept


def tests_scope(crates: Crates | None) -> str:
    """What T's source ends with when the crates are linked."""
    return TESTS_SCOPE if crates is not None else ""


# -- the build, once per machine ------------------------------------------------------------------------------

def _sources() -> list[str]:
    return sorted(os.listdir(REGISTRY))


def _build(toolchain_cache: str) -> Crates | None:
    try:
        versions = [subprocess.run([tool, "-vV"], capture_output=True, text=True, timeout=60, check=True).stdout
                    for tool in (RUSTC, CARGO)]
        sources = _sources()
    except (OSError, subprocess.SubprocessError):
        return None
    if not all(any(re.fullmatch(rf"{name}-{re.escape(version)}\b.*", s) for s in sources)
               for name, version in CRATES.items()):
        return None
    digest = hashlib.sha256("\n".join([*versions, *sources]).encode()).hexdigest()[:16]
    folder = os.path.join(toolchain_cache, "rust-crates", digest)
    target = os.path.join(folder, "deps")
    if not built_once(target, lambda partial: _cargo_build(folder, partial)):
        return None
    rlibs = {}
    for name in CRATES:
        found = glob.glob(os.path.join(glob.escape(target), f"lib{name}-*.rlib"))
        if len(found) != 1:
            return None
        rlibs[name] = found[0]
    return Crates(target, rlibs)


def _cargo_build(folder: str, partial: str) -> None:
    """The crates' rlibs into the folder ``partial``, built by cargo in a project of its own in ``folder``."""
    project = os.path.join(folder, "project")
    shutil.rmtree(project, ignore_errors=True)
    os.makedirs(os.path.join(project, "src"))
    os.makedirs(os.path.join(project, ".cargo"))
    dependencies = "".join(f'{name} = "{version}"\n' for name, version in CRATES.items())
    files = {
        # the profile of `cargo test`'s checks (debug assertions, overflow checks), optimized
        "Cargo.toml": ('[package]\nname = "judgebox-crates"\nversion = "0.0.0"\nedition = "2021"\n\n'
                       f"[dependencies]\n{dependencies}\n"
                       "[profile.release]\ndebug-assertions = true\noverflow-checks = true\n"),
        "src/lib.rs": "",
        # Debian's sources only: no network, no registry
        ".cargo/config.toml": (f'[source.crates-io]\nreplace-with = "debian"\n\n[source.debian]\n'
                               f'directory = "{REGISTRY}"\n\n[net]\noffline = true\n'),
    }
    for name, text in files.items():
        with open(os.path.join(project, name), "w", encoding="utf-8") as f:
            f.write(text)
    env = {"PATH": "/usr/bin:/bin", "HOME": project, "CARGO_HOME": os.path.join(project, ".cargo-home"),
           "RUSTC": RUSTC, "CARGO_TARGET_DIR": os.path.join(project, "target"), "LANG": "C.UTF-8"}
    subprocess.run([CARGO, "build", "--release", "--offline", "--quiet"], cwd=project, env=env, check=True,
                   capture_output=True, timeout=BUILD_TIMEOUT)
    os.makedirs(partial)
    built = os.path.join(project, "target", "release", "deps")
    for name in os.listdir(built):
        if name.endswith(".rlib") and not name.startswith("libjudgebox_crates-"):
            shutil.copyfile(os.path.join(built, name), os.path.join(partial, name))
            os.chmod(os.path.join(partial, name), 0o644)
    os.chmod(partial, 0o755)
    shutil.rmtree(project, ignore_errors=True)
