# Checker (codeforces-python) for Codeforces 925C: a permutation of b whose prefix xors strictly increase,
# or No exactly when there is none.
import sys
from collections import Counter

data = open(sys.argv[1]).read().split()
n, b = int(data[0]), [int(t) for t in data[1:]]
expected = open(sys.argv[2]).read().split()
got = open(sys.argv[3], "rb").read().split()


def valid() -> bool:
    if expected[0].lower() == "no":
        return len(got) == 1 and got[0].lower() == b"no"
    if len(got) != n + 1 or got[0].lower() != b"yes" or not all(t.isdigit() for t in got[1:]):
        return False
    order = [int(t) for t in got[1:]]
    if Counter(order) != Counter(b):
        return False
    prefix, last = 0, -1
    for value in order:
        prefix ^= value
        if prefix <= last:
            return False
        last = prefix
    return True


print(1 if valid() else 0)
