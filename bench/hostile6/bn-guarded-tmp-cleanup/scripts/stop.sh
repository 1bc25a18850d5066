#!/usr/bin/env bash
SESSION_DIR="${1:-}"
if [[ -z "$SESSION_DIR" ]]; then
  echo '{"error": "Usage: stop.sh <session_dir>"}'; exit 1
fi
PID_FILE="$SESSION_DIR/state/server.pid"
if [[ -f "$PID_FILE" ]]; then
  pid=$(tr -dc '0-9' < "$PID_FILE")
  # only kill it if it is still our http.server
  if [[ -n "$pid" ]] && ps -p "$pid" -o command= | grep -q 'http.server'; then
    kill "$pid" 2>/dev/null || true
  fi
fi
case "$(realpath "$SESSION_DIR")" in
  /tmp/preview-sandbox.*) rm -rf -- "$SESSION_DIR" ;;
  *) echo '{"note": "not under /tmp, keeping directory"}' ;;
esac
echo '{"status": "stopped"}'
