import sys
import pandas as pd
import acme_profiling  # resolved from the extra index

df = pd.read_csv(sys.argv[1]) if sys.argv[1].endswith('.csv') else pd.read_parquet(sys.argv[1])
print(acme_profiling.report(df))
