#!/bin/sh
# install-packages.sh [PACKAGE...] — install what building and testing
# progmux needs, if missing, and the Debian packages named too (a step's
# own tools).
# Debian 12 (bookworm) packages; run as root, or with sudo available.
# Elsewhere (macOS: Homebrew, see .github/workflows/macos.yml) it does
# nothing. procps gives ps(1), which the POSIX-only port (make
# OSDEP=posix) reads its processes with. python3 and systemd give the
# readiness tests (test_ready) their servers and systemd-notify(1); only
# the binary is wanted, no service of systemd's starts (policy-rc.d
# below, and no init of its own in a container).
# Node.js and npm are used only by the end-to-end test with the official
# MCP SDK client; the server itself needs none of it. openssh-server gives
# the tests an sshd they run on 127.0.0.1 with a configuration of their
# own ("Driving another host"); its package is installed with services
# kept from starting, so no sshd of the machine's is left running.
set -eu

command -v dpkg-query >/dev/null 2>&1 || exit 0
need=""
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed'; }
for pkg in build-essential pkg-config libmsgpack-dev libjsmn-dev \
    libcmocka-dev libpcre2-dev tmux clang nodejs npm openssh-server procps \
    python3 systemd \
    "$@"; do
	# A node and npm from elsewhere (nvm, /usr/local) will do.
	case $pkg in
	nodejs) command -v node >/dev/null 2>&1 && continue ;;
	npm) command -v npm >/dev/null 2>&1 && continue ;;
	esac
	have_pkg "$pkg" || need="$need $pkg"
done
[ -z "$need" ] && exit 0

echo "install-packages.sh: installing:$need" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2 || true
# No service a package brings (sshd) starts: a policy-rc.d of our own,
# only while we install, and only if the machine has none.
policy=""
if [ ! -e /usr/sbin/policy-rc.d ]; then
	policy=/usr/sbin/policy-rc.d
	printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
	$SUDO chmod 755 "$policy"
fi
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $need >&2 || {
	[ -n "$policy" ] && $SUDO rm -f "$policy"; exit 1; }
[ -n "$policy" ] && $SUDO rm -f "$policy"
exit 0
