#!/usr/bin/env bash
# Install what the tests need (system packages when root, Python packages) and run them.
# The tests start a real OpenSSH sshd, run real bash, scp and pre-commit: no mocks.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_packages=(openssh-server openssh-client netcat-openbsd bash-completion sudo opendoas autossh git nodejs zsh ksh mksh busybox postgresql) # node: the opencode plugin; the shells: tests/test_shell_names.py; postgresql: HL105 psql
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "warning: missing system packages (${missing[*]}); tests that need them will skip" >&2
    [ "${CI:-}" = true ] && { echo "error: CI needs them" >&2; exit 1; }
  fi
fi

python3 -m pip install -q -e '.[test]'
python3 -m pytest "$@"
