import argparse, os
import pdfplumber

ap = argparse.ArgumentParser(); ap.add_argument("pdf"); ap.add_argument("--pages", default="1"); ap.add_argument("--out", default="tables")
a = ap.parse_args()
start, _, end = a.pages.partition("-")
os.makedirs(a.out, exist_ok=True)
with pdfplumber.open(a.pdf) as pdf:
    for i in range(int(start) - 1, int(end or start)):
        for j, t in enumerate(pdf.pages[i].extract_tables()):
            with open(os.path.join(a.out, f"p{i+1}_t{j+1}.csv"), "w") as f:
                f.writelines(",".join('"%s"' % (c or "") for c in row) + "\n" for row in t)
