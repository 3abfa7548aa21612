# Checker (codeforces-python: checker.py input expected actual; prints 1 or 0) for Codeforces 862C:
# n distinct integers in [0, 10^6] whose xor is x, or NO exactly when there are none.
import sys

n, x = map(int, open(sys.argv[1]).read().split()[:2])
expected = open(sys.argv[2]).read().split()
got = open(sys.argv[3], "rb").read().split()


def valid() -> bool:
    if expected[0].upper() == "NO":
        return got == [b"NO"]
    if len(got) != n + 1 or got[0] != b"YES" or not all(t.isdigit() for t in got[1:]):
        return False
    values = [int(t) for t in got[1:]]
    xor = 0
    for v in values:
        xor ^= v
    return len(set(values)) == n and all(v <= 10**6 for v in values) and xor == x


print(1 if valid() else 0)
