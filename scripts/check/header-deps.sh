#!/bin/sh
# header-deps.sh BUILDDIR — a changed header rebuilds what includes it,
# and nothing is rebuilt for nothing.
#
# After a build (make test builds first), every object, test program and
# fixture built has its dependency file and is up to date. Then, for each
# header of common/, server/, reaper/, tests/ and tests/bench/progmux/,
# every source that includes it directly and was built (a library or
# binary object, a harness or benchmark object, an integration or a unit
# test program, a fixture) must have it among its prerequisites in make's
# own database (make -p: the rules and the .d files make read). A test
# program links the libraries, whose objects a header's change rebuilds
# anyway, so "make -q -W HEADER PROGRAM" cannot tell whether the program
# itself would follow: the database can. For one object per header, make
# is asked the question itself (make -q -W HEADER OBJECT: as if it had
# just changed); and reaper/strip.o, which reads no server header, must
# be left alone when server.h changes.
set -u
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
M="make -q B=$B"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/progmux-header-deps.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT PIPE TERM
bad=0

# The targets a source is built into, whether or not they were built:
# a server module with test hooks twice (its .hooks.o too).
targets_of() {
	case $1 in
	tests/integration/*) t=$B/itests/${1##*/} ;;
	tests/unit/*) t=$B/tests/${1##*/} ;;
	tests/fixtures/*) t=$B/fixtures/${1##*/} ;;
	tests/bench/*/*) t=$B/obj/${1%.c}.o ;;
	tests/bench/*) t=$B/bench/${1##*/} ;;
	*) echo "$B/obj/${1%.c}.hooks.o"; t=$B/obj/${1%.c}.o ;;
	esac
	echo "${t%.c}"
}

# What was built, each with its dependency file: "source target". (The
# benchmarks are left out: make test does not build them, so a header
# changed since the last make bench leaves them out of date here.)
for c in common/*.c server/*.c reaper/*.c tests/*.c tests/integration/*.c \
    tests/unit/*.c tests/fixtures/*.c; do
	for t in $(targets_of "$c"); do
		[ -f "$t" ] || continue
		echo "$c $t" >>"$tmp/built"
		case $t in *.o) d=${t%.o}.d ;; *) d=$t.d ;; esac
		[ -f "$d" ] || {
			echo "deps: $t has no dependency file ($d)"
			bad=1
		}
	done
done
[ -s "$tmp/built" ] || {
	echo "deps: nothing built under $B: build first"
	exit 1
}
[ $bad -eq 0 ] || exit 1

# The build is current: nothing to remake.
# shellcheck disable=SC2046
if ! $M $(cut -d' ' -f2 "$tmp/built") >/dev/null 2>&1; then
	echo "deps: the build under $B is out of date before any change:" \
	    "make it first"
	exit 1
fi

# Each header a source includes directly: "header-name source target".
while read -r c t; do
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$c" | sed "s|\$| $c $t|"
done <"$tmp/built" >"$tmp/incl"

# make's database (the rules and the .d files it read), as "target
# prerequisite" lines for the targets built.
$M -p 2>/dev/null | awk '
    NR == FNR { want[$2 ":"] = 1; next }
    /^[^#\t].*: / && ($1 in want) {
	t = substr($1, 1, length($1) - 1)
	for (i = 2; i <= NF; i++) if ($i != "|") print t, $i
    }' "$tmp/built" - | sort -u >"$tmp/db"
grep -q "^$B/obj/common/buf.o common/buf.h\$" "$tmp/db" || {
	echo "deps: make -p gave no prerequisites for $B/obj/common/buf.o"
	exit 1
}

checked=0
for h in common/*.h server/*.h reaper/*.h tests/*.h tests/bench/progmux/*.h; do
	[ -f "$h" ] || continue
	asked=""
	awk -v b="${h##*/}" '$1 == b { print $2, $3 }' "$tmp/incl" >"$tmp/pairs"
	while read -r c t; do
		checked=$((checked + 1))
		if ! grep -qxF "$t $h" "$tmp/db"; then
			echo "deps: $t ($c includes ${h##*/}) does not depend" \
			    "on $h: a change of it would not rebuild $t"
			bad=1
			continue
		fi
		# One object per header: the question asked of make itself.
		case $t in *.o) ;; *) continue ;; esac
		[ -z "$asked" ] || continue
		asked=$t
		if $M -W "$h" "$t" >/dev/null 2>&1; then
			echo "deps: a change of $h would not rebuild $t"
			bad=1
		fi
	done <"$tmp/pairs"
done
# A header no object includes changes nothing: reaper/strip.o does not
# read server/server.h.
if ! $M -W server/server.h "$B/obj/reaper/strip.o" >/dev/null 2>&1; then
	echo "deps: a change of server/server.h would rebuild reaper/strip.o"
	bad=1
fi
[ $bad -eq 0 ] && echo "deps: each header's change rebuilds each of the" \
    "$checked objects and programs built that include it"
exit $bad
