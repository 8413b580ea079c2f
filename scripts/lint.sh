#!/usr/bin/env bash
# ruff over the whole tree; mypy --strict over the installed package layout
# (engine/, server/, adapters/ import as komasync.*, so mypy reads them through links).
set -euo pipefail
cd "$(dirname "$0")/.."

ruff check .
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/komasync"
for part in engine server adapters client examples; do ln -s "$PWD/$part" "$tree/komasync/$part"; done
(cd "$tree" && mypy --config-file "$OLDPWD/pyproject.toml" -p komasync.engine -p komasync.server -p komasync.adapters \
  -p komasync.client)
