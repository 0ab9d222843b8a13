#!/usr/bin/env bash
# Makes nginx available for the multi-instance tests (dev.toolcall.cluster.ClusterTest), which start it themselves on
# a loopback port with a configuration of their own (round-robin over three instance processes, no sticky sessions).
# Installs Debian's nginx package when it is missing and keeps the system's own nginx service stopped. Set
# TOOLCALL_NGINX to an nginx binary to use another one. Idempotent: bash .ci/ensure-nginx.sh
set -euo pipefail
quiet=""
if [ "${1:-}" = "--quiet" ]; then quiet=1; fi
if [ -n "${TOOLCALL_NGINX:-}" ]; then
  [ -n "$quiet" ] || echo "nginx: using TOOLCALL_NGINX=$TOOLCALL_NGINX"
  exit 0
fi
if command -v nginx > /dev/null || [ -x /usr/sbin/nginx ]; then
  [ -n "$quiet" ] || echo "nginx: $( (command -v nginx || echo /usr/sbin/nginx) )"
  exit 0
fi
if ! command -v apt-get > /dev/null; then
  echo "nginx: not found and no apt-get: install nginx, or set TOOLCALL_NGINX to its binary" >&2
  exit 1
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "nginx: installing Debian's nginx-light package"
$SUDO apt-get update -qq
# policy-rc.d keeps the package's own service from starting (the tests start nginx themselves)
made_policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d > /dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  made_policy=1
fi
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx-light > /dev/null || \
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx > /dev/null
if [ -n "$made_policy" ]; then $SUDO rm -f /usr/sbin/policy-rc.d; fi
echo "nginx: $(/usr/sbin/nginx -v 2>&1)"
