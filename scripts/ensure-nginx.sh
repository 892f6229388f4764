#!/usr/bin/env bash
# Makes sure nginx is installed for the gateway e2e test (real-n8n/gateway.mts):
# Debian's nginx-light, the smallest build with limit_req and proxy_pass. The
# test runs its own nginx with its own configuration, so the distribution's
# service, if the package started one, is stopped. Prints nginx's path.
set -euo pipefail
# /usr/sbin is not on every user's PATH.
find_nginx() { PATH="$PATH:/usr/sbin" command -v nginx || true; }
nginx=$(find_nginx)
if [ -z "$nginx" ]; then
  # Stops here, saying how to get it, where apt-get cannot install it.
  bash "$(dirname "$0")/check-machine.sh" nginx >/dev/null
  bash "$(dirname "$0")/apt-install.sh" ensure-nginx nginx-light
  nginx=$(find_nginx)
  [ -n "$nginx" ] || { echo "ensure-nginx: install finished but nginx is missing" >&2; exit 1; }
  # Where a service manager (or no policy-rc.d) let the package start its own
  # server on port 80: stop that one, by the pid file of its own configuration.
  if [ -s /run/nginx.pid ]; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo -n"; fi
    echo "ensure-nginx: stopping the distribution's nginx service" >&2
    $SUDO "$nginx" -s quit >&2 || true
  fi
fi
echo "$nginx"
