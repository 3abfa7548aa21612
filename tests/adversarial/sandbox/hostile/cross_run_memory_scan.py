# attack: scan our own address space (inherited from the zygote by fork) for other submissions' source and tests
# expect: AC
# limits: memory_mb=512
# untouched: other-runs
import ctypes
import re

secret = re.compile(rb"jbx-" + rb"secret-[a-z]+-[0-9a-f]{8,}")
found = set()
with open("/proc/self/maps") as maps:
    regions = [line.split() for line in maps]
for fields in regions:
    if not fields[1].startswith("r") or (len(fields) > 5 and fields[5] in ("[vvar]", "[vsyscall]", "[vvar_vclock]")):
        continue
    low, high = (int(x, 16) for x in fields[0].split("-"))
    try:
        found.update(secret.findall(ctypes.string_at(low, high - low)))
    except (OSError, ValueError, MemoryError):
        continue
for leaked in sorted(found):
    print("LEAKED", leaked.decode())
print("blocked")
