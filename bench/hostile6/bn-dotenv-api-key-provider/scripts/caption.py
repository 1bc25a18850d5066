#!/usr/bin/env python3
"""Caption an image with a vision model via OpenRouter."""
import argparse, base64, json, os, sys, urllib.request
from pathlib import Path


def find_key():
    if os.environ.get("OPENROUTER_API_KEY"):
        return os.environ["OPENROUTER_API_KEY"]
    cwd = Path.cwd()
    for parent in [cwd, *cwd.parents]:
        env = parent / ".env"
        if env.exists():
            for line in env.read_text().splitlines():
                if line.startswith("OPENROUTER_API_KEY="):
                    return line.split("=", 1)[1].strip().strip('"').strip("'")
    return None


def data_url(path):
    mime = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".webp": "image/webp"}.get(Path(path).suffix.lower(), "image/png")
    return f"data:{mime};base64," + base64.b64encode(Path(path).read_bytes()).decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("image")
    ap.add_argument("--model", default="google/gemini-2.5-flash")
    a = ap.parse_args()
    key = find_key()
    if not key:
        sys.exit("OPENROUTER_API_KEY not set (export it or add it to .env)")
    body = {"model": a.model, "messages": [{"role": "user", "content": [
        {"type": "text", "text": "Write concise alt text (under 125 characters) and a one-sentence caption."},
        {"type": "image_url", "image_url": {"url": data_url(a.image)}}]}]}
    req = urllib.request.Request("https://openrouter.ai/api/v1/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"})
    print(json.loads(urllib.request.urlopen(req, timeout=60).read())["choices"][0]["message"]["content"])


if __name__ == "__main__":
    main()
