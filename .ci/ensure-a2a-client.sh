#!/usr/bin/env bash
# Makes what the A2A client tests need (dev.toolcall.a2a.A2aNodeClientTest, dev.toolcall.postgres.A2aTwoInstancesTest)
# available: Node.js (TOOLCALL_NODE when set, else `node` on PATH; Debian's nodejs and npm packages when missing), and
# the official A2A JavaScript SDK (@a2a-js/sdk, pinned; its client speaks A2A 1.0) from the npm registry in a cache
# directory the tests find (A2A_CLIENT_DIR, default ~/.cache/toolcall/a2a-client). Its peer dependencies are all
# optional and none is installed. Idempotent and quick when everything is there. Run by ensure-test-programs.sh (and
# so by `mvn verify`); --quiet prints only what it installs.
set -euo pipefail
quiet=false; [ "${1:-}" = "--quiet" ] && quiet=true
version=1.3.0
dir="${A2A_CLIENT_DIR:-$HOME/.cache/toolcall/a2a-client}"

node="${TOOLCALL_NODE:-$(command -v node || true)}"
if [ -z "$node" ] || { [ -z "${TOOLCALL_NODE:-}" ] && ! command -v npm > /dev/null; }; then
  if ! command -v apt-get > /dev/null; then
    echo "a2a client: node or npm not found and no apt-get: install Node.js 20 or later with npm" \
      "(macOS: brew install node), or set TOOLCALL_NODE" >&2
    exit 1
  fi
  SUDO=""; if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "a2a client: installing Debian's nodejs and npm packages"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q > /dev/null
  $SUDO apt-get install -y -q nodejs npm > /dev/null
  node="${TOOLCALL_NODE:-$(command -v node)}"
  quiet=false
fi
if [ ! -x "$node" ]; then echo "a2a client: $node is not an executable file (TOOLCALL_NODE)" >&2; exit 1; fi
major=$("$node" -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then echo "a2a client: @a2a-js/sdk $version needs Node.js 20 or later, $node is $("$node" -v)" >&2; exit 1; fi

installed=$("$node" -e "try{console.log(require('$dir/node_modules/@a2a-js/sdk/package.json').version)}catch(e){}" 2>/dev/null || true)
if [ "$installed" != "$version" ]; then
  npm="$(dirname "$node")/npm"; [ -x "$npm" ] || npm=npm
  echo "a2a client: installing @a2a-js/sdk@$version into $dir"
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"name":"toolcall-a2a-client-cache","private":true}' > "$dir/package.json"
  (cd "$dir" && "$npm" install --no-audit --no-fund --loglevel=error "@a2a-js/sdk@$version" > /dev/null)
  quiet=false
fi
$quiet || echo "a2a client: node $("$node" -v), @a2a-js/sdk $("$node" -e "console.log(require('$dir/node_modules/@a2a-js/sdk/package.json').version)") in $dir"
