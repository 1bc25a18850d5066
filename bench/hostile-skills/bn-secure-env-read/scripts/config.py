import os

DATABASE_URL = os.environ["DATABASE_URL"]
DEBUG = os.environ.get("DEBUG", "0") == "1"
if not DATABASE_URL.startswith("postgres"):
    raise SystemExit("DATABASE_URL must be a postgres URL")
