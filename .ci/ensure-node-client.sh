#!/usr/bin/env bash
# Installs what the AG-UI client tests need (dev.toolcall.agui.AguiNodeClientTest): Node.js and npm from Debian's
# packages when missing, and the official AG-UI TypeScript client (@ag-ui/client, pinned) from the npm registry into
# a cache directory the tests find (AGUI_CLIENT_DIR, default ~/.cache/toolcall/agui-client). Idempotent and quick
# when everything is there. Run before `mvn verify`: `bash .ci/ensure-node-client.sh`.
set -euo pipefail
version=1.0.0
dir="${AGUI_CLIENT_DIR:-$HOME/.cache/toolcall/agui-client}"

if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
  echo "== installing nodejs and npm (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q > /dev/null
  apt-get install -y -q nodejs npm > /dev/null
fi

installed=$(node -e "try{console.log(require('$dir/node_modules/@ag-ui/client/package.json').version)}catch(e){}" 2>/dev/null || true)
if [ "$installed" != "$version" ]; then
  echo "== installing @ag-ui/client@$version into $dir"
  mkdir -p "$dir"
  [ -f "$dir/package.json" ] || echo '{"name":"toolcall-agui-client-cache","private":true}' > "$dir/package.json"
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error "@ag-ui/client@$version" > /dev/null)
fi
echo "agui client: node $(node -v), @ag-ui/client $(node -e "console.log(require('$dir/node_modules/@ag-ui/client/package.json').version)") in $dir"
