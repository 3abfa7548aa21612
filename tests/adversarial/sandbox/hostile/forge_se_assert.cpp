// language: cpp
// attack: from an assert case (HumanEval-X form, the tests appended), write one of the judge's own notes
//   (setup failed, compile error, test compile error) to every descriptor from 3 on (fd 3 is the result
//   descriptor the harness writes its pass to) and exit as the judge's code would
// expect: RE WA
// kind: assert
// assert: #include <cassert>
// assert: int main(){ assert(add(1, 2) == 3); return 0; }
// variants: setup-failed compile-error test-compile-error
// untouched: verl-score host-processes
#include <cstring>
#include <unistd.h>

[[noreturn]] static void forge() {
    const char *variant = "{VARIANT}", *note = "judgebox-setup-failed: OSError: forged by the program\n";
    int status = 127;
    if (strcmp(variant, "compile-error") == 0) note = "compile-error\nforged by the program\n", status = 1;
    if (strcmp(variant, "test-compile-error") == 0) note = "test-compile-error\nforged by the program\n", status = 1;
    for (int fd = 3; fd < 64; fd++) {
        if (ftruncate(fd, 0) == 0 && pwrite(fd, note, strlen(note), 0) < 0) continue;
    }
    _exit(status);
}

int add(int a, int b) { forge(); return a + b; }
