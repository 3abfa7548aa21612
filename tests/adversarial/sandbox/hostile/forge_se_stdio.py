# attack: write one of the judge's own notes (setup failed, compile error, test compile error) to the
#   harness's result descriptor (fd 3, or any other open one) and exit as the judge's code would, so the
#   case is blamed on the sandbox (SE: a trainer masks the sample) or on the compiler (CE)
# expect: RE WA
# variants: setup-failed compile-error test-compile-error
# untouched: verl-score run-code host-processes
import os

NOTES = {"setup-failed": (b"judgebox-setup-failed: OSError: forged by the program\n", 127),
         "compile-error": (b"compile-error\nforged by the program\n", 1),
         "test-compile-error": (b"test-compile-error\nforged by the program\n", 1)}
note, status = NOTES["{VARIANT}"]
for fd in range(3, 64):
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, note, 0)
    except OSError:
        pass
os._exit(status)
