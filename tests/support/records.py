"""Records that pack more than they show, for the readers' bounds (tests/unit/test_reader_bounds.py) and the bombs
thrown at ``judgebox score`` (tests/adversarial/readers/test_reader_bombs.py)."""

from __future__ import annotations

import base64
import json
import struct
import zlib

MiB = 1 << 20


def packed_spaces(size: int) -> str:
    """LiveCodeBench's packing of a pickled str of ``size`` spaces (a whole number of MiB), made a MiB at
    a time: the test holds only what it packs to (1.4 MB for 1 GiB)."""
    packer = zlib.compressobj(9)
    parts = [packer.compress(b"\x80\x04X" + struct.pack("<I", size))]  # PROTO 4, BINUNICODE of size bytes
    chunk = b" " * MiB
    parts += [packer.compress(chunk) for _ in range(size // MiB)]
    parts += [packer.compress(b"\x94."), packer.flush()]  # MEMOIZE, STOP
    return base64.b64encode(b"".join(parts)).decode()


def lcb_record(ident: str, private: str = "") -> dict:
    public = json.dumps([{"input": "hi\n", "output": "hi\n", "testtype": "stdin"}])
    return {"question_title": ident, "question_content": "echo", "platform": "atcoder", "question_id": ident,
            "contest_id": "c", "contest_date": "2024-01-01T00:00:00", "starter_code": "", "difficulty": "easy",
            "public_test_cases": public, "private_test_cases": private, "metadata": "{}"}
