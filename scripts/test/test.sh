#!/bin/sh
# test.sh BUILDDIR — run every test: unit, integration, end to end, and
# the tree's checks ("checks": scripts/check/*.sh — the documents against
# the code, the binaries' symbols, header dependencies, the tool text).
#
# Each cmocka program runs on its own; its counts are added up and the
# run ends with one "N passed, M failed, K skipped" line. Any failure
# makes the exit status non-zero. A test skips only when the port lacks
# what it needs (tests/needs.h): each skip is listed at the end, by
# program, test and reason. Set TESTS=pattern to run only matching programs;
# SKIP_UNIT=1 leaves out the unit tests and the tree's checks;
# scripts/test/test-tmux.sh runs only the integration suites, once per tmux
# version.
#
# TEST_JOBS programs run at once (default 2): each test starts its own
# progmux on a tmux server of its own and waits on real events, so two
# side by side only share the machine. A line is printed as each ends;
# what failed is shown at the end. TEST_JOBS=1 runs them one by one.
#
# With SAN=1 (sanitizer builds) every process of ours, the ones tmux
# starts included (the launcher, the pane's writer, the idle window),
# writes what AddressSanitizer and LeakSanitizer find to a file under a
# directory of the job that runs the test, instead of a standard error
# nobody reads; after each test program any such file is a failure of
# that program.
set -u
B=${1:-build}
cd "$(dirname "$0")/../.."
JOBS=${TEST_JOBS:-2}
PROGMUX_BIN=$(pwd)/$B/progmux
export PROGMUX_BIN
work=$(mktemp -d /tmp/progmux-tests.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM

# The programs, longest first so that the jobs end together. Two of one
# name (a unit and an integration test) would share a log and a result,
# and run_one would run only one of them: refused.
list() {
	for t in "$B"/itests/test_*; do
		[ -x "$t" ] && [ -x "$B/tests/${t##*/}" ] || continue
		echo "test.sh: $B/itests/${t##*/} and $B/tests/${t##*/} share" \
		    "a name: rename one" >&2
		echo "duplicate-name"
	done
	[ "${SKIP_NEWCOMER:-0}" != 1 ] && [ -f scripts/test/newcomer.sh ] &&
	    echo newcomer
	[ "${SKIP_E2E:-0}" != 1 ] && [ -f scripts/test/e2e.sh ] && echo e2e &&
	    echo eras
	[ "${SKIP_UNIT:-0}" != 1 ] && echo checks
	for t in "$B"/itests/test_* "$B"/tests/test_*; do
		[ -x "$t" ] || continue
		case $t in "$B"/tests/*) [ "${SKIP_UNIT:-0}" = 1 ] && continue ;;
		esac
		basename "$t"
	done
}

# The tree's own checks, scripts/check/*.sh BUILDDIR, counted as tests.
checks() {
	cp=0
	cf=0
	for c in scripts/check/*.sh; do
		echo "[ RUN      ] ${c##*/}"
		if sh "$c" "$B"; then
			cp=$((cp + 1))
		else
			cf=$((cf + 1))
			echo "[  FAILED  ] ${c##*/}"
		fi
	done
	echo "[  PASSED  ] $cp test(s)."
	[ "$cf" -eq 0 ] || { echo "[  FAILED  ] $cf test(s), listed above"; return 1; }
}

# Run one program by name.
run_one() {
	case $1 in
	newcomer) sh scripts/test/newcomer.sh "$B" ;;
	e2e) sh scripts/test/e2e.sh "$B" ;;
	eras) sh scripts/test/e2e.sh "$B" eras ;;
	checks) checks ;;
	duplicate-name) echo "[  FAILED  ] two test programs of one name"; return 1 ;;
	*) if [ -x "$B/itests/$1" ]; then "$B/itests/$1"; else "$B/tests/$1"; fi ;;
	esac
}

# What the sanitizers reported from any process of job k since the last
# look (nothing without SAN=1); false if anything.
san_reports() {
	[ "${SAN:-}" = 1 ] || return 0
	found=0
	for f in "$work/san.$1"/asan.*; do
		[ -f "$f" ] || continue
		# LeakSanitizer could not stop a process that was being
		# killed (the tests kill processes at random moments): no
		# finding, and nothing it could check; said, not failed.
		if ! grep -qv 'Unable to get registers from thread' "$f"; then
			echo "    pid ${f##*.} ended while LeakSanitizer looked:" \
			    "$(head -1 "$f")"
			rm -f "$f"
			continue
		fi
		found=1
		echo "    sanitizer report from pid ${f##*.}:"
		sed -n '1,30p' "$f" | sed 's/^/      /'
		rm -f "$f"
	done
	return $found
}

