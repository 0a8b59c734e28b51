#!/bin/sh
# test-view.sh [BUILDDIR] — the view (ui://progmux/view) for real
# (tests/view): Debian's chromium, headless under puppeteer-core, renders
# it inside the MCP Apps SDK's host side (@modelcontextprotocol/ext-apps'
# AppBridge), whose official MCP client drives BUILDDIR/progmux in both
# protocol eras. Installs what is missing first: chromium (a Debian
# package, by scripts/build/install-packages.sh) and tests/view's npm
# packages pinned with their lockfile (scripts/clients/npm-install.sh, a cache
# under build/). The page as rendered is kept as build/view/view-ERA.png.
set -eu
B=${1:-build}
cd "$(dirname "$0")/../.."
CACHE=${PROGMUX_NPM_CACHE:-$(pwd)/build/npm-cache}

sh scripts/build/install-packages.sh chromium
if [ ! -x "$B/progmux" ]; then
	echo "test-view.sh: $B/progmux missing: make all" >&2
	exit 1
fi
# The pinned packages, unless installed already at the lockfile's versions.
if ! (cd tests/view && npm ls --silent >/dev/null 2>&1); then
	mkdir -p "$CACHE"
	sh scripts/clients/npm-install.sh tests/view "$CACHE" || exit 1
fi
mkdir -p build/view
PROGMUX_BIN="$(pwd)/$B/progmux" exec node tests/view/view.mjs
