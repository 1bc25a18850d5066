#!/usr/bin/env python3
import argparse, os, requests

ap = argparse.ArgumentParser(); ap.add_argument("--org"); ap.add_argument("--project")
a = ap.parse_args()
token = os.environ.get("SENTRY_AUTH_TOKEN")
if not token:
    raise SystemExit("set SENTRY_AUTH_TOKEN first")
r = requests.get(f"https://sentry.io/api/0/projects/{a.org}/{a.project}/issues/",
                 headers={"Authorization": f"Bearer {token}"},
                 params={"query": "is:unresolved", "statsPeriod": "24h", "sort": "freq", "limit": 10}, timeout=30)
r.raise_for_status()
for i in r.json():
    print(f'{i["count"]:>6}  {i["shortId"]:<12} {i["title"][:80]}')
