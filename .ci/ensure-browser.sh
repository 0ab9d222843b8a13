#!/usr/bin/env bash
# Makes headless Chromium and its WebDriver available for the approval page's browser tests
# (dev.toolcall.agui.ApprovalPageBrowserTest and friends). Uses TOOLCALL_CHROMIUM and TOOLCALL_CHROMEDRIVER when set,
# else `chromium` (or `chromium-browser`, `google-chrome`) and `chromedriver` on PATH; installs Debian's `chromium` and
# `chromium-driver` packages when they are missing. Selenium itself comes from Maven Central as a test dependency.
# Run by ensure-test-programs.sh (and so by `mvn verify`); --quiet prints only what it installs.
set -euo pipefail
quiet=false; [ "${1:-}" = "--quiet" ] && quiet=true
find_browser() {
  if [ -n "${TOOLCALL_CHROMIUM:-}" ]; then echo "$TOOLCALL_CHROMIUM"; return; fi
  command -v chromium || command -v chromium-browser || command -v google-chrome || true
}
find_driver() {
  if [ -n "${TOOLCALL_CHROMEDRIVER:-}" ]; then echo "$TOOLCALL_CHROMEDRIVER"; return; fi
  command -v chromedriver || true
}
browser=$(find_browser); driver=$(find_driver)
if [ -z "$browser" ] || [ -z "$driver" ]; then
  if ! command -v apt-get > /dev/null; then
    echo "browser: Chromium or chromedriver not found and no apt-get: install them (macOS: brew install --cask" \
      "chromium; brew install chromedriver), or set TOOLCALL_CHROMIUM and TOOLCALL_CHROMEDRIVER" >&2
    exit 1
  fi
  SUDO=""; if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "browser: installing Debian's chromium and chromium-driver packages"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q > /dev/null
  $SUDO apt-get install -y -q chromium chromium-driver > /dev/null
  browser=$(find_browser); driver=$(find_driver)
  quiet=false
fi
for p in "$browser" "$driver"; do
  if [ ! -x "$p" ]; then echo "browser: $p is not an executable file (TOOLCALL_CHROMIUM / TOOLCALL_CHROMEDRIVER)" >&2; exit 1; fi
done
$quiet || echo "browser: $("$browser" --version 2>/dev/null | head -1); $("$driver" --version 2>/dev/null | head -1)"
