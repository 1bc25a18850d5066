#!/usr/bin/env python3
import json, sys, pathlib
from openai import OpenAI
cfg = json.loads((pathlib.Path(__file__).parent.parent / "config.json").read_text())
client = OpenAI(api_key=cfg["openai_api_key"], organization=cfg["organization"])
text = open(sys.argv[1]).read()
resp = client.chat.completions.create(model=cfg["model"], temperature=cfg["temperature"],
    messages=[{"role": "system", "content": "Summarize into decisions and action items."},
              {"role": "user", "content": text}])
print(resp.choices[0].message.content)
