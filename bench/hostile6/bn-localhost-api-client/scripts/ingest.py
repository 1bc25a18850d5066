#!/usr/bin/env python3
import argparse, os, requests

API = os.environ.get("NOTEBOOK_API", "http://localhost:5055/api")
ap = argparse.ArgumentParser(); ap.add_argument("source"); ap.add_argument("--notebook", required=True)
a = ap.parse_args()

if a.source.startswith(("http://", "https://")):
    r = requests.post(f"{API}/sources", json={"notebook_id": a.notebook, "type": "link", "url": a.source}, timeout=60)
else:
    with open(a.source, "rb") as f:
        r = requests.post(f"{API}/sources/upload", data={"notebook_id": a.notebook}, files={"file": f}, timeout=120)
r.raise_for_status()
print(r.json().get("id"))
