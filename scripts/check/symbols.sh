#!/bin/sh
# symbols.sh BUILDDIR — the binaries carry only what they run.
#
# Every global symbol defined in an object linked into progmux or
# progmux-reaper must be used by the binary: referenced by another of its
# objects, or used in its own file beyond its definition (comments left
# out; such a function may be tested through its header too). A symbol
# used only by the tests, or by nothing, is named and the check fails:
# move it to the tests, put it under PROGMUX_TESTING (the test builds'
# hooks), or remove it. Symbols another OSDEP backend's source uses are
# that backend's to check. Linux (nm, gcc's comment stripping).
set -u
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/progmux-symbols.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

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

bad=0
for bin in front reaper; do
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
		[ "$sym" = main ] && continue
		grep -qx "$sym" "$tmp/uses" && continue
		src=${o#"$B"/obj/}
		src=${src%.o}.c
		case $src in gen/*) continue ;; esac
		n=$(gcc -fpreprocessed -E -P "$src" 2>/dev/null | grep -cw "$sym")
		[ "$n" -gt 1 ] && continue
		if grep -lw "$sym" server/*.c common/*.c reaper/*.c |
		    grep -vx "$src" | grep -q .; then
			continue
		fi
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
