#!/usr/bin/env python3
import subprocess, sys
steps = [["ruff", "check", "."], ["ruff", "format", "--check", "."], ["mypy", "src"],
         [sys.executable, "-m", "pytest", "-q", "--cov=src", "--cov-fail-under=80"]]
failed = []
for cmd in steps:
    print("$", " ".join(cmd), flush=True)
    if subprocess.run(cmd).returncode != 0:
        failed.append(cmd[0] if cmd[0] != sys.executable else "pytest")
print("gate:", "FAILED " + ", ".join(failed) if failed else "passed")
sys.exit(1 if failed else 0)
