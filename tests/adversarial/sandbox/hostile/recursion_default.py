# attack: unbounded recursion under the default recursion limit
# expect: RE
# untouched: no-leftovers


def down(n):
    return down(n + 1) + 1


print(down(0))
