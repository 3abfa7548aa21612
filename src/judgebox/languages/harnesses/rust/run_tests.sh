# judgebox: the tests' process of a Rust assert case: runs the tests' binary (fd 6) without the report
# and the token, and writes the pass (the payload and the run's token) only when it exited 0. libtest
# and a panicking main exit 101 when a test or an assertion failed (WA); the stubs exit 1 when the
# program's process failed them (RE).
/proc/self/fd/6 --test-threads=1 3>&- 4>&-
status=$?
if [ "$status" -eq 0 ]; then
    printf 'asserts\n' >&3 && head -c 32 <&4 >&3 && exit 0
    exit 70
fi
if [ "$status" -eq 101 ]; then
    printf 'assertion-failed\n' >&3
fi
exit 1
