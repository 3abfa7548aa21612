// why: write replies of its own on the channel: a bool that is neither true nor false (byte 2), then
// frames that claim more bytes than they hold, then a huge length
// problem: is_prime
#include <bits/stdc++.h>
#include <unistd.h>
using namespace std;
bool is_prime(long long n) {
    unsigned char msg[] = {2, 0, 0, 0, 0, 2};  // length 2: status 0, bool 2
    if (write(7, msg, sizeof msg) < 0) {}
    unsigned char lie[] = {9, 0, 0, 0, 0, 1};
    if (write(7, lie, sizeof lie) < 0) {}
    unsigned char huge[] = {0xff, 0xff, 0xff, 0xff};
    if (write(7, huge, sizeof huge) < 0) {}
    pause();
    return false;
}
