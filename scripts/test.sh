#!/bin/sh
# test.sh BUILDDIR — run every test: unit, integration, end to end.
#
# Each cmocka program runs on its own; its counts are added up and the
# run ends with one "N passed, M failed, K skipped" line. Any failure
# makes the exit status non-zero. A test skips only when the port lacks
# what it needs (tests/needs.h): each skip is listed at the end, by
# program, test and reason. Set TESTS=pattern to run only matching programs;
# SKIP_UNIT=1 leaves out the unit tests (scripts/test-tmux.sh runs only
# the integration suites, once per tmux version).
set -u
B=${1:-build}
cd "$(dirname "$0")/.."
passed=0
failed=0
skipped=0
failed_names=""
log=$(mktemp /tmp/progmux-testlog.XXXXXX)
skips=$(mktemp /tmp/progmux-skips.XXXXXX)
PROGMUX_BIN=$(pwd)/$B/progmux
export PROGMUX_BIN

run() {
	name=$1; shift
	case "$name" in *${TESTS:-}*) ;; *) return ;; esac
	start=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	p=${p:-0}; f=${f:-0}; s=${s:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	echo "$name: $p passed, $f failed$([ "$s" -gt 0 ] && echo ", $s skipped") ($(( $(date +%s) - start ))s)"
	# Each skip: the test that ran, and the reason it gave.
	awk -v prog="$name" '/^\[ RUN      \] /{ t = $4 }
	    /^skipped: /{ sub(/^skipped: /, ""); print "    " prog "." t ": " $0 }' \
	    "$log" >>"$skips"
	if [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then
		failed_names="$failed_names $name"
		# What failed first (a sanitizer's report can be long), then the end.
		grep -n -B2 -A3 -E '^\[  ERROR   \]|^\[  FAILED  \] [a-z]|^ERROR|^not ok|^FAIL' "$log" |
		    head -60 | sed 's/^/    /'
		echo "    ..."
		sed 's/^/    /' "$log" | tail -40
	fi
}

for t in "$B"/tests/test_* "$B"/itests/test_*; do
	[ -x "$t" ] || continue
	case $t in "$B"/tests/*) [ "${SKIP_UNIT:-0}" = 1 ] && continue ;; esac
	run "$(basename "$t")" "$t"
done
if [ -f scripts/e2e.sh ] && [ "${SKIP_E2E:-0}" != 1 ]; then
	run e2e sh scripts/e2e.sh "$B"
fi
if [ -f scripts/newcomer.sh ] && [ "${SKIP_NEWCOMER:-0}" != 1 ]; then
	run newcomer sh scripts/newcomer.sh "$B"
fi
rm -f "$log"
if [ -s "$skips" ]; then
	echo "skipped on this port ($(wc -l <"$skips")):"
	cat "$skips"
fi
rm -f "$skips"
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
