#!/bin/sh
# mcpb-test.sh — the bundles of make mcpb as a host gets them (make
# mcpb-test). Each bundle is unpacked by the official tool (mcpb unpack)
# and by unzip, the two alike; its manifest passes the MCPB manifest
# schema (mcpb validate); both binaries are there, executable, ELF for
# the bundle's architecture. The bundle of this machine's architecture is
# then started as its manifest says (tests/package/mcpb/run.mjs) with a
# private tmux server of the test's own as its socket setting: it must
# answer initialize, run_program and prompts/list and exit 0 at the end
# of its input, leaving no process of its own. Everything is under
# build/mcpb-test, removed at the end.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
V=$(cat VERSION)
M=tests/package/mcpb
W=$ROOT/build/mcpb-test
TMUX_BIN=${PROGMUX_TEST_TMUX:-tmux}
fails=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fails=$((fails + 1)); }

sh scripts/build/install-packages.sh unzip procps
rm -rf "$W"
mkdir -p "$W/tmp"
"$TMUX_BIN" -S "$W/tmux.sock" -f /dev/null new-session -d -s base
trap '"$TMUX_BIN" -S "$W/tmux.sock" kill-server 2>/dev/null || true; rm -rf "$W"' EXIT
case $(uname -m) in
x86_64) here=linux-x64 ;;
aarch64) here=linux-arm64 ;;
*) here=none ;;
esac
for t in linux-x64 linux-arm64; do
	f=$ROOT/build/progmux-$V-$t.mcpb
	if [ ! -s "$f" ]; then
		notok "$f is there (make mcpb)"
		continue
	fi
	(cd "$M" && npx --no-install mcpb unpack "$f" "$W/$t/mcpb") >/dev/null
	unzip -q "$f" -d "$W/$t/zip"
	if diff -r "$W/$t/mcpb" "$W/$t/zip" >/dev/null; then
		ok "$t: mcpb unpack and unzip give the same files"
	else
		notok "$t: mcpb unpack and unzip give the same files"
	fi
	if (cd "$M" && npx --no-install mcpb validate "$W/$t/mcpb/manifest.json") >/dev/null; then
		ok "$t: the manifest passes the MCPB manifest schema"
	else
		notok "$t: the manifest passes the MCPB manifest schema"
	fi
	want=62
	[ "$t" = linux-arm64 ] && want=183
	for b in progmux progmux-reaper; do
		p=$W/$t/mcpb/bin/$b
		m=$(od -An -tu2 -j18 -N2 "$p" 2>/dev/null | tr -d ' ')
		if [ -x "$p" ] && [ "$(head -c4 "$p" | od -An -c | tr -d ' ')" = '177ELF' ] &&
		    [ "$m" = "$want" ]; then
			ok "$t: bin/$b is an executable ELF file for its machine ($m)"
		else
			notok "$t: bin/$b is an executable ELF file for its machine (machine $m, want $want)"
		fi
	done
	[ "$t" = "$here" ] || continue
	if SOCKET=$W/tmux.sock TMPDIR=$W/tmp node tests/package/mcpb/run.mjs \
	    "$W/$t/mcpb"; then :; else fails=$((fails + 1)); fi
	# Its reapers follow the front out: a bounded wait for none.
	n=0
	while left=$(pgrep -f "$W/$t/mcpb/bin/" || true); [ -n "$left" ] &&
	    [ "$n" -lt 50 ]; do
		sleep 0.1
		n=$((n + 1))
	done
	if [ -z "$left" ]; then
		ok "$t: nothing of the bundle's progmux is left"
	else
		notok "$t: nothing of the bundle's progmux is left ($left)"
	fi
done
echo "mcpb-test: $fails failed"
[ "$fails" -eq 0 ]
