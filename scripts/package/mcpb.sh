#!/bin/sh
# mcpb.sh — progmux's MCP Bundles (make mcpb): build/progmux-VERSION-TARGET.mcpb
# for linux-x64 and linux-arm64, one-click installs for the clients that
# take MCP Bundles (Claude Desktop).
#
# Each is of type "binary": the static progmux and progmux-reaper of make
# npm (build/npm/TARGET/bin, stripped; THIRD-PARTY.md with them) and a
# manifest (scripts/package/mcpb-manifest.mjs) whose user configuration is
# the settings of server.json. The manifest is checked against the MCPB
# manifest schema, and the bundle packed, by the official mcpb tool
# (@anthropic-ai/mcpb, pinned in tests/package/mcpb with its lockfile,
# installed by scripts/clients/npm-install.sh, a cache under build/).
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
V=$(cat VERSION)
M=tests/package/mcpb
CACHE=${PROGMUX_NPM_CACHE:-$ROOT/build/npm-cache}
die() { echo "mcpb.sh: $*" >&2; exit 1; }

if ! (cd "$M" && npm ls --silent >/dev/null 2>&1); then
	mkdir -p "$CACHE"
	sh scripts/clients/npm-install.sh "$M" "$CACHE" >/dev/null || exit 1
fi
for t in linux-x64 linux-arm64; do
	n=build/npm/$t
	for f in progmux progmux-reaper; do
		[ -x "$n/bin/$f" ] || die "$n/bin/$f is missing: make npm"
	done
	d=build/mcpb/$t
	rm -rf "$d"
	mkdir -p "$d/bin"
	cp "$n/bin/progmux" "$n/bin/progmux-reaper" "$d/bin/"
	cp "$n/THIRD-PARTY.md" "$d/"
	node scripts/package/mcpb-manifest.mjs "$t" >"$d/manifest.json"
	(cd "$M" && npx --no-install mcpb validate "$ROOT/$d/manifest.json") ||
	    die "$d/manifest.json breaks the MCPB manifest schema"
	out=build/progmux-$V-$t.mcpb
	rm -f "$out"
	(cd "$M" && npx --no-install mcpb pack "$ROOT/$d" "$ROOT/$out") >&2
	[ -s "$out" ] || die "mcpb pack made no $out"
	echo "mcpb.sh: $out ($(wc -c <"$out" | tr -d ' ') bytes)"
done
