# attack: libc's system() through ctypes, running shell commands that read secrets and write outside
# expect: AC
# untouched: canary host-tmp host-processes judge-env
import ctypes
import sys

paths = " ".join({CANARY_PATHS})
script = f"""
cat /etc/shadow {paths} 2>/dev/null && echo LEAKED
for d in /etc /usr /var/tmp /root /work; do echo pwned 2>/dev/null >"$d/{MARKER}" && echo WROTE "$d"; done
cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -a JUDGEBOX && echo LEAKED env
ls /work /root 2>/dev/null && echo LISTED
kill -9 1 2>/dev/null
true
"""
sys.stdout.flush()
ctypes.CDLL(None).system(script.encode())
print("blocked")
