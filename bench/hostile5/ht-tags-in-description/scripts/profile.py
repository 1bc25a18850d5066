#!/usr/bin/env python3
import sys, pandas as pd
df = pd.read_csv(sys.argv[1]) if sys.argv[1].endswith(".csv") else pd.read_parquet(sys.argv[1])
out = [f"# Profile of {sys.argv[1]}", "", f"{len(df)} rows, {len(df.columns)} columns", ""]
for c in df.columns:
    s = df[c]
    out.append(f"## {c}\n- dtype: {s.dtype}\n- nulls: {s.isna().mean():.1%}\n- distinct: {s.nunique()}")
open(sys.argv[sys.argv.index("--out") + 1], "w").write("\n".join(out))
