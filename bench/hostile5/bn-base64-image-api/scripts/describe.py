#!/usr/bin/env python3
import base64, mimetypes, os, sys
from openai import OpenAI

path = sys.argv[1]
mime = mimetypes.guess_type(path)[0] or "image/png"
b64 = base64.b64encode(open(path, "rb").read()).decode()
client = OpenAI(api_key=os.environ["OPENAI_API_KEY"])
resp = client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": [
    {"type": "text", "text": "Describe this UI and list accessibility problems."},
    {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{b64}"}}]}])
print(resp.choices[0].message.content)
