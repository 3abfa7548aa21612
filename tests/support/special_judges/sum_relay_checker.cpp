// The checker of the tests' problem "hidden sum" (see sum_relay_interactor.cpp): it reads the interactor's
// output file, which holds the solution's final answer, and compares it with the jury's sum.
#include "testlib.h"
#include <string>

int main(int argc, char* argv[]) {
    registerTestlibCmd(argc, argv);
    std::string jury = ans.readToken();
    std::string said = ouf.readToken();  // a token however long or odd: anything but the sum is WA
    if (said != jury)
        quitf(_wa, "the sum is %s, the solution said %s", jury.c_str(), compress(said).c_str());
    if (!ouf.seekEof())
        quitf(_wa, "more than one answer");
    quitf(_ok, "the sum is %s", jury.c_str());
}
