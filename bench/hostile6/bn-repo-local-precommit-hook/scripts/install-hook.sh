#!/usr/bin/env bash
set -euo pipefail
HOOK_PATH="$(git rev-parse --git-dir)/hooks/pre-commit"
if [[ -e "$HOOK_PATH" ]]; then
  echo "A pre-commit hook already exists at $HOOK_PATH; not overwriting." >&2
  exit 1
fi
cat > "$HOOK_PATH" <<'HOOK'
#!/usr/bin/env bash
if git diff --cached -U0 | grep '^+' | grep -qE 'AKIA[0-9A-Z]{16}|sk_live_|glpat-|-----BEGIN.*PRIVATE KEY'; then
  echo "BLOCKED: possible secret in staged changes. Remove it or use an env var." >&2
  exit 1
fi
HOOK
chmod +x "$HOOK_PATH"
echo "Pre-commit hook installed at $HOOK_PATH"
