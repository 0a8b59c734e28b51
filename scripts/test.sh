#!/bin/sh
# test.sh BUILDDIR — run every test: unit, integration, end to end.
#
# Each cmocka program runs on its own; its counts are added up and the
# run ends with one "N passed, M failed" line. Any failure makes the exit
# status non-zero. Set TESTS=pattern to run only matching programs;
# SKIP_UNIT=1 leaves out the unit tests (scripts/test-tmux.sh runs only
# the integration suites, once per tmux version).
#
# With SAN=1 (sanitizer builds) every process of ours, the ones tmux
# starts included (the launcher, the pane's writer, the idle window),
# writes what AddressSanitizer and LeakSanitizer find to a file under
# BUILDDIR/sanlog instead of a standard error nobody reads; after each
# test program any such file is a failure of that program.
set -u
B=${1:-build}
cd "$(dirname "$0")/.."
passed=0
failed=0
failed_names=""
log=$(mktemp /tmp/progmux-testlog.XXXXXX)
PROGMUX_BIN=$(pwd)/$B/progmux
export PROGMUX_BIN

if [ "${SAN:-}" = 1 ]; then
	sanlog=$(pwd)/$B/sanlog
	mkdir -p "$sanlog"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$sanlog/asan:detect_leaks=1"
	export ASAN_OPTIONS
fi

# What the sanitizers reported from any process during the last test.
san_reports() {
	[ "${SAN:-}" = 1 ] || return 0
	found=0
	for f in "$sanlog"/asan.*; do
		[ -f "$f" ] || continue
		found=1
		echo "    sanitizer report from pid ${f##*.}:"
		sed -n '1,30p' "$f" | sed 's/^/      /'
		rm -f "$f"
	done
	return $found
}

run() {
	name=$1; shift
	case "$name" in *${TESTS:-}*) ;; *) return ;; esac
	start=$(date +%s)
	san_reports >/dev/null
	"$@" >"$log" 2>&1
	rc=$?
	if ! san_reports >>"$log"; then
		rc=1
		echo "FAIL: a process reported to the sanitizers" >>"$log"
	fi
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
	p=${p:-0}; f=${f:-0}
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	passed=$((passed + p)); failed=$((failed + f))
	echo "$name: $p passed, $f failed ($(( $(date +%s) - start ))s)"
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
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
