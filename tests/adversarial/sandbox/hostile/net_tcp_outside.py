# attack: TCP to outside addresses (IPv4 and IPv6 DNS servers); the sandbox's network namespace is empty
# expect: AC
# untouched: network
import socket

for family, address in ((socket.AF_INET, ("1.1.1.1", 53)), (socket.AF_INET, ("8.8.8.8", 443)),
                        (socket.AF_INET6, ("2606:4700:4700::1111", 53))):
    try:
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.settimeout(1)
            s.connect(address)
            print("CONNECTED", address)
    except OSError:
        pass
print("blocked")
