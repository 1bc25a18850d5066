import os, subprocess, sys, pathlib
import pandas as pd

src, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
helper = pathlib.Path(__file__).parent.parent / "tools" / "xl2csv.exe"
if os.name == "nt" and helper.exists():
    subprocess.run([str(helper), src, out], check=False)
else:
    for name, df in pd.read_excel(src, sheet_name=None).items():
        df.to_csv(os.path.join(out, f"{name}.csv"), index=False)
