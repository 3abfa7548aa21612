"""The names of libc's and libm's functions: a C program's function of such a name gets no stub, since in
the tests' static binary the stub would define libc's function for the tests' own calls too.
"""

from __future__ import annotations

import re
import subprocess
import threading

_libc_lock = threading.Lock()
_libc_names: frozenset[str] | None = None


def libc_functions() -> frozenset[str]:
    """Every function libc.a and libm.a define (read once, from the system's own files): a C program's
    function of such a name gets no stub, since in the tests' static binary the stub would be the
    definition of libc's function, for the tests' own calls of it too, whichever header declared it."""
    global _libc_names
    with _libc_lock:
        if _libc_names is None:
            names: set[str] = set()
            for library in ("libc.a", "libm.a"):
                try:
                    path = subprocess.run(["/usr/bin/gcc", f"-print-file-name={library}"], capture_output=True,
                                          text=True, timeout=30, check=True).stdout.strip()
                    with open(path, "rb") as f:
                        head = f.read(4096)
                    # libm.a may be a linker script: GROUP ( .../libm-2.36.a .../libmvec.a )
                    paths = ([path] if head.startswith(b"!<arch>")
                             else re.findall(r"(/\S+\.a)\b", head.decode("latin-1")))
                    listing = subprocess.run(["/usr/bin/nm", "-g", "--defined-only", *paths], capture_output=True,
                                             text=True, timeout=120).stdout
                except (OSError, subprocess.SubprocessError):
                    continue
                names.update(m[1] for m in re.finditer(r"^[0-9a-f]* *[TWi] (\w+)$", listing, re.M))
            _libc_names = frozenset(names)
        return _libc_names
