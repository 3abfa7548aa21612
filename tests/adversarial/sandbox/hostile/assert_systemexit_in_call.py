# attack: raise SystemExit(0) from inside the tested function, i.e. in the middle of the asserts
# expect: WA RE
# kind: assert
# assert: assert f(2) == 4
# assert: assert f(3) == 9


def f(x):
    raise SystemExit(0)
