#!/usr/bin/env bash
# Makes sure Debian's chromium is installed for the Playwright editor checks.
# Never downloads a browser from anywhere else (playwright-core only drives it).
# CHROMIUM_PATH names another installed Chromium or Chrome (as on GitHub's runners).
set -euo pipefail
if [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then exit 0; fi
# Stops here, saying how to get it, where apt-get cannot install it.
bash "$(dirname "$0")/check-machine.sh" chromium >/dev/null
bash "$(dirname "$0")/apt-install.sh" ensure-chromium chromium
test -x /usr/bin/chromium
