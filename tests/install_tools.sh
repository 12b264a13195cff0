#!/bin/sh
# What the tests need from Debian's packages, installed when missing: headless Chromium and
# its chromedriver for the browser tests (tests/pages/test_viewer_browser.py), tmux for
# the tests that play in a terminal as a person does (tests/human/test_play_tmux.py), and
# the compilers and runtimes of the bots entrants bring (tests/sandbox/test_runtime_matrix.py:
# C, C++, Rust, Go with cgo, Java 17, node).
# It never fails the command it is part of: where a tool cannot be installed (no apt-get, no
# root), it writes why to tests/.<tool>-unavailable and those tests skip with that reason;
# without that file, a tool missing under CI fails them (a broken install must not pass as a
# skip).
HERE="$(dirname "$0")"
SUDO=""
if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    SUDO="sudo -n"
fi
UPDATED=""

# install TOOL PACKAGE... : the packages, unless every command they give is here already
# (the commands are the package names but for those the case below names).
install() {
    tool="$1"
    shift
    mark="$HERE/.$tool-unavailable"
    rm -f "$mark"
    missing=""
    for package in "$@"; do
        case "$package" in
            chromium-driver) command="chromedriver" ;;
            golang-go) command="go" ;;
            openjdk-17-jdk-headless) command="javac" ;;
            nodejs) command="node" ;;
            *) command="$package" ;;
        esac
        command -v "$command" >/dev/null 2>&1 || missing="$missing $package"
    done
    [ -z "$missing" ] && return 0
    why=""
    if ! command -v apt-get >/dev/null 2>&1; then
        why="no apt-get here to install$missing"
    elif [ "$(id -u)" -ne 0 ] && [ -z "$SUDO" ]; then
        why="not root and no sudo to install$missing"
    elif ! DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing >/dev/null 2>&1; then
        if [ -z "$UPDATED" ]; then
            UPDATED=1
            $SUDO apt-get update -q >/dev/null 2>&1
        fi
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing >/dev/null 2>&1 \
            || why="apt-get could not install$missing"
    fi
    if [ -n "$why" ]; then
        echo "install_tools: $why; the $tool tests will skip" >&2
        echo "$why" > "$mark"
    else
        echo "install_tools: installed$missing" >&2
    fi
}

install browser chromium chromium-driver
install tmux tmux
install gcc gcc
install g++ g++
install rustc rustc
install go golang-go
install javac openjdk-17-jdk-headless
install node nodejs
exit 0
