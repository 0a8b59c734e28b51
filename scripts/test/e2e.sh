#!/bin/sh
# e2e.sh [BUILDDIR [NAME]] — an end-to-end test with the official MCP SDK
# clients: tests/e2e/NAME.mjs, e2e (the SDK 1.x client, the 2025 era) by
# default, or eras (the 2.x client in both eras).
#
# Installs tests/e2e's npm packages (pinned in tests/e2e/package.json) into
# tests/e2e/node_modules, which git ignores, when they are missing or not
# the pinned version, using an npm cache under build/ (ignored by git)
# (PROGMUX_NPM_CACHE, default build/npm-cache). Then runs
# tests/e2e/e2e.mjs with the machine's node against BUILDDIR/progmux (or
# the progmux PROGMUX_BIN names: make deb-test gives /usr/bin/progmux), on
# the tmux PROGMUX_TEST_TMUX names (default: tmux on PATH).
set -eu
B=${1:-build}
NAME=${2:-e2e}
cd "$(dirname "$0")/../.."
E2E=tests/e2e
CACHE=${PROGMUX_NPM_CACHE:-$(pwd)/build/npm-cache}

for tool in node npm "${PROGMUX_TEST_TMUX:-tmux}"; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "e2e.sh: $tool not found on PATH" >&2
		exit 1
	fi
done
BIN=${PROGMUX_BIN:-$B/progmux}
if [ ! -x "$BIN" ]; then
	echo "e2e.sh: $BIN is missing: run make all first" >&2
	exit 1
fi

# The packages not installed at the version package.json pins.
stale=$(node -e '
const want = require("./" + process.argv[1] + "/package.json").dependencies;
for (const [name, v] of Object.entries(want)) {
	let have = "";
	try {
		have = require("./" + process.argv[1] + "/node_modules/" + name + "/package.json").version;
	} catch (e) { /* not installed */ }
	if (have !== v) console.log(name + "@" + v);
}' "$E2E")
if [ -n "$stale" ]; then
	echo "# installing" $stale "into $E2E/node_modules" >&2
	mkdir -p "$CACHE"
	(cd "$E2E" && npm install --no-audit --no-fund --loglevel=error \
	    --cache "$CACHE" >&2)
fi
PROGMUX_BIN="$BIN" exec node "$E2E/$NAME.mjs"
