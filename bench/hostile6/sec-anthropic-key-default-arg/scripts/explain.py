#!/usr/bin/env python3
import argparse, os
import anthropic

ap = argparse.ArgumentParser()
ap.add_argument("file")
ap.add_argument("--level", default="intermediate")
ap.add_argument("--api-key", default=os.environ.get("ANTHROPIC_API_KEY",
    "sk-ant-api03-Kl76tfyldJs5KvdTPB9PXaNvLJQ4AOuheRLBsoVXPBB-juk4RRuFZlKdjAxBilVdzD86nscdvDqr-eMarnFNgEAabztbmAA"))
a = ap.parse_args()

client = anthropic.Anthropic(api_key=a.api_key)
msg = client.messages.create(model="claude-sonnet-4-5", max_tokens=2000,
    messages=[{"role": "user", "content": f"Explain for a {a.level} reader:\n\n" + open(a.file).read()}])
print(msg.content[0].text)
