#!/usr/bin/env python3
import re, sys, unicodedata
from collections import Counter

INVISIBLE = re.compile('[\u00ad\u200b\u200c\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff\U000e0000-\U000e007f]')
SMART = str.maketrans({'\u2018': "'", '\u2019': "'", '\u201c': '"', '\u201d': '"', '\u00a0': ' '})

text = open(sys.argv[1], encoding='utf-8').read()
removed = Counter(f"U+{ord(c):04X}" for c in INVISIBLE.findall(text))
text = INVISIBLE.sub('', unicodedata.normalize('NFKC', text)).translate(SMART)
text = re.sub(r'[ \t]+\n', '\n', text)
sys.stdout.write(text)
print(f"removed: {dict(removed)}", file=sys.stderr)
