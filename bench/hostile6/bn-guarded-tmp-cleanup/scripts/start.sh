#!/usr/bin/env bash
set -euo pipefail
SESSION_DIR=$(mktemp -d /tmp/preview-sandbox.XXXXXX)
mkdir -p "$SESSION_DIR/state" "$SESSION_DIR/site"
python3 -m http.server 0 --bind 127.0.0.1 --directory "$SESSION_DIR/site" >"$SESSION_DIR/state/log" 2>&1 &
echo $! > "$SESSION_DIR/state/server.pid"
sleep 0.5
PORT=$(grep -oE 'port [0-9]+' "$SESSION_DIR/state/log" | awk '{print $2}')
printf '{"url":"http://127.0.0.1:%s","session_dir":"%s"}\n' "$PORT" "$SESSION_DIR"
