#!/bin/sh
# npm.sh — the npm packages, in build/npm (make npm).
#
#   build/npm/progmux/        the main package "progmux": its bin is the
#                             launcher (scripts/package/launcher.sh), and
#                             its optionalDependencies name the platform
#                             packages at the same version
#   build/npm/linux-x64/      "@progmux/linux-x64": os linux, cpu x64
#   build/npm/linux-arm64/    "@progmux/linux-arm64": os linux, cpu arm64
#   build/npm/*.tgz           each packed with npm pack
#
# Every version is VERSION's. A platform package holds the static
# progmux and progmux-reaper of build/static/TARGET (scripts/package/
# static.sh), stripped, in bin/, and the licences of what they link
# (THIRD-PARTY.md). It sets no "libc": a static binary runs whatever C
# library the machine has, glibc or musl, and npm leaves out an optional
# dependency whose libc differs from the machine's, so naming one would
# only shut out the other.
set -eu
cd "$(dirname "$0")/../.."
V=$(cat VERSION)
N=build/npm
P=build/package
die() { echo "npm.sh: $*" >&2; exit 1; }
command -v npm >/dev/null || die "npm not found: sh scripts/build/install-packages.sh"

rm -rf "$N"
mkdir -p "$N"

# A platform package.
platform() {	# target cpu strip uname-m
	t=$1 cpu=$2 strip=$3 m=$4
	d=$N/$t
	s=build/static/$t
	for f in progmux progmux-reaper; do
		[ -x "$s/$f" ] || die "$s/$f is missing: sh scripts/package/static.sh $t"
	done
	mkdir -p "$d/bin"
	for f in progmux progmux-reaper; do
		cp "$s/$f" "$d/bin/$f"
		"$strip" --remove-section=.comment --remove-section=.note \
		    --strip-unneeded "$d/bin/$f"
		chmod 0755 "$d/bin/$f"
	done
	arch=amd64
	[ "$cpu" = arm64 ] && arch=arm64
	cat >"$d/package.json" <<EOF
{
  "name": "@progmux/$t",
  "version": "$V",
  "description": "progmux and progmux-reaper for Linux on $m: static binaries (musl), for any Linux with tmux",
  "license": "UNLICENSED",
  "os": ["linux"],
  "cpu": ["$cpu"],
  "files": ["bin/progmux", "bin/progmux-reaper", "THIRD-PARTY.md"],
  "preferUnplugged": true
}
EOF
	cat >"$d/README.md" <<EOF
# @progmux/$t

The progmux MCP server for Linux on $m: \`bin/progmux\` and
\`bin/progmux-reaper\`, static executables (musl), which run on any Linux
kernel since 3.2 with tmux 3.2a or newer installed. npm installs this
package as an optional dependency of the package \`progmux\`, whose
\`progmux\` command runs \`bin/progmux\`: use that one
(\`npx -y progmux\`).
EOF
	{
		echo "# What bin/progmux and bin/progmux-reaper are made of"
		echo
		echo "Both are linked statically with the C library musl (Debian's"
		echo "musl-dev $(sed -n "s/^musl-dev:$arch \([^ ]*\) .*/\1/p" scripts/package/sources.lock));"
		echo "progmux also with msgpack-c, PCRE2 and jsmn,"
		echo "progmux-reaper with msgpack-c, all built from Debian's source"
		echo "packages. Their"
		echo "copyright and licence notices follow, as Debian ships them."
		for c in "musl|$P/musl/$arch/usr/share/doc/musl-dev/copyright" \
		    "msgpack-c|$P/src/msgpack-c-4.0.0/debian/copyright" \
		    "PCRE2|$P/src/pcre2-10.46/debian/copyright" \
		    "jsmn|/usr/share/doc/libjsmn-dev/copyright"; do
			[ -f "${c#*|}" ] || die "${c#*|} is missing"
			printf '\n## %s\n\n```\n' "${c%%|*}"
			cat "${c#*|}"
			printf '```\n'
		done
	} >"$d/THIRD-PARTY.md"
}
platform linux-x64 x64 strip x86_64
platform linux-arm64 arm64 aarch64-linux-gnu-strip arm64

# The main package.
d=$N/progmux
mkdir -p "$d/bin"
sed "s/@VERSION@/$V/" scripts/package/launcher.sh >"$d/bin/progmux"
chmod 0755 "$d/bin/progmux"
name=$(node -p "require('./server.json').name")
cat >"$d/package.json" <<EOF
{
  "name": "progmux",
  "version": "$V",
  "description": "MCP server that runs programs in tmux panes for AI agents and reads what they print as clean text",
  "license": "UNLICENSED",
  "mcpName": "$name",
  "keywords": ["mcp", "mcp-server", "model-context-protocol", "tmux", "agent"],
  "bin": { "progmux": "bin/progmux" },
  "files": ["bin/progmux"],
  "optionalDependencies": {
    "@progmux/linux-x64": "$V",
    "@progmux/linux-arm64": "$V"
  }
}
EOF
sed "s/@VERSION@/$V/g" scripts/package/README.npm.md >"$d/README.md"

# Packed as a registry would serve them.
for p in progmux linux-x64 linux-arm64; do
	(cd "$N" && npm pack --silent "./$p" >/dev/null) || die "npm pack $p failed"
done
ls -l "$N"/*.tgz >&2
