# Checker (codeforces-python) for Codeforces 963B: an order that destroys every vertex, each while its
# remaining degree is even, or NO exactly when there is none.
import sys

data = open(sys.argv[1]).read().split()
n = int(data[0])
parents = [int(t) for t in data[1:n + 1]]
expected = open(sys.argv[2]).read().split()
got = open(sys.argv[3], "rb").read().split()


def valid() -> bool:
    if expected[0].upper() == "NO":
        return got == [b"NO"]
    if len(got) != n + 1 or got[0] != b"YES" or not all(t.isdigit() for t in got[1:]):
        return False
    neighbours = [[] for _ in range(n + 1)]
    for child, parent in enumerate(parents, start=1):
        if parent:
            neighbours[child].append(parent)
            neighbours[parent].append(child)
    degree = [len(around) for around in neighbours]
    gone = [False] * (n + 1)
    for token in got[1:]:
        v = int(token)
        if not 1 <= v <= n or gone[v] or degree[v] % 2:
            return False
        gone[v] = True
        for w in neighbours[v]:
            if not gone[w]:
                degree[w] -= 1
    return True


print(1 if valid() else 0)
