#!/usr/bin/env bash
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
rm -rf ./dist ./coverage ./.turbo
echo cleaned
