"""LiveCodeBench's packed test cases (base64 of zlib of a pickled str of JSON text), decoded within the
record bound at every step: nothing of the file's runs in the judge, and a bomb costs the bound."""

from __future__ import annotations

import base64
import io
import pickletools
import zlib

from judgebox.judging.cases import MAX_RECORD_BYTES, over_bound
from judgebox.tools.score.records import BadRecord, DataOnly

INFLATE_CHUNK = 1 << 16  # of a packed field's zlib stream, fed to the inflater at a time
INFLATE_OUT = 1 << 20  # of inflated bytes, made at a time (no call makes a bomb's whole output)

# the opcodes that pickle one str (protocols 0 to 5): no class, so no code; no list or memo fetch, so no
# references multiplying what was inflated
STR_OPCODES = frozenset({"PROTO", "FRAME", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "MEMOIZE",
                         "PUT", "BINPUT", "LONG_BINPUT", "STOP"})


def unpacked(value: str, where: str, key: str) -> str:
    """LiveCodeBench's base64 of zlib of a pickled str, each step bounded before or while it decodes: the
    base64 by its length (3 bytes a 4 characters), the zlib stream by inflating at most the bound, the
    pickle by reading it only if it is one str."""
    if len(value) // 4 * 3 > MAX_RECORD_BYTES:
        raise BadRecord(where, key, over_bound("the base64 text decoded", len(value) // 4 * 3))
    try:
        data = _inflated(base64.b64decode(value))
        if data is None:
            raise BadRecord(where, key, over_bound("the inflated zlib stream") + " (a decompression bomb?)")
        opcode = next((op.name for op, _, _ in pickletools.genops(data) if op.name not in STR_OPCODES), None)
        if opcode is not None:
            raise BadRecord(where, key, f"expected a pickled str, got the pickle opcode {opcode}")
        text = DataOnly(io.BytesIO(data)).load()
    except BadRecord:
        raise
    except Exception as exc:  # any malformed packing is the record's fault
        raise BadRecord(where, key, f"expected JSON or base64 zlib pickle of JSON text ({exc})") from None
    if not isinstance(text, str):
        raise BadRecord(where, key, "expected the packed value to be JSON text")
    return text


def _inflated(data: bytes) -> bytes | None:
    """``data`` inflated, or None past the bound: a megabyte at a time, counted as it comes, so a bomb
    stops at the bound, never past it (one call asked for everything would make it all first)."""
    inflater, parts, size = zlib.decompressobj(), [], 0
    view = memoryview(data)
    for start in range(0, len(data), INFLATE_CHUNK):
        pending: bytes | memoryview = view[start:start + INFLATE_CHUNK]
        while True:
            part = inflater.decompress(pending, INFLATE_OUT)
            size += len(part)
            if size > MAX_RECORD_BYTES:
                return None
            parts.append(part)
            pending = inflater.unconsumed_tail
            if not pending and len(part) < INFLATE_OUT:  # a full part may leave output inside the inflater
                break
    if not inflater.eof:
        raise zlib.error("incomplete or truncated stream")
    return b"".join(parts)
