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

# Each Debian package this machine lacks, with why the tests need it (said before installing).
need=()
why=()
want() { need+=("$1"); why+=("  $1: $2"); }
command -v chromium >/dev/null 2>&1 ||
  want chromium "ブラウザテスト（GMコンソール）/ the browser tests of the GM console"
command -v node >/dev/null 2>&1 || want nodejs "ブリッジのテストとlint / the bridges' tests and lint"
command -v npm >/dev/null 2>&1 || want npm "ブリッジのNodeパッケージ / the bridges' Node packages"
command -v redis-server >/dev/null 2>&1 ||
  want redis-server "Redis保存先のテスト（サービスとしては起動しない）/ the Redis store's tests (never started as a service)"
fc-list 2>/dev/null | grep -qi "Noto Sans CJK" ||
  want fonts-noto-cjk "画面の日本語表示 / Japanese text in the browser tests' screens"
command -v caddy >/dev/null 2>&1 ||
  want caddy "HTTPSの中継（Caddy）のテスト / the HTTPS test through Caddy (docs/remote.md)"
command -v certutil >/dev/null 2>&1 ||
  want libnss3-tools "ChromiumにCaddyの認証局を信頼させる / Chromium trusting Caddy's CA in that test"
if [ ${#need[@]} -gt 0 ]; then
  echo "komasync: Debianのパッケージを入れます / installing Debian packages:"
  printf '%s\n' "${why[@]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  # Another install or the automatic updates may hold the lock: wait (bounded) with a message,
  # and let apt itself wait as long should the lock be taken again in between.
  bash scripts/wait_for_apt.sh
  lock_wait=(-o "DPkg::Lock::Timeout=${KOMASYNC_APT_WAIT:-600}")
  $sudo apt-get "${lock_wait[@]}" update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get "${lock_wait[@]}" install -y -qq "${need[@]}" >/dev/null
fi

if [ -f adapters/package.json ]; then
  (cd adapters && npm ci --silent --no-audit --no-fund)
fi
