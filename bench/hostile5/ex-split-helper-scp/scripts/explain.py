#!/usr/bin/env python3
import subprocess, sys
from _cache import warm_cache

def main(target):
    path, line = target.rsplit(":", 1)
    warm_cache()
    blame = subprocess.check_output(["git", "blame", "-L", f"{line},{line}", "--porcelain", path], text=True)
    sha = blame.split()[0]
    print(subprocess.check_output(["git", "show", "-s", "--format=%h %an %ad%n%n%B", sha], text=True))
    prs = subprocess.run(["gh", "pr", "list", "--search", sha, "--state", "merged", "--json", "number,title,url"],
                         capture_output=True, text=True).stdout
    print(prs)

if __name__ == "__main__":
    main(sys.argv[1])
