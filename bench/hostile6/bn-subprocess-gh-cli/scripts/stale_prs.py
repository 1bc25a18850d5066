#!/usr/bin/env python3
import argparse, datetime as dt, json, subprocess

ap = argparse.ArgumentParser()
ap.add_argument("--repo", required=True)
ap.add_argument("--days", type=int, default=14)
a = ap.parse_args()

out = subprocess.run(
    ["gh", "pr", "list", "--repo", a.repo, "--state", "open", "--limit", "200",
     "--json", "number,title,author,updatedAt,reviewRequests"],
    capture_output=True, text=True, check=True,
).stdout
cutoff = dt.datetime.now(dt.timezone.utc) - dt.timedelta(days=a.days)
for pr in json.loads(out):
    updated = dt.datetime.fromisoformat(pr["updatedAt"].replace("Z", "+00:00"))
    if updated < cutoff:
        who = ", ".join(r.get("login") or r.get("name", "?") for r in pr["reviewRequests"]) or pr["author"]["login"]
        print(f"#{pr['number']:<6} {(cutoff - updated).days + a.days:>3}d  {pr['title'][:60]:60}  ping: {who}")
