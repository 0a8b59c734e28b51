#!/bin/sh
# fuzz.sh SECONDS FUZZER... — run each libFuzzer target for SECONDS on its
# corpus: tests/fuzz/NAME/ (kept in the tree, read only) and
# build/fuzz/new-NAME/ (what this run finds, under the build directory
# with the logs and any crash artefact). A finding prints the end of its
# log and fails the run (make fuzz).
set -u
cd "$(dirname "$0")/../.." || exit 1
secs=${1:?usage: fuzz.sh SECONDS FUZZER...}
shift
for f in "$@"; do
	n=${f##*/fuzz_}
	mkdir -p "build/fuzz/new-$n"
	echo "fuzz: $f for ${secs}s"
	if ! "$f" -max_total_time="$secs" -print_final_stats=1 \
	    -artifact_prefix=build/fuzz/ "build/fuzz/new-$n" "tests/fuzz/$n" \
	    2>"build/fuzz/$n.log"; then
		tail -50 "build/fuzz/$n.log"
		exit 1
	fi
	grep -h 'stat::number_of_executed_units' "build/fuzz/$n.log"
done
