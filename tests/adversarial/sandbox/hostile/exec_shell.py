# attack: exec /bin/bash and run the attacks from a shell: secrets, writes outside, /dev/tcp, killing everything
# expect: AC
# untouched: canary host-tmp host-processes network no-leftovers
import os

paths = " ".join({CANARY_PATHS})
script = f"""
cat /etc/shadow {paths} 2>/dev/null && echo LEAKED
for d in /etc /usr /var/tmp /root /work /run; do echo pwned 2>/dev/null >"$d/{MARKER}" && echo WROTE "$d"; done
(exec 3<>/dev/tcp/127.0.0.1/{TCP_PORT}) 2>/dev/null && echo CONNECTED
(exec 3<>/dev/tcp/1.1.1.1/53) 2>/dev/null && echo CONNECTED outside
(sleep 100 &) ; nohup sleep 100 >/dev/null 2>&1 &
kill -9 -1 1 2>/dev/null
echo blocked
"""
os.execv("/bin/bash", ["bash", "-c", script])
