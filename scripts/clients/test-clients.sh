#!/bin/sh
# test-clients.sh [BUILDDIR] — progmux through the real agent clients.
#
# Installs the clients pinned in tests/clients/package.json (Claude Code,
# Gemini CLI, Codex, opencode, Kilo, Qwen Code, GitHub Copilot CLI, Cline,
# the MCP Inspector) into build/clients/node_modules
# when they are missing or not the pinned versions, with an npm cache
# under build/ (PROGMUX_NPM_CACHE, default build/npm-cache). A
# failed install is tried again twice, then the run fails: it never passes
# by skipping. npm and the packages' install scripts (some run the client
# once, which writes its config, cache and a directory in TMPDIR) run with
# a throwaway HOME, XDG directories and TMPDIR under build/clients, removed
# afterwards; the user's ~/.npmrc is still read. Then runs
# tests/clients/clients.mjs against BUILDDIR/progmux (see that file for
# what is checked).
set -eu
B=${1:-build}
cd "$(dirname "$0")/../.."
DIR=build/clients
CACHE=${PROGMUX_NPM_CACHE:-$(pwd)/build/npm-cache}

for tool in node npm tmux; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "test-clients.sh: $tool not found on PATH" >&2
		exit 1
	fi
done
if [ ! -x "$B/progmux" ] || [ ! -x "$B/progmux-reaper" ]; then
	echo "test-clients.sh: $B/progmux is missing: run make all first" >&2
	exit 1
fi

# Prints the packages that are not installed at their pinned version.
stale() {
	node -e '
const fs = require("fs");
const want = JSON.parse(fs.readFileSync(process.argv[1], "utf8")).dependencies;
for (const [name, v] of Object.entries(want)) {
	let have = "";
	try {
		have = JSON.parse(fs.readFileSync(process.argv[2] + "/node_modules/" + name + "/package.json", "utf8")).version;
	} catch (e) { /* not installed */ }
	if (have !== v) console.log(name + "@" + v + " (installed: " + (have || "none") + ")");
}' tests/clients/package.json "$DIR"
}

mkdir -p "$DIR"
if [ -n "$(stale)" ] || ! cmp -s tests/clients/package.json "$DIR/package.json"; then
	stale | sed 's/^/# installing /' >&2
	cp tests/clients/package.json "$DIR/package.json"
	mkdir -p "$CACHE"
	IHOME=$(pwd)/$DIR/install-home
	rm -rf "$IHOME"
	mkdir -p "$IHOME/tmp"
	trap 'rm -rf "$IHOME"' EXIT
	NPM_CONFIG_USERCONFIG=${NPM_CONFIG_USERCONFIG:-$HOME/.npmrc} \
	    HOME="$IHOME" TMPDIR="$IHOME/tmp" XDG_CONFIG_HOME="$IHOME/.config" \
	    XDG_CACHE_HOME="$IHOME/.cache" XDG_DATA_HOME="$IHOME/.local/share" \
	    XDG_STATE_HOME="$IHOME/.local/state" \
	    sh scripts/clients/npm-install.sh "$DIR" "$CACHE" || exit 1
	rm -rf "$IHOME"
	trap - EXIT
	if [ -n "$(stale)" ]; then
		stale | sed 's/^/test-clients.sh: not installed: /' >&2
		echo "0 passed, 1 failed"
		exit 1
	fi
fi
PROGMUX_BIN="$(pwd)/$B/progmux" CLIENTS_DIR="$(pwd)/$DIR" \
    exec node tests/clients/clients.mjs
