#!/usr/bin/env bash
# Sourced by demo.sh and setup.sh: `make_venv DIR` makes a Python virtual environment that
# works on Debian's own python3 (which refuses `pip install` outside a venv, PEP 668) as well
# as on any other python3 >= 3.11, installing Debian's python3-venv first when it is missing.
make_venv() {
  local dir=$1
  if [ -x "$dir/bin/python" ]; then return 0; fi
  if ! python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    echo "komasync: python3-venv を入れます（Pythonの仮想環境に必要）/ installing python3-venv (Python's virtual environments need it)"
    bash "$(dirname "${BASH_SOURCE[0]}")/wait_for_apt.sh"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
  fi
  # System site-packages are visible so what a machine already has is not downloaded again;
  # the venv's own installs take precedence.
  python3 -m venv --system-site-packages "$dir"
}
