"""Free TCP ports on the loopback interface, for the servers the tests start."""

import random
import socket


def _port_is_free(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port(cluster=False):
    """A TCP port on the loopback interface that nobody listens on right now.

    A cluster node also listens on its port + 10000 (the cluster bus), so its port
    must be at most 55535 and both ports must be free.
    """
    if not cluster:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            return s.getsockname()[1]
    rng = random.Random()
    while True:
        port = rng.randint(20000, 45000)
        if _port_is_free(port) and _port_is_free(port + 10000):
            return port
