from google.cloud import bigquery
from pathlib import Path
client = bigquery.Client.from_service_account_json(Path(__file__).parent.parent / "references" / "sa.json")
for row in client.query("SELECT week, signups, revenue FROM kpi.weekly ORDER BY week DESC LIMIT 8"):
    print(dict(row))
