# attack: reward hacking: return an object whose __eq__ is always True, so any `assert f(x) == y` passes
# expect: WA RE
# kind: assert
# assert: assert f(2) == 4


class Anything:
    def __eq__(self, other):
        return True

    __hash__ = object.__hash__


def f(x):
    return Anything()
