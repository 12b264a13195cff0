#!/bin/sh
# Headless Chromium for the browser tests (tests/test_viewer_browser.py): Debian's chromium
# and its chromedriver, installed when missing. It never fails the command it is part of:
# where they cannot be installed (no apt-get, no root), the browser tests skip and say why.
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install_browser: no apt-get here; the browser tests will skip" >&2
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        echo "install_browser: not root and no sudo; the browser tests will skip" >&2
        exit 0
    fi
fi
install() {
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
        chromium chromium-driver >/dev/null
}
if install || { $SUDO apt-get update -q >/dev/null && install; }; then
    echo "install_browser: installed chromium and chromium-driver" >&2
else
    echo "install_browser: apt-get could not install chromium; the browser tests will skip" >&2
fi
exit 0
