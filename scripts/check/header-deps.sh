#!/bin/sh
# header-deps.sh BUILDDIR — a changed header rebuilds what includes it, and
# nothing is rebuilt for nothing.
#
# After a build (make test builds first), every object and test program
# is up to date and has its dependency file; then, for each header of
# common/, server/, reaper/ and tests/ that a source includes directly,
# make is asked (make -q -W HEADER: as if it had just changed) whether
# that source's object or test program would be rebuilt; and whether reaper/strip.o,
# which reads no server header, would be left alone when server.h
# changes.
set -u
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
M="make -q B=$B"
bad=0

# The build is current: nothing to remake.
for o in "$B"/obj/*/*.o; do
	[ -f "${o%.o}.d" ] || {
		echo "deps: $o has no dependency file (.d)"
		bad=1
	}
done
[ $bad -eq 0 ] || exit 1

for h in common/*.h server/*.h reaper/*.h tests/*.h; do
	[ -f "$h" ] || continue
	base=${h##*/}
	hit=""
	for c in common/*.c server/*.c reaper/*.c tests/*.c \
	    tests/integration/*.c tests/unit/*.c; do
		grep -q "^#include \"$base\"" "$c" 2>/dev/null || continue
		case $c in
		tests/integration/*) o=$B/itests/${c##*/}; o=${o%.c} ;;
		tests/unit/*) o=$B/tests/${c##*/}; o=${o%.c} ;;
		*) o=$B/obj/${c%.c}.o ;;
		esac
		[ -f "$o" ] && { hit=$o; break; }
	done
	[ -n "$hit" ] || continue
	if $M "$hit" >/dev/null 2>&1; then
		:
	else
		echo "deps: $hit is out of date before any change"
		bad=1
		continue
	fi
	if $M -W "$h" "$hit" >/dev/null 2>&1; then
		echo "deps: a change of $h would not rebuild $hit"
		bad=1
	fi
done
# A header no object includes changes nothing: reaper/strip.o does not
# read server/server.h.
if ! $M -W server/server.h "$B/obj/reaper/strip.o" >/dev/null 2>&1; then
	echo "deps: a change of server/server.h would rebuild reaper/strip.o"
	bad=1
fi
[ $bad -eq 0 ] && echo "deps: each header's change rebuilds what includes it"
exit $bad
