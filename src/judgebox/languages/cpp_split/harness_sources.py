"""The harness's own C and C++ sources (``languages/harnesses/cpp``): the wire helpers both sides include
and the tests' ``main``, read once; the builds that use them have them in their cache keys.
"""

from __future__ import annotations

import functools
from pathlib import Path

HARNESS = Path(__file__).parent.parent / "harnesses" / "cpp"
HEADER = "judgebox_split.hpp"
C_HEADER = "judgebox_split.h"
TESTS_MAIN = "tests_main.c"


@functools.cache
def harness_source(name: str) -> str:
    return (HARNESS / name).read_text(encoding="utf-8")
