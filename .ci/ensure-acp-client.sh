#!/usr/bin/env bash
# Makes what the ACP client test needs (dev.toolcall.acp.AcpNodeClientTest) available: Node.js (TOOLCALL_NODE when
# set, else `node` on PATH; Debian's nodejs and npm packages when missing), and the official Agent Client Protocol
# TypeScript SDK (@agentclientprotocol/sdk, pinned, with its peer zod) from the npm registry in a cache directory the
# test finds (ACP_CLIENT_DIR, default ~/.cache/toolcall/acp-client). Idempotent and quick when everything is there.
# Run by ensure-test-programs.sh (and so by `mvn verify`); --quiet prints only what it installs.
set -euo pipefail
quiet=false; [ "${1:-}" = "--quiet" ] && quiet=true
version=2.4.0
zod=3.25.76
dir="${ACP_CLIENT_DIR:-$HOME/.cache/toolcall/acp-client}"

node="${TOOLCALL_NODE:-$(command -v node || true)}"
if [ -z "$node" ] || { [ -z "${TOOLCALL_NODE:-}" ] && ! command -v npm > /dev/null; }; then
  if ! command -v apt-get > /dev/null; then
    echo "acp client: node or npm not found and no apt-get: install Node.js with npm (macOS: brew install node)," \
      "or set TOOLCALL_NODE" >&2
    exit 1
  fi
  SUDO=""; if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "acp client: installing Debian's nodejs and npm packages"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q > /dev/null
  $SUDO apt-get install -y -q nodejs npm > /dev/null
  node="${TOOLCALL_NODE:-$(command -v node)}"
  quiet=false
fi
if [ ! -x "$node" ]; then echo "acp client: $node is not an executable file (TOOLCALL_NODE)" >&2; exit 1; fi

installed=$("$node" -e "try{console.log(require('$dir/node_modules/@agentclientprotocol/sdk/package.json').version)}catch(e){}" 2>/dev/null || true)
if [ "$installed" != "$version" ]; then
  npm="$(dirname "$node")/npm"; [ -x "$npm" ] || npm=npm
  echo "acp client: installing @agentclientprotocol/sdk@$version into $dir"
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"name":"toolcall-acp-client-cache","private":true}' > "$dir/package.json"
  (cd "$dir" && "$npm" install --no-audit --no-fund --loglevel=error --legacy-peer-deps \
    "@agentclientprotocol/sdk@$version" "zod@$zod" > /dev/null)
  quiet=false
fi
$quiet || echo "acp client: node $("$node" -v), @agentclientprotocol/sdk $("$node" -e "console.log(require('$dir/node_modules/@agentclientprotocol/sdk/package.json').version)") in $dir"
