#!/bin/sh
# e2e.sh [BUILDDIR] — the end-to-end test with the official MCP SDK client.
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
cd "$(dirname "$0")/.."
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

# The version package.json pins, and the one installed (if any).
want=$(node -p "require('./$E2E/package.json').dependencies['@modelcontextprotocol/sdk']")
have=$(node -p "try { require('./$E2E/node_modules/@modelcontextprotocol/sdk/package.json').version } catch (e) { '' }")
if [ "$want" != "$have" ]; then
	echo "# installing @modelcontextprotocol/sdk@$want into $E2E/node_modules" >&2
	mkdir -p "$CACHE"
	(cd "$E2E" && npm install --no-audit --no-fund --loglevel=error \
	    --cache "$CACHE" >&2)
fi
PROGMUX_BIN="$BIN" exec node "$E2E/e2e.mjs"
