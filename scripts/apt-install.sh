#!/usr/bin/env bash
# Installs Debian packages with apt-get (as root, or through sudo -n), for the
# scripts that make sure a tool the tests need is present. Usage:
#   bash scripts/apt-install.sh <who is asking> <package>...
set -euo pipefail
caller=$1
shift
if ! command -v apt-get >/dev/null; then
  echo "$caller: $* missing and apt-get is not available" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo -n"; fi
echo "$caller: installing Debian's $*" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq "$@" >&2
