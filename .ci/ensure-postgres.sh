#!/usr/bin/env bash
# Makes PostgreSQL's programs (initdb, pg_ctl) available for the store tests, which start a throwaway cluster of their
# own on a free loopback port (dev.toolcall.postgres.PgCluster). Does nothing when TOOLCALL_PG_URL names an existing
# server (the tests then use it) or TOOLCALL_PG_BIN names the programs' folder, or when initdb is on PATH or under
# Debian's /usr/lib/postgresql/N/bin; else installs Debian's postgresql package. Run by ensure-test-programs.sh (and
# so by `mvn verify`); --quiet prints only what it installs.
set -euo pipefail
quiet=false; [ "${1:-}" = "--quiet" ] && quiet=true
say() { $quiet || echo "$@"; }
if [ -n "${TOOLCALL_PG_URL:-}" ]; then
  say "postgres: using TOOLCALL_PG_URL"
  exit 0
fi
if [ -n "${TOOLCALL_PG_BIN:-}" ]; then
  if [ -x "$TOOLCALL_PG_BIN/initdb" ]; then say "postgres: $TOOLCALL_PG_BIN"; exit 0; fi
  echo "postgres: TOOLCALL_PG_BIN=$TOOLCALL_PG_BIN holds no executable initdb: fix or unset it" >&2
  exit 1
fi
if command -v initdb > /dev/null; then
  say "postgres: $(dirname "$(command -v initdb)")"
  exit 0
fi
if ls /usr/lib/postgresql/*/bin/initdb > /dev/null 2>&1; then
  say "postgres: $(ls -d /usr/lib/postgresql/*/bin | tail -1)"
  exit 0
fi
if ! command -v apt-get > /dev/null; then
  echo "postgres: initdb not found and no apt-get: install PostgreSQL (macOS: brew install postgresql) and set" \
    "TOOLCALL_PG_BIN to the folder of initdb, or set TOOLCALL_PG_URL to an existing server's JDBC URL" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "postgres: installing Debian's postgresql package"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql > /dev/null
ls /usr/lib/postgresql/*/bin/initdb > /dev/null
echo "postgres: $(ls -d /usr/lib/postgresql/*/bin | tail -1)"
