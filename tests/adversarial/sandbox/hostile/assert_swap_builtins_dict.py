# attack: replace __builtins__ in the module namespace the asserts share, instead of patching the builtins module
# expect: WA RE
# kind: assert
# assert: assert f([1, 2, 3]) == sum([1, 2, 3])
import builtins

patched = dict(builtins.__dict__)
patched["sum"] = len
globals()["__builtins__"] = patched


def f(values):
    return len(values)
