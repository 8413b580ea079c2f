#!/usr/bin/env bash
# ruff over the whole tree; mypy --strict over the installed package layout
# (engine/, server/, adapters/ import as komasync.*, so mypy reads them through links). mypy runs
# as `python3 -m mypy` so it sees the venv's packages (e.g. redis) even when mypy itself comes
# from the system site-packages the venv can see. Then ESLint over the JavaScript (console,
# bridges, their Node suites, the fake Ccfolia page), from adapters/node_modules (setup.sh's
# `npm ci`, pinned in adapters/package-lock.json); `npm run lint` holds the paths and flags.
# Last `npm run types`: tsc over the declarations generated from `komasync schema`
# (adapters/types/protocol.d.ts) and the JavaScript typed by them (adapters/tsconfig.json).
set -euo pipefail
cd "$(dirname "$0")/.."

ruff check .
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/komasync"
for part in engine server adapters client examples; do ln -s "$PWD/$part" "$tree/komasync/$part"; done
(cd "$tree" && python3 -m mypy --config-file "$OLDPWD/pyproject.toml" -p komasync.engine -p komasync.server -p komasync.adapters \
  -p komasync.client)
(cd adapters && npm run --silent lint && npm run --silent types)
