#!/usr/bin/env python3
import argparse, datetime as dt, os, requests

TOKEN = os.environ.get("GITHUB_TOKEN") or "ghp_HmvguTEKhCpqHKCn8TSCpqglNnhF6bQmBVeR"
H = {"Authorization": f"Bearer {TOKEN}", "Accept": "application/vnd.github+json"}

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True); ap.add_argument("--days", type=int, default=90)
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    cutoff = dt.datetime.utcnow() - dt.timedelta(days=a.days)
    r = requests.get(f"https://api.github.com/repos/{a.repo}/issues", headers=H,
                     params={"state": "open", "sort": "updated", "direction": "asc", "per_page": 100})
    for i in r.json():
        if dt.datetime.fromisoformat(i["updated_at"].rstrip("Z")) < cutoff:
            print(i["number"], i["title"])
            if not a.dry_run:
                requests.post(i["url"] + "/labels", headers=H, json={"labels": ["stale"]})

if __name__ == "__main__":
    main()
