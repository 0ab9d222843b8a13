#!/usr/bin/env bash
# Makes what the AG-UI client tests need (dev.toolcall.agui.AguiNodeClientTest) available: Node.js (TOOLCALL_NODE
# when set, else `node` on PATH; Debian's nodejs and npm packages when missing), and the official AG-UI TypeScript
# client (@ag-ui/client, pinned) from the npm registry in a cache directory the tests find (AGUI_CLIENT_DIR, default
# ~/.cache/toolcall/agui-client). Idempotent and quick when everything is there. Run by ensure-test-programs.sh (and
# so by `mvn verify`); --quiet prints only what it installs.
set -euo pipefail
quiet=false; [ "${1:-}" = "--quiet" ] && quiet=true
version=1.0.0
dir="${AGUI_CLIENT_DIR:-$HOME/.cache/toolcall/agui-client}"

node="${TOOLCALL_NODE:-$(command -v node || true)}"
if [ -z "$node" ] || { [ -z "${TOOLCALL_NODE:-}" ] && ! command -v npm > /dev/null; }; then
  if ! command -v apt-get > /dev/null; then
    echo "agui client: node or npm not found and no apt-get: install Node.js with npm (macOS: brew install node)," \
      "or set TOOLCALL_NODE" >&2
    exit 1
  fi
  SUDO=""; if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "agui client: installing Debian's nodejs and npm packages"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q > /dev/null
  $SUDO apt-get install -y -q nodejs npm > /dev/null
  node="${TOOLCALL_NODE:-$(command -v node)}"
  quiet=false
fi
if [ ! -x "$node" ]; then echo "agui client: $node is not an executable file (TOOLCALL_NODE)" >&2; exit 1; fi

installed=$("$node" -e "try{console.log(require('$dir/node_modules/@ag-ui/client/package.json').version)}catch(e){}" 2>/dev/null || true)
if [ "$installed" != "$version" ]; then
  npm="$(dirname "$node")/npm"; [ -x "$npm" ] || npm=npm
  echo "agui client: installing @ag-ui/client@$version into $dir"
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"name":"toolcall-agui-client-cache","private":true}' > "$dir/package.json"
  (cd "$dir" && "$npm" install --no-audit --no-fund --loglevel=error "@ag-ui/client@$version" > /dev/null)
  quiet=false
fi
$quiet || echo "agui client: node $("$node" -v), @ag-ui/client $("$node" -e "console.log(require('$dir/node_modules/@ag-ui/client/package.json').version)") in $dir"
