#!/usr/bin/env bash
# Installs what the approval page's browser tests need (dev.toolcall.agui.ApprovalPageBrowserTest and friends):
# headless Chromium and its WebDriver from Debian's `chromium` and `chromium-driver` packages, when missing.
# Selenium itself comes from Maven Central as a test dependency. Run before `mvn verify`: `bash .ci/ensure-browser.sh`.
set -euo pipefail
if ! command -v chromium > /dev/null || ! command -v chromedriver > /dev/null; then
  echo "== installing chromium and chromium-driver (Debian packages)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q > /dev/null
  apt-get install -y -q chromium chromium-driver > /dev/null
fi
echo "browser: $(chromium --version 2>/dev/null | head -1); $(chromedriver --version 2>/dev/null | head -1)"
