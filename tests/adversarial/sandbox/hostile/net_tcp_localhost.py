# attack: TCP to the host's loopback (the test listens on 127.0.0.1:{TCP_PORT}) and a listening socket of our own
# expect: AC
# untouched: network
import socket

try:
    with socket.create_connection(("127.0.0.1", {TCP_PORT}), timeout=1):
        print("CONNECTED to the host listener")
except OSError:
    pass
try:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("0.0.0.0", 8080))
    server.listen()
    print("LISTENING on 8080")
except OSError:
    pass
print("blocked")
