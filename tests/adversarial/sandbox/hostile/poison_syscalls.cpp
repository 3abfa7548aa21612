// language: cpp
// attack: with raw syscalls, lower one of the slot worker's (pid 1) rlimits, renice it, its process group or
//   its uid, pin it to one CPU, make it SCHED_IDLE, or its I/O idle, for every later run to inherit
// expect: AC
// variants: nofile nofile-tiny as cpu fsize stack nproc nice-pid nice-pgrp nice-user affinity idle
//   ioprio-pid ioprio-pgrp ioprio-user
// untouched: host-processes no-leftovers
#include <sched.h>
#include <cstdio>
#include <cstring>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static void report(const char *what, long rc) noexcept { if (rc == 0) fprintf(stderr, "%s worked\n", what); }

int main() {
    const char *v = "{VARIANT}";
    rlimit low{32, 32}, tiny{8, 8}, as{64 << 20, 64 << 20}, one{1, 1};
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    sched_param param{};
    if (!strcmp(v, "nofile")) report(v, syscall(SYS_prlimit64, 1, RLIMIT_NOFILE, &low, nullptr));
    if (!strcmp(v, "nofile-tiny")) report(v, syscall(SYS_prlimit64, 1, RLIMIT_NOFILE, &tiny, nullptr));
    if (!strcmp(v, "as")) report(v, syscall(SYS_prlimit64, 1, RLIMIT_AS, &as, nullptr));
    if (!strcmp(v, "cpu")) report(v, syscall(SYS_prlimit64, 1, RLIMIT_CPU, &one, nullptr));
    if (!strcmp(v, "fsize")) report(v, syscall(SYS_prlimit64, 1, RLIMIT_FSIZE, &low, nullptr));
    if (!strcmp(v, "stack")) report(v, syscall(SYS_prlimit64, 1, RLIMIT_STACK, &as, nullptr));
    if (!strcmp(v, "nproc")) report(v, syscall(SYS_prlimit64, 1, RLIMIT_NPROC, &one, nullptr));
    if (!strcmp(v, "nice-pid")) report(v, setpriority(PRIO_PROCESS, 1, 19));
    if (!strcmp(v, "nice-pgrp")) report(v, setpriority(PRIO_PGRP, 0, 19));
    if (!strcmp(v, "nice-user")) report(v, setpriority(PRIO_USER, getuid(), 19));
    if (!strcmp(v, "affinity")) report(v, sched_setaffinity(1, sizeof cpus, &cpus));
    if (!strcmp(v, "idle")) report(v, sched_setscheduler(1, SCHED_IDLE, &param));
    if (!strcmp(v, "ioprio-pid")) report(v, syscall(SYS_ioprio_set, 1, 1, 3 << 13));
    if (!strcmp(v, "ioprio-pgrp")) report(v, syscall(SYS_ioprio_set, 2, 0, 3 << 13));
    if (!strcmp(v, "ioprio-user")) report(v, syscall(SYS_ioprio_set, 3, getuid(), 3 << 13));
    puts("blocked");
    return 0;
}
