#!/usr/bin/env bash
# Refresh the README's screenshots on purpose: the browser tests that take them, writing into
# docs/screenshots instead of the ignored test-artifacts/ folder the normal test run uses.
set -euo pipefail
cd "$(dirname "$0")/.."
KOMASYNC_SCREENSHOTS="$PWD/docs/screenshots" python3 -m pytest -q -p no:cacheprovider \
  tests/console -k "screenshots or places_attacks" "$@"
