#!/bin/bash
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf ./dist ./build ./node_modules ./.turbo
npm ci
