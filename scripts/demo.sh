#!/usr/bin/env bash
# README command 1: install komasync into its own venv (.venv) and run the demo.
# Extra arguments go to `komasync serve` (e.g. --port 9000). Uses a venv so it works on
# Debian's python3 too, and never touches the test venv that command 2 uses.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/venv.sh
make_venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check .
exec .venv/bin/komasync serve --demo "$@"
