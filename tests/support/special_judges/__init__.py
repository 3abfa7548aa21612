"""Checker programs and interactors of the tests' own problems, and where testlib.h is.

testlib.h is third-party (MIT): a copy with its license lives in ``tests/testlib``; ``$JUDGEBOX_TESTLIB``, when
set, names another folder to test against.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
IN_REPOSITORY = HERE.parents[1] / "testlib"


def find_testlib() -> str:
    """The folder holding testlib.h: ``$JUDGEBOX_TESTLIB`` when set, else the repository's copy."""
    folder = os.environ.get("JUDGEBOX_TESTLIB") or str(IN_REPOSITORY)
    if not (Path(folder) / "testlib.h").is_file():
        raise FileNotFoundError(f"no testlib.h in {folder} (JUDGEBOX_TESTLIB names the folder)")
    return _outside_the_work_folder(folder)


@functools.cache
def _outside_the_work_folder(folder: str) -> str:
    """A read path under /tmp is hidden in the sandbox by the run's own /tmp (its work folder), so a checkout
    under /tmp lends the sandbox a copy of the folder in /var/tmp (made once per test session)."""
    if not os.path.realpath(folder).startswith("/tmp/"):
        return folder
    copy = tempfile.mkdtemp(prefix="judgebox-testlib-", dir="/var/tmp")
    shutil.copytree(folder, copy, dirs_exist_ok=True)
    for top, _folders, files in os.walk(copy):
        os.chmod(top, 0o755)
        for name in files:
            os.chmod(os.path.join(top, name), 0o644)
    atexit.register(shutil.rmtree, copy, True)
    return copy


def source(name: str) -> str:
    return (HERE / name).read_text()


def program(name: str, protocol: str = "testlib") -> dict:
    """A checker or interactor setting of the test data for the program in ``name``."""
    language = {".cpp": "cpp", ".py": "python"}[Path(name).suffix]
    return {"language": language, "code": source(name), "protocol": protocol}


# The honest solution of guess_interactor: binary search on its < and > answers.
BINARY_SEARCH = """
lo, hi = 1, 10**6
while True:
    mid = (lo + hi) // 2
    print("?", mid, flush=True)
    answer = input()
    if answer == "=":
        print("!", mid, flush=True)
        break
    if answer == "<":
        hi = mid - 1
    else:
        lo = mid + 1
"""


# The problem "hidden sum" (sum_relay_interactor.cpp, sum_relay_checker.cpp): testlib's two phases, an
# interactor that relays the solution's answer to its output file and a checker that judges that file.
HIDDEN_SUM = """
n = int(input())
total = 0
for i in range(1, n + 1):
    print("?", i, flush=True)
    total += int(input())
print("!", total, flush=True)
"""


def hidden_sum(*arrays: list[int], checker: bool = True, **settings: object) -> dict:
    """The test data of "hidden sum" for these arrays, with its checker unless ``checker=False``; ``settings``
    replace or add test-data settings (another interactor, a time limit)."""
    data: dict = {"inputs": [f"{len(a)}\n{' '.join(map(str, a))}\n" for a in arrays],
                  "outputs": [f"{sum(a)}\n" for a in arrays],
                  "interactor": program("sum_relay_interactor.cpp"), "time_limit": 2}
    if checker:
        data["checker"] = program("sum_relay_checker.cpp")
    data.update(settings)
    return data
