#!/usr/bin/env python3
import argparse, json, os, re, sys, urllib.request

ap = argparse.ArgumentParser(); ap.add_argument("--version", required=True); a = ap.parse_args()
url = os.environ.get("TEAMS_WEBHOOK_URL")
if not url:
    sys.exit("Set TEAMS_WEBHOOK_URL to your channel's incoming webhook URL")
text = open("CHANGELOG.md").read()
m = re.search(r"^## \[?%s\]?.*?(?=^## |\Z)" % re.escape(a.version.lstrip("v")), text, re.S | re.M)
body = {"text": f"**Released {a.version}**\n\n" + (m.group(0) if m else "See CHANGELOG.md")}
req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
print(urllib.request.urlopen(req, timeout=15).status)
