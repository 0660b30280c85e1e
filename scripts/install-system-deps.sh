#!/usr/bin/env bash
# Installs the Debian packages the platform and its tests need: Java (METEOR 1.5 in story reports;
# the JDK's source launcher runs the official VIST evaluator's METEOR call path in a parity test)
# Chromium (browser tests) and HAProxy (the load balancer of the scale-out run, `make scaleout`).
# Idempotent: does nothing when they are already there.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || missing+=(haproxy)
command -v java >/dev/null 2>&1 && java --list-modules 2>/dev/null | grep -q '^jdk.compiler@' \
  || missing+=(default-jdk-headless)
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
