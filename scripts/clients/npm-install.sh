#!/bin/sh
# npm-install.sh DIR CACHE — npm install in DIR (its package.json), with
# the npm cache CACHE, tried three times (10 s apart) before it gives up;
# on giving up it says so and prints the "0 passed, 1 failed" line the
# callers' runs end with, and exits 1. The environment is the caller's.
set -u
DIR=$1
CACHE=$2
try=1
until (cd "$DIR" && npm install --no-audit --no-fund --no-save \
    --loglevel=error --cache "$CACHE" >&2); do
	if [ "$try" -ge 3 ]; then
		echo "npm-install.sh: npm install in $DIR failed $try times" >&2
		echo "0 passed, 1 failed"
		exit 1
	fi
	try=$((try + 1))
	echo "# npm install failed; try $try of 3 in 10 s" >&2
	sleep 10
done
