#!/usr/bin/env bash
# Installs everything komasync's tests need on a fresh Debian machine:
# the Python package with its test extras, Debian's chromium and a CJK font for the
# browser tests (never a downloaded browser), Debian's Node.js and npm, and the bridges'
# Node packages, and Debian's redis-server for the Redis backend's tests (started by the
# tests themselves with komasync's settings, never as a system service).
set -euo pipefail
cd "$(dirname "$0")/.."

# The tests' own venv (.venv-test), apart from the demo's (.venv): installing for the tests
# never replaces the package a running `scripts/demo.sh` serves its console from.
source scripts/venv.sh
make_venv .venv-test
.venv-test/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v caddy >/dev/null 2>&1 || need+=(caddy)  # HTTPS in front of komasync (docs/remote.md)
command -v certutil >/dev/null 2>&1 || need+=(libnss3-tools)  # Chromium trusting Caddy's CA in the HTTPS test
fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || need+=(fonts-noto-cjk)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  else
    sudo apt-get update -qq
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
  fi
fi

if [ -f adapters/package.json ]; then
  (cd adapters && npm ci --silent --no-audit --no-fund)
fi
