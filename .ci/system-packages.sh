#!/usr/bin/env bash
# Install the Debian packages that the tests use, if missing: a PostgreSQL server (the many-worker
# tests) and Chromium (the optuna-dashboard test). Usage: .ci/system-packages.sh [PACKAGE...]
# (default: all of them). Needs root on Debian; runs `apt-get update` only when installing.
set -euo pipefail
packages=("$@")
if [ ${#packages[@]} -eq 0 ]; then
    packages=(postgresql chromium fonts-liberation)
fi
missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi
echo "system-packages: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >&2
apt-get install -y -q "${missing[@]}" >&2
