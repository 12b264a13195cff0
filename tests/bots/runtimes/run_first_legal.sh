#!/bin/sh
# Runs the first_legal program next to this script: a shell-wrapper bot, to check the sandbox lets /bin/sh exec one.
exec "$(dirname "$0")/first_legal" "$@"
