"""The cheaper per-case path keeps runs apart: each run is forked from the zygote once its request is
read, without the interpreter's after-fork hooks (``kernel.lean_fork``), its descriptors and rlimits
worked out before the fork (``Confinement.plan_run``). Nothing one run does may reach the next one on
the same slot: what it wrote, its module state, its random numbers, its descriptors, its limits."""

from __future__ import annotations

import pytest

import judgebox
from judgebox import Case, Limits, Verdict
from judgebox.sandbox.slot import Command, PythonProgram


@pytest.fixture(scope="module")
def one_slot():
    with judgebox.Judge(slots=1, dedupe=None) as judge:  # every run here follows the last one on that slot
        yield judge


def python_output(judge, code: str) -> str:
    outcome = judge._pool.submit(PythonProgram(code), b"", Limits()).result()
    assert outcome.exit_code == 0, (outcome.system_error, outcome.stderr)
    return outcome.stdout.decode()


def command(judge, argv, limits=None):
    return judge._pool.submit(Command(tuple(argv)), b"", limits or Limits()).result()


def test_what_a_run_wrote_is_gone_for_the_next_run(one_slot):
    dirty = ("import os\n"
             "os.makedirs('a/b/c', exist_ok=True)\n"
             "open('a/b/c/f', 'w').write('x')\nopen('top', 'w').write('y')\n"
             "open('/dev/shm/shared', 'w').write('z')\n"
             "os.chmod('a', 0)\nos.chmod('.', 0o500)\n"
             "print('dirty')")
    look = ("import os, stat\n"
            "print(sorted(os.listdir('.')), sorted(os.listdir('/dev/shm')), oct(stat.S_IMODE(os.stat('.').st_mode)))\n"
            "open('mine', 'w').write('ok')\n")
    for _ in range(3):
        assert python_output(one_slot, dirty) == "dirty\n"
        assert python_output(one_slot, look) == "[] [] 0o700\n"
        assert python_output(one_slot, look) == "[] [] 0o700\n"  # a run that wrote one file: wiped too


def test_module_state_and_builtins_do_not_carry_over(one_slot):
    change = ("import sys, builtins, os, json\n"
              "sys.setrecursionlimit(77)\nbuiltins.print = lambda *a, **k: None\n"
              "os.environ['LEFT'] = '1'\njson.dumps = None\nsys.modules['leftover'] = sys\n"
              "sys.stdout.write('changed\\n')")
    look = ("import sys, builtins, os, json\n"
            "print(sys.getrecursionlimit() != 77, builtins.print is print, 'LEFT' in os.environ,"
            " json.dumps is None, 'leftover' in sys.modules)")
    assert python_output(one_slot, change) == "changed\n"
    assert python_output(one_slot, look) == "True True False False False\n"


def test_each_run_gets_random_numbers_of_its_own(one_slot):
    """The fork hook that reseeds ``random`` is skipped with the others; the run reseeds itself."""
    draws = {python_output(one_slot, "import random\nprint(random.getrandbits(64))") for _ in range(4)}
    assert len(draws) == 4


def test_threads_work_in_a_run_forked_without_the_hooks(one_slot):
    code = ("import threading\nout = []\n"
            "t = threading.Thread(target=lambda: out.append(threading.current_thread().name)); t.start(); t.join()\n"
            "print(threading.current_thread() is threading.main_thread(), out[0] != 'MainThread',"
            " threading.active_count())")
    assert python_output(one_slot, code) == "True True 1\n"


def test_an_exec_run_holds_only_its_own_descriptors_and_limits(one_slot):
    # fd 3 is ls's own listing of /proc/self/fd; the report, token, tests and control channel never reach it
    listing = command(one_slot, ["/bin/ls", "/proc/self/fd"])
    assert listing.exit_code == 0 and set(listing.stdout.split()) <= {b"0", b"1", b"2", b"3"}, listing.stdout
    limits = command(one_slot, ["/bin/sh", "-c", "ulimit -n; ulimit -f"], Limits(open_files=40))
    assert limits.stdout.split()[0] == b"40", limits.stdout
    again = command(one_slot, ["/bin/sh", "-c", "ulimit -n"])
    assert again.stdout.split()[0] == str(Limits().open_files).encode()  # the last run's limits are not kept


def test_a_compiled_programs_verdicts_are_unchanged(one_slot):
    code = "#include <cstdio>\nint main() { int a, b; scanf(\"%d %d\", &a, &b); printf(\"%d\\n\", a + b); }\n"
    result = one_slot.judge(code, [Case.stdio("1 2\n", "3\n"), Case.stdio("2 2\n", "5\n")], "cpp")
    assert [c.verdict for c in result.cases] == [Verdict.AC, Verdict.WA]
