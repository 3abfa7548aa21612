"""Files a caller fetches after a run (``/run_code``'s ``fetch_files``): what the program does to them can
neither make the run an SE nor carry them into the next run on the slot, another submission's.

- A file the program made unreadable (``chmod 0``) is left out, not a PermissionError in the zygote (an SE the
  program chose, which also left the work folder unwiped).
- A copy that fails still wipes the work folder and ``/dev/shm``.
- The base64 of a fetched file is made in a child of the zygote, not in its heap: freed there, its bytes
  would be in the memory of every later run forked from it, readable through ``/proc/self/mem``.
"""

from __future__ import annotations

import pytest

import judgebox

CHMOD_ZERO = "import os\nopen('out.txt', 'w').write('hi')\nos.chmod('out.txt', 0)\nprint('done')\n"
DIRTY = ("import os\nopen('secret.txt', 'w').write('answer 42')\nopen('/dev/shm/x', 'w').write('y')\n"
         "open('out.txt', 'w').write('hi')\nos.chmod('out.txt', 0)\n")
LOOK = "import os\nprint(sorted(os.listdir('.')), sorted(os.listdir('/dev/shm')))\n"
FIFO = "import os\nos.mkfifo('out.txt')\nprint('done')\n"
# counts 96-character windows of the base64 of a marker in its own memory (the marker never in its source)
SCANNER = r'''
import base64
raw = bytes(reversed(b';rewsna-terces-xqz')) * 4
b64 = base64.b64encode(raw * 2)[:96]
hits = 0
for line in open('/proc/self/maps'):
    parts = line.split()
    lo, hi = (int(x, 16) for x in parts[0].split('-'))
    if 'r' not in parts[1] or (len(parts) > 5 and parts[5].startswith('/')) or hi - lo > 256 << 20:
        continue
    try:
        with open('/proc/self/mem', 'rb', 0) as m:
            m.seek(lo)
            data = m.read(hi - lo)
    except OSError:
        continue
    hits += data.count(b64)
print(hits)
'''


@pytest.fixture(scope="module")
def judge():
    with judgebox.Judge(slots=1, dedupe=False) as one_slot:  # one slot: consecutive runs share a zygote
        yield one_slot


def _run(judge, code: str, fetch: tuple[str, ...] = ()) -> dict:
    (result,) = judge.run_code([{"code": code, "language": "python", "fetch_files": list(fetch)}])
    return result.response


def test_a_file_the_program_made_unreadable_is_not_fetched_and_no_se(judge):
    response = _run(judge, CHMOD_ZERO, ("out.txt",))
    assert response["status"] == "Success", response
    assert response["run_result"]["stdout"] == "done\n" and response["files"] == {}


def test_a_fifo_left_at_a_fetched_path_is_skipped_at_once(judge):
    response = _run(judge, FIFO, ("out.txt",))
    assert response["status"] == "Success" and response["files"] == {}, response


def test_the_next_run_on_the_slot_finds_nothing_a_fetching_run_left(judge):
    _run(judge, DIRTY, ("out.txt", "secret.txt"))
    assert _run(judge, LOOK)["run_result"]["stdout"] == "[] []\n"


def test_a_fetched_file_is_not_in_the_memory_of_the_next_run(judge):
    baseline = int(_run(judge, SCANNER)["run_result"]["stdout"])
    for count in (148, 1333):  # 2.6 KB, then 24 KB of marker text
        response = _run(judge, f"open('out.bin', 'w').write('zqx-secret-answer;' * {count})", ("out.bin",))
        assert response["files"], response
    leaked = int(_run(judge, SCANNER)["run_result"]["stdout"]) - baseline
    assert leaked <= 0, f"{leaked} windows of the previous run's fetched file are in this run's memory"


MARK = ("import os\nos.utime('.', ns=(123456789, 987654321))\n"
        "try:\n    os.setxattr('.', 'user.judgebox', b'left for the next run')\nexcept OSError:\n    pass\n")
READ = ("import os\nst = os.stat('.')\ntry:\n    x = os.listxattr('.')\nexcept OSError:\n    x = []\n"
        "print(st.st_atime_ns, st.st_mtime_ns, x)\n")


def test_the_work_folder_itself_carries_no_mark_to_the_next_run(judge):
    """Its times and extended attributes were kept by the wipe: about 64 bits from a run to the next."""
    _run(judge, MARK)
    seen = _run(judge, READ)["run_result"]["stdout"]
    assert "123456789" not in seen and "987654321" not in seen and "user.judgebox" not in seen, seen
