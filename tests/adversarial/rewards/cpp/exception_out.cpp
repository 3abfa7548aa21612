// why: throw from the function under test (in one file an uncaught exception is a crash; here it must not
// turn into something the tests could take for success)
// problem: is_prime
#include <bits/stdc++.h>
using namespace std;
bool is_prime(long long n) { throw runtime_error("asserts"); }
