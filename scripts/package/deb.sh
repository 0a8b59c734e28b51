#!/bin/sh
# deb.sh [BINDIR [OUTDIR]] — build OUTDIR/progmux_VERSION-1_ARCH.deb
# (OUTDIR: build) with dpkg-deb from the binaries in BINDIR (make deb
# builds them in build/deb-bin with Debian's hardening flags, from
# dpkg-buildflags).
#
# The package holds both binaries in /usr/bin (progmux finds
# progmux-reaper beside its own executable), stripped as dh_strip strips;
# the manual page progmux(1), with progmux-reaper(1) a link to it (it is
# described there); the README, docs/*.md, the copyright and
# changelog.Debian in /usr/share/doc/progmux. Depends are what the binaries link, as
# dpkg-shlibdeps computes them, plus tmux 3.2a or newer. The reaper is
# linked statically (one runs per program; see the Makefile), so
# Built-Using names the glibc and msgpack-c sources it holds. Owner and
# group are root (dpkg-deb --root-owner-group); no fakeroot is needed.
# Prints the path of the package.
set -eu
B=${1:-build}
OUT=${2:-build}
cd "$(dirname "$0")/../.."
for tool in dpkg-deb dpkg-shlibdeps strip gzip; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "deb.sh: $tool not found on PATH (apt-get install dpkg-dev binutils)" >&2
		exit 1
	fi
done
if [ ! -x "$B/progmux" ] || [ ! -x "$B/progmux-reaper" ]; then
	echo "deb.sh: $B/progmux is missing: run make all first" >&2
	exit 1
fi

UPSTREAM=$(cat VERSION)
VERSION=$UPSTREAM-1
ARCH=$(dpkg --print-architecture)
MAINT="progmux maintainers <maintainers@users.noreply.a-seed-6f99075c.example>"
W=$OUT/deb
ROOT=$W/root
DEB=$OUT/progmux_${VERSION}_${ARCH}.deb
# One date for every timestamp: the last commit's, else VERSION's.
if SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null) &&
    [ -n "$SOURCE_DATE_EPOCH" ]; then :; else
	SOURCE_DATE_EPOCH=$(stat -c %Y VERSION)
fi
export SOURCE_DATE_EPOCH

rm -rf "$W" "$DEB"
umask 022
mkdir -p "$ROOT/DEBIAN" "$ROOT/usr/bin" "$ROOT/usr/share/man/man1" \
    "$ROOT/usr/share/doc/progmux" "$ROOT/usr/share/lintian/overrides" \
    "$W/debian"

# The binaries, stripped as dh_strip does.
for f in progmux progmux-reaper; do
	install -m 0755 "$B/$f" "$ROOT/usr/bin/$f"
	strip --remove-section=.comment --remove-section=.note \
	    --strip-unneeded "$ROOT/usr/bin/$f"
done

# The manual page; progmux-reaper's is the same page.
gzip -9n <progmux.1 >"$ROOT/usr/share/man/man1/progmux.1.gz"
ln -s progmux.1.gz "$ROOT/usr/share/man/man1/progmux-reaper.1.gz"

# Documentation.
gzip -9n <README.md >"$ROOT/usr/share/doc/progmux/README.md.gz"
mkdir -p "$ROOT/usr/share/doc/progmux/docs"
for f in docs/*.md; do
	gzip -9n <"$f" >"$ROOT/usr/share/doc/progmux/$f.gz"
done
install -m 0644 scripts/package/deb/copyright "$ROOT/usr/share/doc/progmux/copyright"
# The tags argued in scripts/package/deb/lintian.md.
install -m 0644 scripts/package/deb/lintian-overrides \
    "$ROOT/usr/share/lintian/overrides/progmux"
DATE=$(LC_ALL=C date -u -d "@$SOURCE_DATE_EPOCH" '+%a, %d %b %Y %H:%M:%S +0000')
cat >"$W/changelog" <<EOF
progmux ($VERSION) unstable; urgency=medium

  * Packaged from progmux $UPSTREAM with make deb.

 -- $MAINT  $DATE
EOF
gzip -9n <"$W/changelog" >"$ROOT/usr/share/doc/progmux/changelog.Debian.gz"

# What the binaries link, as dpkg-shlibdeps says (it wants a
# debian/control beside it).
cat >"$W/debian/control" <<EOF
Source: progmux

Package: progmux
Architecture: any
EOF
shlibs=$(cd "$W" && dpkg-shlibdeps -O -e"$(pwd)/root/usr/bin/progmux" \
    -e"$(pwd)/root/usr/bin/progmux-reaper" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
if [ -z "$shlibs" ]; then
	echo "deb.sh: dpkg-shlibdeps found no libraries" >&2
	exit 1
fi
source_of() {
	dpkg-query -W -f='${source:Package} (= ${source:Version})' "$1"
}
built_using="$(source_of libc6-dev), $(source_of libmsgpack-dev)"
size=$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)

cat >"$ROOT/DEBIAN/control" <<EOF
Package: progmux
Version: $VERSION
Architecture: $ARCH
Maintainer: $MAINT
Installed-Size: $size
Depends: $shlibs, tmux (>= 3.2a)
Built-Using: $built_using
Section: utils
Priority: optional
Description: MCP server that runs programs in tmux panes for AI agents
 progmux speaks the Model Context Protocol (JSON-RPC over stdio) to an
 agent client and runs the programs the agent asks for in tmux panes:
 it starts them without a shell, reads what they print as plain text
 without polling, answers their prompts and ends them.
 .
 In desktop mode the programs are panes of the user's own tmux server,
 to attach to and watch; in robust mode progmux runs a private tmux
 server with hard ceilings, and nothing it started outlives it.
EOF
(cd "$ROOT" && find usr -type f -print0 | LC_ALL=C sort -z |
    xargs -0 md5sum) >"$ROOT/DEBIAN/md5sums"
chmod 0644 "$ROOT/DEBIAN/control" "$ROOT/DEBIAN/md5sums"
find "$ROOT" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

dpkg-deb --root-owner-group -Zxz --build "$ROOT" "$DEB" >&2
echo "$DEB"
