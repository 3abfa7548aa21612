"""How the sandbox is set up on this machine: the isolation mode, its required layers, the interpreter."""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass, field

from judgebox.errors import InvalidInput, SandboxError

MiB = 1024 * 1024
MODES = ("auto", "root", "user", "none")

# What each mode must actually give before untrusted code runs. "root" is the full stack (CI and
# servers run as root); "user" is what an unprivileged user gets from the kernel without help.
NAMESPACE_LAYERS = frozenset({"pid_namespace", "mount_namespace", "net_namespace", "ipc_namespace",
                              "private_workdir", "no_new_privs", "landlock", "seccomp", "rlimits"})
REQUIRED_LAYERS = {
    "root": NAMESPACE_LAYERS | {"uid_switch", "cgroup_memory", "cgroup_pids", "cgroup_cpu"},
    "user": NAMESPACE_LAYERS | {"user_namespace"},
    "none": frozenset({"rlimits"}),
}
SYSTEM_READ_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc", "/sys",
                     "/dev/random", "/dev/urandom")  # /dev/stdin and /dev/fd lead into /proc
DEVICE_WRITE_PATHS = ("/dev/null", "/dev/zero", "/dev/full")
# One BLAS/OpenMP thread: numpy's OpenBLAS (and R's) otherwise starts a thread per core the machine has,
# each counted against the run's `processes` and, spinning while idle, its CPU time: a correct numpy program
# would turn TLE or fail to start on a machine with many cores.
RUN_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
           "PYTHONIOENCODING": "utf-8", "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1"}


@dataclass(frozen=True)
class SandboxConfig:
    """Settings of the sandbox; build once and pass to :class:`judgebox.Judge`.

    - ``isolation``: ``"auto"`` (root mode as root, user-namespace mode otherwise), ``"root"``, ``"user"``,
      or ``"none"``: no isolation at all, an explicit opt-in for trusted code only.
    - ``python``: the interpreter that runs Python submissions; it must be readable and executable by
      the sandbox's uid (so not under root's home, where pyenv lives). Default: ``JUDGEBOX_PYTHON``,
      else Debian's ``/usr/bin/python3``.
    - ``required``: layers that must be active, or nothing runs; default: everything the mode can give.
    """

    isolation: str = "auto"
    python: str | None = None
    workdir_bytes: int = 64 * MiB
    shm_bytes: int = 16 * MiB
    uid_base: int = 61000
    required: frozenset[str] | None = None
    extra_read_paths: tuple[str, ...] = field(default_factory=tuple)
    toolchain_cache: str | None = None  # precompiled headers and the like; readable by the sandbox
    testlib: str | None = None  # the folder of testlib.h for checker programs; default $JUDGEBOX_TESTLIB

    @property
    def testlib_dir(self) -> str | None:
        """The include folder C/C++ checkers and interactors are compiled with (readable in the sandbox)."""
        folder = self.testlib or os.environ.get("JUDGEBOX_TESTLIB") or None
        return os.path.realpath(folder) if folder else None

    @property
    def cache_dir(self) -> str:
        if self.toolchain_cache:
            return self.toolchain_cache
        if os.geteuid() == 0:
            return "/var/cache/judgebox"
        return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "judgebox")

    def __post_init__(self) -> None:
        if self.isolation not in MODES:
            raise InvalidInput(f"isolation must be one of {', '.join(MODES)}, got {self.isolation!r}")

    @property
    def mode(self) -> str:
        if self.isolation != "auto":
            return self.isolation
        return "root" if os.geteuid() == 0 else "user"

    @property
    def required_layers(self) -> frozenset[str]:
        return self.required if self.required is not None else REQUIRED_LAYERS[self.mode]

    def interpreter(self) -> str:
        """The absolute path of the Python that runs submissions, checked to be usable by the sandbox."""
        wanted = self.python or os.environ.get("JUDGEBOX_PYTHON") or "/usr/bin/python3"
        path = shutil.which(wanted) if not os.path.isabs(wanted) else wanted
        if not path or not os.access(path, os.X_OK):
            raise SandboxError(f"the sandbox Python {wanted!r} does not exist or is not executable; "
                               "install it (Debian: apt-get install python3) or set JUDGEBOX_PYTHON")
        if self.mode == "root" and not reachable_by_others(path):
            raise SandboxError(f"the sandbox Python {path} is not readable by the sandbox uid (a folder on its "
                               "path is private, as root's home is); use one under /usr or /opt")
        return path

    def read_paths(self, interpreter: str) -> list[str]:
        prefix = os.path.dirname(os.path.dirname(os.path.realpath(interpreter)))
        return [*SYSTEM_READ_PATHS, prefix, self.cache_dir, *self.extra_read_paths,
                *([self.testlib_dir] if self.testlib_dir else [])]


def reachable_by_others(path: str) -> bool:
    """True when a uid with no relation to the owner can execute ``path`` (every folder searchable)."""
    real = os.path.realpath(path)
    mode = os.stat(real).st_mode
    if not (mode & stat.S_IXOTH and mode & stat.S_IROTH):
        return False
    folder = os.path.dirname(real)
    while True:
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return False
        if folder == "/":
            return True
        folder = os.path.dirname(folder)
