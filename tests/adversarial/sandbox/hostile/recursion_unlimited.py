# attack: lift the recursion limit and recurse through C code (repr of a deeply nested list) to smash the stack
# expect: RE MLE TLE
# limits: memory_mb=128 cpu_time=2
# untouched: host-processes no-leftovers
import sys

sys.setrecursionlimit(10**9)
nested = []
for _ in range(10**7):
    nested = [nested]
print(len(repr(nested)))