# The next program's name from the shared queue, or nothing at the end.
next_test() {
	until mkdir "$work/lock" 2>/dev/null; do sleep 0.05; done
	n=$(cat "$work/next")
	echo $((n + 1)) >"$work/next"
	rmdir "$work/lock"
	sed -n "${n}p" "$work/queue"
}

# Job k: take programs off the queue until it is empty.
job() {
	k=$1
	if [ "${SAN:-}" = 1 ]; then
		mkdir -p "$work/san.$k"
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$work/san.$k/asan:detect_leaks=1"
		export ASAN_OPTIONS
	fi
	while name=$(next_test) && [ -n "$name" ]; do
		log=$work/$name.log
		start=$(date +%s)
		run_one "$name" >"$log" 2>&1 </dev/null
		rc=$?
		if ! san_reports "$k" >>"$log"; then
			rc=1
			echo "FAIL: a process reported to the sanitizers" >>"$log"
		fi
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
		s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$log" | tail -1)
		p=${p:-0}; f=${f:-0}; s=${s:-0}
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
		echo "$p $f $s" >"$work/$name.res"
		# Each skip: the test that ran, and the reason it gave.
		awk -v prog="$name" '/^\[ RUN      \] /{ t = $4 }
		    /^skipped: /{ sub(/^skipped: /, "");
		    print "    " prog "." t ": " $0 }' "$log" >"$work/$name.skips"
		echo "$name: $p passed, $f failed$([ "$s" -gt 0 ] &&
		    echo ", $s skipped") ($(( $(date +%s) - start ))s)"
	done
}

list | while read -r name; do
	for pat in ${TESTS:-""}; do
		case "$name" in *"$pat"*) echo "$name"; break ;; esac
	done
done >"$work/queue"
# A pattern that names no program would test nothing (make test-long
# names its programs so).
for pat in ${TESTS:-}; do
	if ! grep -qF -- "$pat" "$work/queue"; then
		echo "test.sh: TESTS=$pat names no test program of $B"
		echo "0 passed, 1 failed, 0 skipped"
		exit 1
	fi
done
# The lease rendezvous a progmux makes where its TMPDIR says: every
# progmux a test starts gets a directory of the test's as TMPDIR, so one
# that appears in ours during the run was left by a test (a progmux run
# without it). Looked at only where there was none before the run.
lease_dirs=""
for d in "${XDG_RUNTIME_DIR:-}" "${TMPDIR:-/tmp}"; do
	[ -n "$d" ] && [ ! -e "$d/progmux.lease.$(id -u)" ] &&
	    lease_dirs="$lease_dirs $d/progmux.lease.$(id -u)"
done
echo 1 >"$work/next"
k=0
while [ "$k" -lt "$JOBS" ]; do
	job "$k" &
	k=$((k + 1))
done
wait

passed=0
failed=0
skipped=0
failed_names=""
while read -r name; do
	if [ ! -f "$work/$name.res" ]; then
		failed=$((failed + 1)); failed_names="$failed_names $name"
		continue
	fi
	read -r p f s <"$work/$name.res"
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	[ "$f" -eq 0 ] && continue
	failed_names="$failed_names $name"
	log=$work/$name.log
	echo "== $name failed:"
	# What failed first (a sanitizer's report can be long), then the end.
	grep -n -B2 -A3 -E '^\[  ERROR   \]|^\[  FAILED  \] [a-z]|^ERROR|^not ok|^FAIL' "$log" |
	    head -60 | sed 's/^/    /'
	echo "    ..."
	sed 's/^/    /' "$log" | tail -40
done <"$work/queue"
while read -r name; do
	cat "$work/$name.skips" 2>/dev/null
done <"$work/queue" >"$work/skips"
if [ -s "$work/skips" ]; then
	echo "skipped on this port ($(wc -l <"$work/skips")):"
	cat "$work/skips"
fi
for l in $lease_dirs; do
	[ -e "$l" ] || continue
	echo "== a test left $l (a progmux run without the TMPDIR the" \
	    "harness gives each): removed if empty"
	rmdir "$l" 2>/dev/null
	failed=$((failed + 1)); failed_names="$failed_names left-in-TMPDIR"
done
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
