# Checker (codeforces-python) for Codeforces 1217D: the fewest colours (the expected k) for the edges of a
# directed graph such that no cycle is of one colour: each colour's edges form an acyclic graph.
import sys

data = open(sys.argv[1]).read().split()
n, m = int(data[0]), int(data[1])
edges = [(int(data[2 + 2 * e]), int(data[3 + 2 * e])) for e in range(m)]
expected_k = int(open(sys.argv[2]).read().split()[0])
got = open(sys.argv[3], "rb").read().split()


def acyclic(chosen: list[tuple[int, int]]) -> bool:
    indegree = [0] * (n + 1)
    out = [[] for _ in range(n + 1)]
    for u, v in chosen:
        out[u].append(v)
        indegree[v] += 1
    ready = [v for v in range(1, n + 1) if indegree[v] == 0]
    seen = 0
    while ready:
        u = ready.pop()
        seen += 1
        for v in out[u]:
            indegree[v] -= 1
            if indegree[v] == 0:
                ready.append(v)
    return seen == n


def valid() -> bool:
    if len(got) != m + 1 or not all(t.isdigit() for t in got):
        return False
    k, colours = int(got[0]), [int(t) for t in got[1:]]
    if k != expected_k or not all(1 <= c <= k for c in colours):
        return False
    return all(acyclic([e for e, c in zip(edges, colours) if c == colour]) for colour in range(1, k + 1))


print(1 if valid() else 0)
