#!/bin/sh
# valgrind-progmux.sh — build/progmux under valgrind, for PROGMUX_BIN.
# Any memory error or leak makes progmux exit 99, which the test harness
# sees when it closes the server. `make test-valgrind` uses it.
d=$(cd "$(dirname "$0")/../.." && pwd)
exec valgrind -q --error-exitcode=99 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --track-fds=no \
    "${VALGRIND_PROGMUX:-$d/build/progmux}" "$@"
