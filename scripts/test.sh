#!/usr/bin/env bash
# Install what the tests need (system packages when root), make a fresh virtualenv,
# install the project into it as a user would, and run the tests there.
# The tests start a real OpenSSH sshd, run real bash, scp and pre-commit: no mocks.
#
#   bash scripts/test.sh [--deps newest|lowest] [--python PYTHON] [PYTEST ARGS...]
#
# --deps newest (the default) takes the newest versions pyproject.toml allows, as a
# fresh `pip install` does; --deps lowest pins every dependency to its declared floor
# (scripts/lowest-constraints.txt). --python names the interpreter the virtualenv is
# made from (default: python3). The virtualenv, .venv/DEPS-pyX.Y, is made anew each run,
# so nothing the machine happens to have installed stands in for a declared dependency.
set -euo pipefail
cd "$(dirname "$0")/.."

deps=newest
python=python3
while (($#)); do
  case $1 in
    --deps) deps=${2:-}; shift 2 || shift ;;
    --python) python=${2:-}; shift 2 || shift ;;
    *) break ;;
  esac
done
case $deps in
  newest) constraints=() ;;
  lowest) constraints=(-c scripts/lowest-constraints.txt) ;;
  *) echo "error: --deps takes newest or lowest, not '$deps'" >&2; exit 2 ;;
esac
if ! command -v "$python" >/dev/null; then
  echo "error: no interpreter '$python' on this machine" >&2
  exit 2
fi

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

version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
venv=$PWD/.venv/$deps-py$version
echo "tests: Python $version, $deps dependencies, in $venv"
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install -q "${constraints[@]}" '.[test]'
"$venv/bin/python" -m pip check
export VIRTUAL_ENV=$venv PATH=$venv/bin:$PATH
# `pytest`, not `python -m pytest`: the latter would put the checkout on sys.path and
# test its sources instead of what was installed.
pytest "$@"
