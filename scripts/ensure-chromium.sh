#!/usr/bin/env bash
# Makes sure Debian's chromium is installed for the Playwright editor checks.
# Never downloads a browser from anywhere else (playwright-core only drives it).
# CHROMIUM_PATH names another installed Chromium or Chrome (as on GitHub's runners).
set -euo pipefail
if [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then exit 0; fi
if ! command -v apt-get >/dev/null; then
  echo "ensure-chromium: /usr/bin/chromium is missing and apt-get is not available" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo -n"; fi
echo "ensure-chromium: installing Debian's chromium" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq chromium >&2
test -x /usr/bin/chromium
