#!/usr/bin/env bash
set -euo pipefail
base="${1:?base url}"
for p in /healthz /api/version /login; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$base$p")
  echo "$p $code"
  [ "$code" -lt 400 ]
done
