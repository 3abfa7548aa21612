// A testlib interactor of the tests' problem "guess": the input holds a secret number in [1, 10^6]; the
// solution asks "? x" (answered "<", ">" or "=": how the secret compares to x) and ends with "! x".
// At most 25 questions.
#include "testlib.h"
#include <string>

int main(int argc, char* argv[]) {
    registerInteraction(argc, argv);
    int secret = inf.readInt(1, 1000000, "secret");
    for (int asked = 0; asked <= 25; asked++) {
        std::string what = ouf.readToken();
        if (what != "?" && what != "!")
            quitf(_pe, "expected ? or !, got %s", what.c_str());
        long long x = ouf.readLong();
        if (what == "!") {
            if (x == secret)
                quitf(_ok, "guessed %d in %d questions", secret, asked);
            quitf(_wa, "guessed %lld, the number was %d", x, secret);
        }
        if (asked == 25)
            quitf(_wa, "more than 25 questions");
        std::cout << (secret < x ? "<" : secret > x ? ">" : "=") << std::endl;
    }
}
