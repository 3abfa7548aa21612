# attack: raw/packet/netlink sockets, and the host's abstract unix socket @{UNIX_NAME} and named sockets under /run
# expect: AC
# untouched: network
import socket

for family, kind, proto in ((socket.AF_PACKET, socket.SOCK_RAW, 0x0300), (socket.AF_INET, socket.SOCK_RAW, 1),
                            (socket.AF_NETLINK, socket.SOCK_RAW, 0), (socket.AF_INET6, socket.SOCK_DGRAM, 0)):
    try:
        socket.socket(family, kind, proto).close()
        print("OPENED", family, kind)
    except OSError:
        pass
targets = ["\0{UNIX_NAME}", "/run/systemd/private", "/run/dbus/system_bus_socket", "/dev/log"]
targets += ["/run/postgresql/" + name for name in (".s.PGSQL.5432",)]
for target in targets:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(1)
            s.connect(target)
            print("CONNECTED", repr(target))
    except OSError:
        pass
print("blocked")
