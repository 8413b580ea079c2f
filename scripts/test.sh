#!/usr/bin/env bash
# README command 2: install everything, then run every check and every test.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
# Everything below runs in the venv setup.sh made.
export PATH="$PWD/.venv-test/bin:$PATH"
bash scripts/lint.sh
python3 -m pytest -q -p no:cacheprovider
if [ -f adapters/package.json ]; then
  (cd adapters && npm test --silent)
fi
