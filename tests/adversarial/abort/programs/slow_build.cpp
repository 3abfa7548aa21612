// Takes the compiler seconds (a constant evaluated at compile time in a long loop, under g++'s limit on
// such evaluations), so close(cancel=True) lands while the build runs.
#include <cstdio>
constexpr long slow() {
    long s = 0;
    for (long i = 0; i < 30000; ++i)
        for (long j = 0; j < 100; ++j) s = (s * 31 + i + j) % 1000003;
    return s;
}
constexpr long value = slow();
int main() { std::printf("%ld\n", value); }
