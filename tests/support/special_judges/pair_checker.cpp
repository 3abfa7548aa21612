// A testlib checker of the tests' problem "pair": given n, print two integers x y with x + y = n; full
// points for a pair as close as the jury's, half for any other. Each of testlib's verdicts is reachable.
#include "testlib.h"
#include <cstdlib>

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    long long n = inf.readLong();
    long long jx = ans.readLong(), jy = ans.readLong();
    if (jx + jy != n)  // the jury's own answer is wrong: the checker's inputs are, not the contestant
        quitf(_fail, "the answer %lld %lld does not sum to %lld", jx, jy, n);
    long long x = ouf.readLong(), y = ouf.readLong();  // anything but two integers: PE (testlib, ouf)
    if (x + y != n)
        quitf(_wa, "%lld + %lld is not %lld", x, y, n);
    if (std::llabs(x - y) > std::llabs(jx - jy))
        quitp(0.5, "a pair, not the closest one");
    quitf(_ok, "%lld + %lld = %lld", x, y, n);
}
