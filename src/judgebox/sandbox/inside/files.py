"""Files a caller puts into a run's work folder and fetches back from it, confined to that folder.

A relative path is relative to the work folder; an absolute path is itself, in the work folder or in one of
the run's own folders at absolute paths (``abspaths``: ``/mnt/b`` is ``/mnt/b``, on a tmpfs made for the run);
a path with ``..`` or a NUL is refused. Fetching follows no link out of those folders: the run is over
and all its processes are dead when files are fetched, so what is checked is what is read.
"""

from __future__ import annotations

import base64
import json
import os
import stat

from . import abspaths

FETCH_CHUNK = 3 << 20  # a multiple of 3, so the base64 of the chunks joins into the base64 of the file


def resolve(workdir: str, path: str) -> str:
    abspaths.top_of(path, workdir)  # raises for a path no run may use
    return os.path.normpath(os.path.join(workdir, path))  # an absolute path is itself


def place(workdir: str, encoded: bytes) -> None:
    """Write ``{path: base64 or null}`` into the work folder (in the run, as the run's uid)."""
    for path, content in json.loads(encoded).items():
        if content is None:
            continue
        target = resolve(workdir, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(base64.b64decode(content))


def fetch(workdir: str, paths: list[str], limit: int, out_fd: int, tops: tuple[str, ...] = ()) -> None:
    """Write ``{path: base64}`` of the regular files among ``paths`` (others are left out), as JSON, into
    ``out_fd``, a chunk at a time: the zygote never holds a whole file, whatever its size (a run can make
    a sparse 60 MiB file in microseconds). At most ``limit`` bytes are fetched in all; past that, what
    was fetched so far is returned. Only files in the work folder and in the run's own ``tops`` are
    fetched."""
    roots = tuple(folder + "/" for folder in (workdir, *("/" + top for top in tops)))
    budget = limit
    os.write(out_fd, b"{")
    first = True
    for path in paths:
        try:
            target = os.path.realpath(resolve(workdir, path))
        except ValueError:
            continue
        if not target.startswith(roots):
            continue
        try:  # what the run left that cannot be read (chmod 0, a folder it locked) is not fetched, not an error
            # non-blocking: a FIFO left at the path opens at once (and is skipped below) instead of waiting
            handle = os.fdopen(os.open(target, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC), "rb")
        except OSError:
            continue
        with handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                continue
            if info.st_size > budget:
                break
            budget -= info.st_size
            os.write(out_fd, (b"" if first else b",") + json.dumps(path).encode() + b':"')
            first = False
            while chunk := handle.read(FETCH_CHUNK):
                os.write(out_fd, base64.b64encode(chunk))
            os.write(out_fd, b'"')
    os.write(out_fd, b"}")


def take_output(workdir: str, name: str, bound: int, out_fd: int) -> None:
    """Make ``out_fd`` (the run's stdout memfd) hold the work folder's file ``name`` instead, at most
    ``bound`` bytes of it (a caller passes the output cap plus one, so a longer file still reads as too
    long). A file that is missing, not regular, or a link (never followed: it could name any file the
    judge can read) leaves ``out_fd`` empty: the program wrote no output file. The run is over and its
    processes are dead, so what is checked is what is read."""
    os.ftruncate(out_fd, 0)
    os.lseek(out_fd, 0, os.SEEK_SET)
    if "/" in name or name in ("", ".", ".."):
        raise ValueError(f"an output file is a name in the work folder, got {name!r}")
    try:  # O_NONBLOCK: a FIFO named like the output file must not hang the zygote
        fd = os.open(os.path.join(workdir, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        left = bound
        while left > 0 and (chunk := os.read(fd, min(left, FETCH_CHUNK))):
            view = memoryview(chunk)
            while view:
                view = view[os.write(out_fd, view):]
            left -= len(chunk)
    finally:
        os.close(fd)


def read_all(fd: int) -> bytes:
    """Everything in a memfd, from its start (whatever its offset)."""
    chunks = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)
