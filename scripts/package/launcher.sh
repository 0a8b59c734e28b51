#!/bin/sh
# progmux — the entry point of the npm package "progmux" (its bin).
#
# It replaces itself (exec) with the progmux binary of the platform
# package npm installed beside it, @progmux/linux-x64 or
# @progmux/linux-arm64: optional dependencies, of which npm installs the
# one whose os and cpu are the machine's. So the process an MCP client
# started is progmux itself: the same PID, standard input, output and
# error, the same signals and exit status. progmux-reaper is beside that
# binary, where progmux looks for it (/proc/self/exe).
#
# Where the platform package is: in this package's own node_modules, or
# beside this package (npm hoists it; pnpm links it there). Where this
# package is, without a process to resolve links (a start costs no more
# than sh's own): reached by its own path (pnpm's shim, a direct call), by
# npm's node_modules/.bin/progmux, or by a global install's PREFIX/bin/
# progmux; `..` is taken by the kernel, after the links it crosses. Only
# if none of these holds a platform package is the link resolved
# (readlink -f). If more than one platform package is there, the one for
# `uname -m` is taken.
V=@VERSION@
n=0
find_in() {
	for cpu in x64 arm64; do
		for d in "$1/node_modules/@progmux/linux-$cpu" "$1/../@progmux/linux-$cpu"; do
			if [ -x "$d/bin/progmux" ]; then
				n=$((n + 1))
				bin=$d/bin/progmux
				eval "bin_$cpu=\$bin"
				break
			fi
		done
	done
}
dir=${0%/*}
[ "$dir" = "$0" ] && dir=.
for pkg in "$dir/.." "$dir/../progmux" "$dir/../lib/node_modules/progmux"; do
	[ -f "$pkg/bin/progmux" ] || continue
	find_in "$pkg"
	[ "$n" -gt 0 ] && break
done
if [ "$n" -eq 0 ] && self=$(readlink -f "$0" 2>/dev/null); then
	find_in "${self%/*/*}"
fi
[ "$n" -eq 1 ] && exec "$bin" "$@"

os=$(uname -s)
case $os/$(uname -m) in
Linux/x86_64 | Linux/amd64) cpu=x64 ;;
Linux/aarch64 | Linux/arm64) cpu=arm64 ;;
*)
	echo "progmux: no prebuilt progmux for $os $(uname -m) (there is one for Linux on x86_64 and on arm64); build it from source: make && make install (see its README)" >&2
	exit 1 ;;
esac
eval "bin=\${bin_$cpu:-}"
[ -n "$bin" ] && exec "$bin" "$@"
echo "progmux: the progmux binary for this machine (Linux $(uname -m)) is not installed: it comes in the package @progmux/linux-$cpu, an optional dependency of progmux that npm left out (--omit=optional or --no-optional) or could not install. Install it beside progmux: npm install @progmux/linux-$cpu@$V" >&2
exit 1
