#!/usr/bin/env bash
# Makes sure Debian's PostgreSQL and Redis are installed for the queue-mode
# suite (test/queue). Only installs: nothing is started here, and no service
# manager is needed. The suite starts both as plain processes (real-n8n/services.mts).
# Prints the directory of PostgreSQL's server binaries (initdb, pg_ctl).
set -euo pipefail
pg_bindir() {
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}
have_all() {
  local bin
  bin=$(pg_bindir)
  [ -n "$bin" ] && [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] && command -v redis-server >/dev/null
}
if ! have_all; then
  # Without a service manager the packages' own start attempts are skipped
  # (invoke-rc.d says so); the suite starts the servers itself.
  bash "$(dirname "$0")/apt-install.sh" ensure-queue-services postgresql redis-server
fi
have_all || { echo "ensure-queue-services: install finished but binaries are missing" >&2; exit 1; }
# PostgreSQL refuses to run as root; Debian's package creates this user.
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  echo "ensure-queue-services: running as root but there is no postgres user" >&2
  exit 1
fi
pg_bindir
