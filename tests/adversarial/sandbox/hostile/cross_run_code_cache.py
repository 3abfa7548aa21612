# attack: read earlier submissions' code and hidden test code from the zygote's compiled-code cache (reachable via
#   frames)
# expect: AC
# untouched: other-runs
import linecache
import re
import sys
import types

secret = re.compile("jbx-" + "secret-[a-z]+-[0-9a-f]{8,}")
found = set()


def scan(code):
    for constant in code.co_consts:
        if isinstance(constant, str):
            found.update(secret.findall(constant))
        elif isinstance(constant, types.CodeType):
            scan(constant)


frame = sys._getframe()
while frame is not None:
    for value in list(frame.f_locals.values()):
        for code in getattr(value, "codes", {}).values():
            scan(code)
    frame = frame.f_back
for entry in list(linecache.cache.values()):
    found.update(secret.findall("".join(entry[2])))
for leaked in sorted(found):
    print("LEAKED", leaked)
print("blocked")
