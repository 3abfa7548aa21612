// A Polygon-style interactor of the tests' problem "hidden sum": the input holds n and n hidden integers;
// the solution asks "? i" (answered a_i) at most n times, then says "! s". The interactor only relays:
// it writes the solution's final answer to its output file (testlib's tout) and quits OK; the problem's
// checker (sum_relay_checker.cpp) judges that file against the expected answer.
#include "testlib.h"
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char* argv[]) {
    registerInteraction(argc, argv);
    int n = inf.readInt(1, 100, "n");
    std::vector<long long> a(n);
    for (auto& x : a)
        x = inf.readLong();
    std::cout << n << std::endl;
    for (int asked = 0;; asked++) {
        std::string what = ouf.readToken();
        if (what == "!") {
            tout << ouf.readToken() << std::endl;  // relayed as the solution wrote it: the checker decides
            quitf(_ok, "relayed after %d questions", asked);
        }
        if (what != "?")
            quitf(_pe, "expected ? or !, got %s", what.c_str());
        if (asked == n)
            quitf(_wa, "more than %d questions", n);
        int i = ouf.readInt(1, n, "i");
        std::cout << a[i - 1] << std::endl;
    }
}
