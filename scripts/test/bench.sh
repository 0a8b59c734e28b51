#!/bin/sh
#
# bench.sh — run the benchmarks and print one table of figures.
#
#	sh scripts/test/bench.sh [BUILD_DIR]		(make bench)
#	BENCH_SMOKE=1 sh scripts/test/bench.sh	(make bench-smoke: a few seconds)
#
# Runs BUILD_DIR/bench/bench_strip --json (the stripper's MB/s) if it was
# built, then BUILD_DIR/bench/bench_progmux, which folds those figures in,
# prints the table on stdout and writes BUILD_DIR/bench.json; a cold start
# is held against BUILD_DIR/no-page/progmux, the build without
# ask_user_secret's page (make bench builds it), when it is there. Every tmux
# server involved is a private one on a socket in a temporary directory.
# A slow machine never fails this: the exit status is non-zero only when
# the harness itself broke. BENCH_RUNS and BENCH_TP_RUNS override the
# number of samples.

set -u

B=${1:-build}
cd "$(dirname "$0")/../.." || exit 1

smoke=
case ${BENCH_SMOKE:-0} in
0|'') ;;
*) smoke=--smoke ;;
esac

if [ ! -x "$B/bench/bench_progmux" ]; then
	echo "bench.sh: $B/bench/bench_progmux is not built (make bench)" >&2
	exit 1
fi

rc=0
strip_json=
if [ -x "$B/bench/bench_strip" ]; then
	strip_json=$B/bench-strip.json
	echo "bench: stripper (bench_strip $smoke)" >&2
	if ! "$B/bench/bench_strip" --json $smoke >"$strip_json"; then
		echo "bench.sh: bench_strip failed" >&2
		rm -f "$strip_json"
		strip_json=
		rc=1
	fi
else
	echo "bench.sh: no $B/bench/bench_strip; figure 6 is n/a" >&2
fi

no_page=
[ -x "$B/no-page/progmux" ] && no_page=$B/no-page/progmux
"$B/bench/bench_progmux" $smoke ${strip_json:+--strip-json "$strip_json"} \
    ${no_page:+--no-page "$no_page"} --json-out "$B/bench.json" || rc=$?
exit $rc
