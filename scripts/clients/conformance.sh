#!/bin/sh
# conformance.sh [BUILDDIR] — the official MCP conformance suite against
# BUILDDIR/progmux in both protocol eras (tests/conformance/run.mjs).
#
# Installs the packages tests/conformance/package.json pins (the suite at
# 0.2.0-alpha.12 and 0.1.16, and a Node 22 binary from the npm registry:
# the suite needs Node 22) into build/conformance when they are missing
# or not the pinned versions, with the npm cache under build/
# (PROGMUX_NPM_CACHE); a failed install is tried again twice
# (scripts/clients/npm-install.sh).
set -eu
B=${1:-build}
cd "$(dirname "$0")/../.."
DIR=build/conformance
CACHE=${PROGMUX_NPM_CACHE:-$(pwd)/build/npm-cache}
for tool in node npm; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "conformance.sh: $tool not found on PATH" >&2
		exit 1
	fi
done
if [ ! -x "$B/progmux" ]; then
	echo "conformance.sh: $B/progmux is missing: run make all first" >&2
	exit 1
fi
mkdir -p "$DIR"
if ! cmp -s tests/conformance/package.json "$DIR/package.json" ||
    [ ! -d "$DIR/node_modules/conformance-0.2" ] ||
    [ ! -d "$DIR/node_modules/conformance-0.1" ]; then
	cp tests/conformance/package.json "$DIR/package.json"
	sh scripts/clients/npm-install.sh "$DIR" "$CACHE" || exit 1
fi
PROGMUX_BIN="$(pwd)/$B/progmux" CONFORMANCE_DIR="$(pwd)/$DIR" \
    exec node tests/conformance/run.mjs
