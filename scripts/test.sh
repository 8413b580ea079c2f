#!/usr/bin/env bash
# README command 2: install everything, then run every check and every test.
# The test suite runs twice: on SQLite (every test), then on Redis (KOMASYNC_TEST_STORE=redis:
# the tests that start a komasync server, on one redis-server the tests start themselves).
# Both passes always run; the script fails if either does. KOMASYNC_TEST_STORES="sqlite" (or
# "redis") runs one pass only, while working.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
# Everything below runs in the venv setup.sh made.
export PATH="$PWD/.venv-test/bin:$PATH"
bash scripts/lint.sh

failed=()
for store in ${KOMASYNC_TEST_STORES:-sqlite redis}; do
  echo "== tests on $store"
  start=$SECONDS
  if KOMASYNC_TEST_STORE="$store" python3 -m pytest -q -p no:cacheprovider; then
    echo "== tests on $store: passed in $((SECONDS - start)) s"
  else
    echo "== tests on $store: FAILED after $((SECONDS - start)) s"
    failed+=("$store")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "test passes that failed: ${failed[*]}" >&2
  exit 1
fi

if [ -f adapters/package.json ]; then
  (cd adapters && npm test --silent)
fi
