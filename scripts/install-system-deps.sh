#!/usr/bin/env bash
# Installs the Debian packages the test suite needs (Chromium for the browser tests).
# Idempotent: does nothing when they are already there.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  SUDO=""
elif command -v sudo >/dev/null 2>&1; then
  SUDO="sudo -n"
else
  echo "Please install these Debian packages (as root): ${missing[*]}" >&2
  exit 1
fi
echo "Installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
