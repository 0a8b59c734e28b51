#!/bin/sh
# symbols.sh BUILDDIR — the binaries carry only what they run.
#
# Every global symbol defined in an object linked into progmux or
# progmux-reaper must be used by the binary: referenced by another of its
# objects, or used in its own file beyond its definition (comments left
# out; such a function may be tested through its header too), or in the
# source of a part this build leaves out (another port's). A symbol
# used only by the tests, or by nothing, is named and the check fails:
# move it to the tests, put it under PROGMUX_TESTING (the test builds'
# hooks), or remove it. Symbols another OSDEP backend's source uses are
# that backend's to check. Linux (nm, gcc's comment stripping).
set -u
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/progmux-symbols.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/text"

# The objects each binary links, by the sources that exist now (stale
# objects of removed files are left out).
objs() {
	for o in "$@"; do
		[ -f "$o" ] || continue
		s=${o#"$B"/obj/}
		s=${s%.o}.c
		case $s in gen/*) echo "$o" ;; *) [ -f "$s" ] && echo "$o" ;; esac
	done
}
objs "$B"/obj/server/*.o "$B"/obj/gen/schemas.o "$B"/obj/common/*.o \
    >"$tmp/front"
objs "$B"/obj/reaper/*.o "$B"/obj/common/*.o >"$tmp/reaper"
[ -s "$tmp/front" ] && [ -s "$tmp/reaper" ] || {
	echo "symbols: no objects under $B/obj: build first" >&2
	exit 1
}

# Mach-O (macOS) names carry a leading underscore that C's do not: one
# is taken off every name nm gives for such objects (on a Mac, or
# cross-built ones read with NM=llvm-nm: scripts/ci/macos-gate.sh).
NM=${NM:-nm}
case $(file -b "$(head -n 1 "$tmp/front")" 2>/dev/null) in
Mach-O*) us=_ ;;
*) us= ;;
esac

# Is sym used in one of these sources? Comments left out (gcc's
# preprocessor), a use is a mention on an indented line (in a function
# or an initializer), after an "=" or in a #define: not the definition
# or a declaration, which KNF puts at the start of the line.
uses() {
	sym=$1
	shift
	for f in "$@"; do
		c=$tmp/text/$(echo "$f" | tr / _)
		[ -f "$c" ] || gcc -fpreprocessed -E -P "$f" >"$c" 2>/dev/null
		awk -v s="$sym" '
			function word(t) { return t ~ ("(^|[^A-Za-z0-9_])" s \
			    "([^A-Za-z0-9_]|$)") }
			/^[ \t]/ || /^#[ \t]*define/ { if (word($0)) f = 1; next }
			index($0, "=") && word(substr($0, index($0, "="))) { f = 1 }
			END { exit !f }' "$c" && return 0
	done
	return 1
}

# The port's description of itself, which every port defines and only
# the tests read (tests/needs.h: what to skip, and why).
PORT_SELF="osdep_features osdep_name ttywait_can_tell ttywait_cost"

bad=0
for bin in front reaper; do
	# The sources of its objects: another source's use (another port's,
	# a part not built) is looked for in the text.
	sed -e "s|^$B/obj/||" -e 's|\.o$|.c|' "$tmp/$bin" >"$tmp/$bin.src"
	while read -r o; do
		# (Names the compiler makes, such as ASan's __odr_asan.*,
		# are not ours.)
		"$NM" -g --defined-only "$o" |
		    awk -v o="$o" -v us="$us" '$2 ~ /^[TDBRS]$/ {
			if (us != "") sub("^" us, "", $3)
			if ($3 !~ /^__/) print $3, o }'
	done <"$tmp/$bin" | sort -u >"$tmp/defs"
	while read -r o; do
		# (The name is the last field, with or without a "U" before it.)
		"$NM" -u "$o" | awk -v us="$us" '{
			if (us != "") sub("^" us, "", $NF)
			print $NF }'
	done <"$tmp/$bin" | sort -u >"$tmp/uses"
	while read -r sym o; do
		case " main $PORT_SELF " in *" $sym "*) continue ;; esac
		grep -qx "$sym" "$tmp/uses" && continue
		src=${o#"$B"/obj/}
		src=${src%.o}.c
		case $src in gen/*) continue ;; esac
		uses "$sym" "$src" && continue
		# shellcheck disable=SC2046
		uses "$sym" $(ls server/*.c common/*.c reaper/*.c |
		    grep -vxF -f "$tmp/$bin.src") && continue
		who=$(grep -rlw --include='*.c' "$sym" tests | sort -u |
		    tr '\n' ' ')
		echo "symbols: $sym ($src) is linked into the $bin but used" \
		    "${who:+only by }${who:-by nothing}"
		bad=1
	done <"$tmp/defs"
done
[ $bad -eq 0 ] &&
    echo "symbols: every global symbol of progmux and progmux-reaper is used there"
exit $bad
