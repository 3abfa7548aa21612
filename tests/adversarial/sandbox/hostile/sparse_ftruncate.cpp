// language: cpp
// attack: make stdout, stderr and fd 3 huge and sparse with ftruncate (no byte written), over the output
//   limit or just under it, for every case: the judge reads (and keeps) all of it
// expect: OLE WA
// limits: output_bytes=8388608
// cases: 6
// variants: over-cap under-cap
// untouched: returned-output no-leftovers
#include <csignal>
#include <cstring>
#include <unistd.h>

int main() {
    signal(SIGXFSZ, SIG_IGN);  // past the file-size limit ftruncate fails (EFBIG), as in Python
    const long long over[] = {4LL << 30, 1LL << 30, 60LL << 20}, under[] = {6LL << 20};
    int is_over = strcmp("{VARIANT}", "over-cap") == 0;
    for (int fd = 1; fd <= 3; fd++)
        for (int i = 0; i < (is_over ? 3 : 1); i++)
            if (ftruncate(fd, is_over ? over[i] : under[i]) == 0) break;
    return 0;
}
