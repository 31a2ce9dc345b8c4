#!/usr/bin/env bash
# Installs what the browser tests need, only when missing: Debian's chromium and chromium-driver, and the
# Python packages selenium, websockets and numpy (to check the screenshots). Safe to run again.
set -euo pipefail

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

missing=""
for p in chromium chromium-driver; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi

for module in selenium websockets numpy; do
  if ! python3 -c "import $module" 2>/dev/null; then
    echo "installing python package: $module"
    python3 -m pip install -q "$module" || python3 -m pip install -q --break-system-packages "$module"
  fi
done
