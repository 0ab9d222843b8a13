#!/usr/bin/env bash
# Makes PostgreSQL's programs (initdb, pg_ctl) available for the store tests, which start a throwaway cluster of their
# own on a free loopback port (dev.toolcall.postgres.PgCluster). Installs Debian's postgresql package when they are
# missing; does nothing when TOOLCALL_PG_URL names an existing server (then the tests use it). Run by .ci/run; a
# developer runs it once the same way: bash .ci/ensure-postgres.sh
set -euo pipefail
if [ -n "${TOOLCALL_PG_URL:-}" ]; then
  echo "postgres: using TOOLCALL_PG_URL"
  exit 0
fi
if ls /usr/lib/postgresql/*/bin/initdb > /dev/null 2>&1; then
  echo "postgres: $(ls -d /usr/lib/postgresql/*/bin | tail -1)"
  exit 0
fi
if ! command -v apt-get > /dev/null; then
  echo "postgres: initdb not found and no apt-get: install PostgreSQL, or set TOOLCALL_PG_URL" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "postgres: installing Debian's postgresql package"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql > /dev/null
ls /usr/lib/postgresql/*/bin/initdb > /dev/null
echo "postgres: $(ls -d /usr/lib/postgresql/*/bin | tail -1)"
