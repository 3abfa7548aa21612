"""The sandbox's limits and plumbing, through real runs: output, stdin, memory, time, processes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

import judgebox
from judgebox import Case, Limits, Verdict
from judgebox.sandbox.slot import Command

MiB = 1024 * 1024


def run_command(judge, argv, stdin=b"", limits=None):
    return judge._pool.submit(Command(tuple(argv)), stdin, limits or Limits()).result()


class TestOutput:
    def test_ten_megabytes_are_checked_whole_and_returned_up_to_the_returned_bound(self, judge):
        line = "0123456789" * 10
        code = f"import sys\nfor _ in range(100_000): sys.stdout.write({line!r} + '\\n')"
        result = judge.judge(code, [Case.stdio("", (line + "\n") * 100_000)], checker="exact")
        case = result.cases[0]
        assert result.verdict is Verdict.AC
        assert len(case.stdout_raw) == MiB and case.stdout_length == 101 * 100_000 and case.stdout_truncated
        whole = judge.judge(code, [Case.stdio("", (line + "\n") * 100_000)], checker="exact",
                            limits=Limits(returned_output_bytes=64 * MiB)).cases[0]
        assert len(whole.stdout_raw) == 101 * 100_000 and not whole.stdout_truncated

    def test_past_the_cap_is_ole_with_the_first_part_returned(self, judge):
        code = "import sys\nwhile True: sys.stdout.write('y' * 65536)"
        result = judge.judge(code, [Case.stdio("", "")], limits=Limits(output_bytes=MiB))
        case = result.cases[0]
        assert case.verdict is Verdict.OLE and case.stdout_truncated and case.stdout_length > MiB
        assert case.stdout_raw == b"y" * MiB

    def test_default_cap_stops_a_200_megabyte_flood(self, judge):
        code = "import sys\nfor _ in range(200): sys.stdout.buffer.write(b'z' * (1 << 20))"
        case = judge.judge(code, [Case.stdio("", "")], limits=Limits(returned_output_bytes=64 * MiB)).cases[0]
        assert case.verdict is Verdict.OLE and len(case.stdout_raw) == 64 * MiB and case.stdout_truncated

    def test_stderr_flood_does_not_hang(self, judge):
        code = "import sys\nwhile True: sys.stderr.write('e' * 4096)"
        case = judge.judge(code, [Case.stdio("", "")], limits=Limits(cpu_time=2, output_bytes=4 * MiB)).cases[0]
        assert case.verdict is Verdict.OLE and case.stderr_truncated

    def test_non_utf8_output_is_kept_raw_and_decoded_with_replacement(self, judge):
        case = judge.judge("import sys\nsys.stdout.buffer.write(b'ok\\xff\\xfe\\n')", [Case.stdio("", "ok")]).cases[0]
        assert case.stdout_raw == b"ok\xff\xfe\n"
        assert case.stdout == "ok\ufffd\ufffd\n"

    def test_exec_program_gets_default_sigpipe_and_sigxfsz(self, judge):
        outcome = run_command(judge, ["/usr/bin/yes"], limits=Limits(output_bytes=MiB))
        assert outcome.output_limit_exceeded and outcome.signal == signal.SIGXFSZ


def test_stdin_is_a_regular_file(judge):
    code = "import os, stat\nst = os.fstat(0)\nprint(stat.S_ISREG(st.st_mode), os.read(0, st.st_size).decode())"
    case = judge.judge(code, [Case.stdio("hello world", "True hello world")]).cases[0]
    assert case.verdict is Verdict.AC, case.stdout


class TestMemory:
    def test_memory_bomb_is_mle(self, judge):
        case = judge.judge("x = bytearray(1 << 30)\nprint(len(x))", [Case.stdio("", "")],
                           limits=Limits(memory_mb=256)).cases[0]
        assert case.verdict is Verdict.MLE
        assert case.memory_bytes >= 200 * MiB

    @pytest.mark.slow  # about 3 s on this busy 2-core machine (384 MiB of page cache written first)
    @pytest.mark.skipif(os.geteuid() != 0, reason="putting a process of ours in a slot's cgroup needs root")
    def test_page_cache_left_in_the_slot_does_not_loosen_the_limit(self, tmp_path):
        """Earlier runs leave page cache charged to the slot (a build's headers, a toolchain read for the first
        time). The kernel reclaims it before it kills, so were it counted as the zygote's own, a program would
        get its limit plus the cache."""
        with judgebox.Judge(slots=1) as judge:
            memory_group = judge._pool.slots[0]._cgroups.accounting["memory"][1]
            big = tmp_path / "cold"
            with open(big, "wb") as f:
                for _ in range(384):
                    f.write(os.urandom(MiB))
                f.flush()
                os.fsync(f.fileno())
                os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)  # cold: a read charges the reader
            reader = ("import os, sys\nopen(sys.argv[1] + '/cgroup.procs', 'w').write(str(os.getpid()))\n"
                      "f = open(sys.argv[2], 'rb')\nwhile f.read(1 << 20): pass\n")
            subprocess.run([sys.executable, "-c", reader, memory_group, str(big)], check=True)
            with open(os.path.join(memory_group, "memory.stat")) as f:
                cache = dict(line.split() for line in f)
            assert int(cache["active_file"]) + int(cache["inactive_file"]) >= 256 * MiB  # the slot holds the cache
            touch = "x = bytearray(512 << 20)\nx[::4096] = b'1' * len(x[::4096])\nprint(1)"
            case = judge.judge(touch, [Case.stdio("", "1")], limits=Limits(memory_mb=256)).cases[0]
            assert case.verdict is Verdict.MLE, case

    def test_peak_memory_is_reported(self, judge):
        case = judge.judge("x = bytearray(100 << 20)\nx[::4096] = b'1' * len(x[::4096])\nprint(1)",
                           [Case.stdio("", "1")]).cases[0]
        assert case.verdict is Verdict.AC and 100 * MiB <= case.memory_bytes < 300 * MiB

    def test_numpy_with_threads_runs_under_512_mib(self, judge):
        code = ("import numpy as np\na = np.random.rand(400, 400)\nprint(round(float((a @ a.T).trace()) > 0))")
        assert judge.judge(code, [Case.stdio("", "1")], limits=Limits(memory_mb=512)).verdict is Verdict.AC

    def test_cpp_threads_run_under_512_mib(self, judge):
        source = (b"#include <thread>\n#include <vector>\n#include <cstdio>\nint main(){std::vector<std::thread> t;"
                  b"int s[8]={0};for(int i=0;i<8;i++)t.emplace_back([&s,i]{s[i]=i;});for(auto&x:t)x.join();"
                  b"int r=0;for(int v:s)r+=v;printf(\"%d\\n\",r);}")
        outcome = run_command(judge, ["/bin/sh", "-c", "g++ -O1 -pthread -x c++ - -o /tmp/a && /tmp/a"], source,
                              Limits(memory_mb=512, cpu_time=30))
        assert (outcome.exit_code, outcome.stdout) == (0, b"28\n"), outcome.stderr[-2000:]

    def test_jvm_with_threads_runs_under_512_mib(self, judge):
        source = (b"public class Main { public static void main(String[] a) throws Exception {"
                  b" Thread[] t = new Thread[8];"
                  b" for (int i = 0; i < 8; i++) { t[i] = new Thread(() -> {}); t[i].start(); }"
                  b" for (Thread x : t) x.join(); System.out.println(\"ok \" + Runtime.getRuntime().maxMemory()); } }")
        outcome = run_command(judge, ["/bin/sh", "-c", "cat > /tmp/Main.java && java /tmp/Main.java"], source,
                              Limits(memory_mb=512, cpu_time=30))
        assert outcome.exit_code == 0 and outcome.stdout.startswith(b"ok "), outcome.stderr[-2000:]
        assert int(outcome.stdout.split()[1]) <= 512 * MiB  # the JVM sized its heap from the cgroup limit

    def test_node_with_worker_threads_runs_under_512_mib(self, judge):
        script = ("const {Worker}=require('worker_threads');let n=0;for(let i=0;i<4;i++){"
                  "new Worker('1',{eval:true}).on('exit',()=>{if(++n==4)console.log('ok')})}")
        outcome = run_command(judge, ["/usr/bin/node", "-e", script], limits=Limits(memory_mb=512, cpu_time=30))
        assert (outcome.exit_code, outcome.stdout) == (0, b"ok\n"), outcome.stderr[-2000:]


class TestTime:
    def test_busy_loop_is_tle_on_cpu_time(self, judge):
        case = judge.judge("while True: pass", [Case.stdio("", "")], limits=Limits(cpu_time=0.5)).cases[0]
        assert case.verdict is Verdict.TLE and "CPU" in case.message and case.cpu_time >= 0.45

    def test_sleeper_is_caught_by_the_wall_clock_backstop(self, judge):
        case = judge.judge("import time\ntime.sleep(60)", [Case.stdio("", "")],
                           limits=Limits(cpu_time=1, wall_time=1.5)).cases[0]
        assert case.verdict is Verdict.TLE and "wall" in case.message and case.cpu_time < 0.5

    @pytest.mark.slow  # about 3 s in all on this busy 2-core machine
    def test_a_busy_machine_does_not_turn_a_correct_program_into_tle(self, judge):
        # ~0.4 s of CPU under a 1 s CPU limit, while the host runs more busy processes than it has cores
        code = "s = 0\nfor i in range(6_000_000): s += i\nprint(s)"
        hogs = [subprocess.Popen(["/usr/bin/python3", "-c", "while True: pass"]) for _ in range(2 * os.cpu_count())]
        try:
            result = judge.judge(code, [Case.stdio("", str(sum(range(6_000_000))))] * 4,
                                 limits=Limits(cpu_time=1.5, wall_time=60))
        finally:
            for hog in hogs:
                hog.kill()
                hog.wait()
        assert [c.verdict for c in result.cases] == [Verdict.AC] * 4


def test_process_limit_stops_thread_creation(judge):
    code = ("import threading, time\nn = 0\ntry:\n    for _ in range(200):\n"
            "        threading.Thread(target=time.sleep, args=(5,), daemon=True).start(); n += 1\n"
            "except RuntimeError:\n    print('stopped at', n)")
    case = judge.judge(code, [Case.stdio("", "")], limits=Limits(processes=16, cpu_time=2)).cases[0]
    assert case.stdout.startswith("stopped at") and int(case.stdout.split()[-1]) < 16


def test_file_size_limit(judge):
    code = "try:\n    open('big', 'wb').write(b'x' * (4 << 20))\nexcept OSError as e:\n    print(e.errno)"
    case = judge.judge(code, [Case.stdio("", "27")], limits=Limits(file_size_bytes=MiB, output_bytes=1024)).cases[0]
    assert case.verdict is Verdict.AC, (case.stdout, case.stderr)


def test_work_folder_is_private_and_wiped_between_runs(judge):
    write = "open('/tmp/mark', 'w').write('x')\nimport os\nprint(os.getcwd(), sorted(os.listdir('.')))"
    first = judge.judge(write, [Case.stdio("", "/tmp ['mark']")])
    assert first.verdict is Verdict.AC, first.cases[0].stdout
    check = "import os\nprint(sorted(os.listdir('/tmp')), sorted(os.listdir('/dev/shm')))"
    assert judge.judge(check, [Case.stdio("", "[] []")] * 4).verdict is Verdict.AC


def test_killing_a_slot_mid_run_is_se_and_the_slot_is_replaced():
    with judgebox.Judge(slots=1) as judge:
        slot = judge._pool.slots[0]
        old_pid = slot.pid
        threading.Timer(0.5, os.kill, (old_pid, signal.SIGKILL)).start()
        started = time.monotonic()
        result = judge.judge("import time\ntime.sleep(30)", [Case.stdio("", "")], limits=Limits(cpu_time=20))
        assert result.verdict is Verdict.SE and time.monotonic() - started < 10
        assert "died" in result.message
        assert slot.pid != old_pid
        assert judge.judge("print(2)", [Case.stdio("", "2")]).verdict is Verdict.AC


def test_trusted_mode_is_an_explicit_opt_in(tmp_path):
    with judgebox.Judge(judgebox.SandboxConfig(isolation="none"), slots=1) as judge:
        assert judge.isolation()["seccomp"] is False
        assert judge.judge("print(input())", [Case.stdio("x", "x")]).verdict is Verdict.AC


def test_missing_required_layer_refuses_with_the_reason():
    config = judgebox.SandboxConfig(required=frozenset({"user_namespace", "seccomp"}))
    with pytest.raises(judgebox.IsolationUnavailable, match="user_namespace") as info:
        judgebox.Judge(config, slots=1)
    assert info.value.missing == frozenset({"user_namespace"})


def test_isolation_report_lists_active_layers():
    report = judgebox.isolation_report()
    assert report["ok"] and report["missing"] == []
    assert report["layers"]["landlock"] >= 1 and report["layers"]["seccomp"] is True


def test_std_streams_reachable_by_their_device_names(judge):
    code = "print(open('/dev/stdin').read().strip(), file=open('/dev/stdout', 'w'))"
    assert judge.judge(code, [Case.stdio("via devices", "via devices")]).verdict is Verdict.AC


def test_a_program_that_ignores_failed_writes_is_stopped_at_the_output_cap(judge):
    code = ("import os\nwhile True:\n    try:\n        os.write(1, b'x' * 65536)\n    except OSError:\n        pass")
    case = judge.judge(code, [Case.stdio("", "")], limits=Limits(cpu_time=20, output_bytes=MiB)).cases[0]
    assert case.verdict is Verdict.OLE and case.cpu_time < 5


def test_files_go_in_and_come_back_confined_to_the_work_folder(judge):
    import base64

    from judgebox.sandbox.slot import PythonProgram

    def b64(data):
        return base64.b64encode(data).decode()

    code = ("import os\nprint(open('in.txt').read(), open('/tmp/sub/x').read())\n"
            "open('out.txt', 'w').write('made')\nos.symlink('/etc/passwd', 'link')")
    outcome = judge._pool.submit(PythonProgram(code), b"", Limits(), {"in.txt": b64(b"given"),
                                                                     "/tmp/sub/x": b64(b"X")},
                                ("out.txt", "link", "missing")).result()
    assert outcome.stdout == b"given X\n"
    assert outcome.files == {"out.txt": b64(b"made")}  # the link out of the folder is not followed
    for path in ("../up", "/etc/x"):  # absolute paths elsewhere: tests/server/test_server_abs_paths.py
        refused = judge._pool.submit(PythonProgram("print(1)"), b"", Limits(), {path: b64(b"x")}).result()
        assert "not allowed" in refused.system_error


class TestSplitCommand:
    """The two-process run that split assert harnesses build on (languages/split.py)."""

    PROGRAM_SIDE = ("echo from-program >&7; ls /proc/self/fd | tr '\\n' ' '; "
                    "cat /proc/$PPID/status >/dev/null 2>&1 && echo READ-TESTS; "
                    "kill -CONT $PPID 2>/dev/null && echo SIGNALLED-TESTS; sleep 30 & exit 0")
    TESTS_SIDE = ("read x <&7; echo \"got $x\" >&2; cat <&6 >&2; { printf 'asserts\\n'; cat <&4; } >&3; "
                  "exit ${STATUS:-0}")

    def split(self, judge, status: int = 0):
        from judgebox.sandbox.slot import SplitCommand

        job = SplitCommand(("/bin/sh", "-c", self.PROGRAM_SIDE),
                           ("/bin/sh", "-c", f"STATUS={status}; {self.TESTS_SIDE}"), "the tests\n")
        return judge._pool.submit(job, b"", Limits(cpu_time=2, wall_time=10)).result()

    def test_the_sides_talk_and_only_the_tests_side_holds_the_judges_descriptors(self, judge):
        outcome = self.split(judge)
        assert outcome.token_ok and outcome.exit_code == 0 and outcome.wall_time < 10  # the sleeper was killed
        assert outcome.stderr == b"got from-program\nthe tests\n"
        fds = set(outcome.stdout.decode().split("\n")[0].split())
        assert fds <= {"0", "1", "2", "3", "5", "7"}, fds  # 3 is ls's own; never 4, 6 or 8
        assert b"READ-TESTS" not in outcome.stdout and b"SIGNALLED-TESTS" not in outcome.stdout

    def test_the_runs_status_is_the_tests_sides(self, judge):
        assert self.split(judge, status=3).exit_code == 3


def test_a_slot_whose_worker_was_changed_from_outside_runs_nothing_more():
    """The second wall behind seccomp: were the worker's limits changed anyway (here by root, from the
    host), its next spare sees it, the job goes to a fresh slot, and the answer is the honest one."""
    with judgebox.Judge(slots=1, dedupe=None) as fresh:  # the same program must run every time
        code = "import os\nprint(os.getpriority(os.PRIO_PROCESS, 0))"
        assert fresh.judge(code, [Case.stdio("", "0")]).verdict is Verdict.AC
        slot = fresh._pool.slots[0]
        outer = slot.pid
        inner = int(open(f"/proc/{outer}/task/{outer}/children").read().split()[0])  # the zygote
        os.setpriority(os.PRIO_PROCESS, inner, 19)  # every run forked from it would be starved
        for _ in range(3):  # the spare forked before the change, then the ones after it
            result = fresh.judge(code, [Case.stdio("", "0")])
            assert result.verdict is Verdict.AC, result.cases[0].stdout
        assert slot.pid != outer  # replaced
