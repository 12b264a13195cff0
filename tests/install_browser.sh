#!/bin/sh
# Headless Chromium for the browser tests (tests/pages/test_viewer_browser.py): Debian's chromium
# and its chromedriver, installed when missing. It never fails the command it is part of:
# where they cannot be installed (no apt-get, no root), it writes why to
# tests/.browser-unavailable and the browser tests skip with that reason; without that
# file, a missing browser under CI fails them (a broken install must not pass as a skip).
MARK="$(dirname "$0")/.browser-unavailable"
rm -f "$MARK"
unavailable() {
    echo "install_browser: $1; the browser tests will skip" >&2
    echo "$1" > "$MARK"
    exit 0
}
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    unavailable "no apt-get here to install chromium and chromium-driver"
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        unavailable "not root and no sudo to install chromium and chromium-driver"
    fi
fi
install() {
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
        chromium chromium-driver >/dev/null
}
if install || { $SUDO apt-get update -q >/dev/null && install; }; then
    echo "install_browser: installed chromium and chromium-driver" >&2
else
    unavailable "apt-get could not install chromium and chromium-driver"
fi
exit 0
