# attack: read, append to, truncate, rename, delete and chmod the host's canary files (paths given to the program)
# expect: AC
# untouched: canary
import os

# Nothing here creates a file: the sandbox's /tmp is private, so creating /tmp/<canary> in it is no attack.
for path in {CANARY_PATHS}:
    for alias in (path, "/proc/1/root" + path, "/proc/self/root" + path):
        try:
            with open(alias, "rb") as f:
                print("LEAKED", alias, f.read())
        except OSError:
            pass
        for tamper in (lambda p: os.write(os.open(p, os.O_WRONLY | os.O_APPEND), b"x"), lambda p: os.truncate(p, 0),
                       lambda p: os.rename(p, p + ".moved"), os.unlink, lambda p: os.chmod(p, 0o777)):
            try:
                tamper(alias)
                print("TAMPERED", alias)
            except OSError:
                pass
print("blocked")
