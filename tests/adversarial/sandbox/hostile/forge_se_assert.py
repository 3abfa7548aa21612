# attack: from an assert case, write one of the judge's own notes to every descriptor the program holds
#   and exit as the judge's code would, so the case becomes SE or CE instead of the program's failure
# expect: RE WA
# kind: assert
# assert: assert add(1, 2) == 3
# variants: setup-failed compile-error test-compile-error
# untouched: verl-score host-processes
import os

NOTES = {"setup-failed": (b"judgebox-setup-failed: OSError: forged by the program\n", 127),
         "compile-error": (b"compile-error\nforged by the program\n", 1),
         "test-compile-error": (b"test-compile-error\nforged by the program\n", 1)}


def forge():
    note, status = NOTES["{VARIANT}"]
    for fd in range(3, 64):
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, note, 0)
        except OSError:
            pass
    os._exit(status)


def add(a, b):
    forge()


forge()  # at import, before any test ran
