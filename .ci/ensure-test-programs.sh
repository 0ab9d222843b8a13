#!/usr/bin/env bash
# Installs what the tests need when it is missing, then returns: PostgreSQL's programs (ensure-postgres.sh), Node and
# the AG-UI client (ensure-node-client.sh), the ACP client SDK (ensure-acp-client.sh), the A2A client (ensure-a2a-client.sh), headless Chromium and its
# driver (ensure-browser.sh), nginx (ensure-nginx.sh). `mvn verify` runs it before the tests (the `test-programs`
# execution in pom.xml; skipped with -DskipTests or -Dtoolcall.setup.skip=true), and so does .ci/run. A program named
# by its environment variable (TOOLCALL_PG_BIN or TOOLCALL_PG_URL, TOOLCALL_NODE, AGUI_CLIENT_DIR, ACP_CLIENT_DIR and A2A_CLIENT_DIR,
# TOOLCALL_CHROMIUM and TOOLCALL_CHROMEDRIVER, TOOLCALL_NGINX) or found on PATH is used as it is; installing uses
# Debian's packages (apt-get, as root or through sudo) and the npm registry. --quiet prints only what it installs. See
# docs/testing.md.
set -euo pipefail
cd "$(dirname "$0")"
bash ./ensure-postgres.sh "$@"
bash ./ensure-node-client.sh "$@"
bash ./ensure-acp-client.sh "$@"
bash ./ensure-a2a-client.sh "$@"
bash ./ensure-browser.sh "$@"
bash ./ensure-nginx.sh "$@"
