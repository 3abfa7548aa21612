"""Messages between the judge and a zygote: one JSON object per SEQPACKET datagram, fds alongside.

Bulk data (code, stdin, stdout, stderr, harness results) never travels in a message: it lives in
memfds whose descriptors are passed with the message, so a 60 MiB output costs no copy here.
"""

from __future__ import annotations

import json
import os
import socket

MAX_MESSAGE = 1 << 20
MAX_FDS = 12


def send(sock: socket.socket, message: dict, fds: list[int] = ()) -> None:  # type: ignore[assignment]
    data = json.dumps(message, separators=(",", ":")).encode()
    if len(data) > MAX_MESSAGE:
        raise ValueError(f"message of {len(data)} bytes exceeds {MAX_MESSAGE}")
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.sendall(data)


def recv(sock: socket.socket) -> tuple[dict | None, list[int]]:
    """The next message and its fds, or ``(None, [])`` when the other side has gone."""
    data, fds, _flags, _addr = socket.recv_fds(sock, MAX_MESSAGE, MAX_FDS)
    if not data:
        for fd in fds:
            os.close(fd)
        return None, []
    return json.loads(data), fds
