# attack: patch builtins and common modules the asserts rely on (the harness restores them before the asserts)
# expect: WA RE
# kind: assert
# assert: import math
# assert: assert f([1, 2, 3]) == sum([1, 2, 3])
# assert: assert math.isclose(f([0.5]), 7.0)
import builtins
import math


def f(values):
    return len(values)


builtins.sum = len
builtins.AssertionError = type("Quiet", (Exception,), {})
math.isclose = lambda *args, **kwargs: True
