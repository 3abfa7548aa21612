# attack: UDP DNS query to 1.1.1.1:53 and a name lookup through the resolver
# expect: AC
# untouched: network
import socket
import struct

query = struct.pack(">HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0) + b"\x07example\x03com\x00" + struct.pack(">HH", 1, 1)
try:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(1)
        s.sendto(query, ("1.1.1.1", 53))
        print("ANSWERED", s.recvfrom(512)[0][:2])
except OSError:
    pass
try:
    print("RESOLVED", socket.getaddrinfo("example.com", 80)[0][4])
except OSError:
    pass
print("blocked")
