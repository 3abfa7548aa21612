"""A precompiled ``bits/stdc++.h`` per C++ flag set: about 0.3 s per compile instead of 1.3-1.6 s.

Built once per machine into the toolchain cache (a folder the sandbox may read), from the system header
only, so no submission ever reaches this compiler run. A PCH is only used when it was built with the
very flags of the compile; ``g++`` silently falls back to the header otherwise.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import threading

_lock = threading.Lock()
_known: dict[tuple[str, ...], str | None] = {}


def include_dir(cache: str, flags: tuple[str, ...]) -> str | None:
    """A folder holding ``bits/stdc++.h.gch`` built with ``flags``, built now if needed; None if it
    cannot be had here (no writable cache, no g++)."""
    with _lock:
        if flags not in _known:
            _known[flags] = _build(cache, flags)
        return _known[flags]


def _build(cache: str, flags: tuple[str, ...]) -> str | None:
    name = "-".join(f.strip("-").replace("=", "") for f in flags)
    folder = os.path.join(cache, "pch", name)
    target = os.path.join(folder, "bits", "stdc++.h.gch")
    try:
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        with open(os.path.join(folder, ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another judge process may be building the same one
            if not os.path.exists(target):
                header = _system_header()
                if header is None:
                    return None
                partial = target + ".partial"
                subprocess.run(["/usr/bin/g++", *flags, "-x", "c++-header", header, "-o", partial],
                               check=True, capture_output=True, timeout=300)
                os.chmod(partial, 0o644)
                os.replace(partial, target)
    except (OSError, subprocess.SubprocessError):
        return None
    return folder


def _system_header() -> str | None:
    try:
        out = subprocess.run(["/usr/bin/g++", "-print-file-name=include"], capture_output=True, text=True,
                             timeout=30, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    version = os.path.basename(os.path.dirname(out))  # .../gcc/x86_64-linux-gnu/12/include -> 12
    for base in ("/usr/include/x86_64-linux-gnu/c++", "/usr/include/aarch64-linux-gnu/c++"):
        candidate = os.path.join(base, version, "bits", "stdc++.h")
        if os.path.exists(candidate):
            return candidate
    return None
