#!/bin/sh
# install-cross-tools.sh [qemu] — install what the static builds and the
# npm packages need, if missing (Debian 12 packages; root, or sudo).
#
# The builds: Debian's cross compiler and arm64 kernel headers, CMake for
# the libraries, dpkg-source for the source packages
# (scripts/build/install-packages.sh installs the rest: the native
# compiler, tmux, node, npm). With "qemu":
# arm64 executables made runnable here, as Debian runs a foreign
# architecture's: qemu-user-static, with its qemu-aarch64 entry
# (/usr/lib/binfmt.d/qemu-aarch64.conf, which systemd-binfmt loads at boot
# where systemd runs) registered in binfmt_misc (mounted first if it is
# not) when it is not there; and, for the dynamically linked arm64 Node.js
# and Claude Code of scripts/package/npm-test.sh, arm64 as a foreign
# architecture of dpkg with its C and C++ runtimes (libc6:arm64,
# libstdc++6:arm64, libgcc-s1:arm64). progmux's own binaries need none of
# these runtimes: they are static.
set -eu
need=""
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
pkgs="gcc-aarch64-linux-gnu linux-libc-dev-arm64-cross cmake dpkg-dev
    debian-archive-keyring linux-libc-dev"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
fresh=""
if [ "${1:-}" = qemu ]; then
	pkgs="$pkgs qemu-user-static libc6:arm64 libstdc++6:arm64 libgcc-s1:arm64"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		echo "install-cross-tools.sh: dpkg --add-architecture arm64" >&2
		$SUDO dpkg --add-architecture arm64
		fresh=1
	fi
fi
for pkg in $pkgs; do
	have_pkg "$pkg" || need="$need $pkg"
done
if [ -n "$need" ]; then
	echo "install-cross-tools.sh: installing:$need" >&2
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq >&2 || [ -z "$fresh" ]
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -qq --no-install-recommends $need >&2
fi
[ "${1:-}" = qemu ] || exit 0

F=/proc/sys/fs/binfmt_misc
if [ ! -e "$F/register" ]; then
	$SUDO mount -t binfmt_misc binfmt_misc "$F" || {
		echo "install-cross-tools.sh: cannot mount binfmt_misc on $F" >&2; exit 1; }
fi
if [ ! -e "$F/qemu-aarch64" ]; then
	echo "install-cross-tools.sh: registering qemu-aarch64 with binfmt_misc" >&2
	$SUDO sh -c "cat /usr/lib/binfmt.d/qemu-aarch64.conf > $F/register"
fi
if [ "$(cat "$F/qemu-aarch64" | head -n 1)" != enabled ]; then
	echo "install-cross-tools.sh: $F/qemu-aarch64 is disabled:" \
	    "echo 1 > $F/qemu-aarch64" >&2
	exit 1
fi
