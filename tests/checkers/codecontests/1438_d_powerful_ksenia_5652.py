# Checker (codeforces-python) for Codeforces 1438D: at most n operations (three distinct indices, each
# set to the xor of the three) that make all elements equal, or NO exactly when there are none.
import sys

data = open(sys.argv[1]).read().split()
n, a = int(data[0]), [int(t) for t in data[1:]]
expected = open(sys.argv[2]).read().split()
got = open(sys.argv[3], "rb").read().split()


def valid() -> bool:
    if expected[0].upper() == "NO":
        return got == [b"NO"]
    if len(got) < 2 or got[0] != b"YES" or not all(t.isdigit() for t in got[1:]):
        return False
    m = int(got[1])
    ops = [int(t) for t in got[2:]]
    if m > n or len(ops) != 3 * m:
        return False
    for at in range(0, len(ops), 3):
        i, j, k = ops[at:at + 3]
        if len({i, j, k}) != 3 or not all(1 <= p <= n for p in (i, j, k)):
            return False
        a[i - 1] = a[j - 1] = a[k - 1] = a[i - 1] ^ a[j - 1] ^ a[k - 1]
    return len(set(a)) == 1


print(1 if valid() else 0)
