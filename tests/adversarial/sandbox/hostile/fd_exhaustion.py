# attack: exhaust file descriptors (files, pipes, sockets, memfds, eventfds) and park fds at high numbers
# expect: AC
# untouched: no-leftovers
import os
import socket

held = []
try:
    while len(held) < 100_000:
        held.append(os.open("/dev/null", os.O_RDONLY))
        held.extend(os.pipe())
        held.extend(s.detach() for s in socket.socketpair())
        held.append(os.memfd_create("x"))
        held.append(os.eventfd(0))
except OSError:
    pass
if len(held) > 5000:
    print("OPENED", len(held))
for fd in held[:32]:
    os.close(fd)
try:
    os.dup2(0, 1 << 20)
    print("DUPED high")
except OSError:
    pass
print("blocked")
