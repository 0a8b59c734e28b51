#!/bin/sh
# deb-test.sh DEB — the Debian package installed, used and removed.
#
# Refuses to run where progmux is already installed (it would remove it).
# Installs lintian if it is missing and checks DEB with it (errors and
# warnings fail; the overridden tags are argued in scripts/package/deb/lintian.md).
# Then `apt-get install -y ./DEB` (what the README tells a user), checks
# that /usr/bin/progmux belongs to the package and finds its reaper,
# runs the SDK end-to-end test (scripts/test/e2e.sh) against
# /usr/bin/progmux, and `apt-get purge -y progmux`, with any package the
# install pulled in. Last, the machine must be as it was found: no
# /usr/bin/progmux, no progmux in dpkg -l, the same packages installed.
# Run as root, or with sudo available.
set -eu
cd "$(dirname "$0")/../.."
DEB=${1:?usage: deb-test.sh DEB}
case $DEB in /*) ;; *) DEB=$(pwd)/$DEB ;; esac
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
W=$(mktemp -d "${TMPDIR:-/tmp}/progmux-deb-test.XXXXXX")
installed=0

fail() {
	echo "deb-test.sh: FAIL: $*" >&2
	exit 1
}

# The installed packages, one "name version" a line.
packages() {
	dpkg-query -W -f='${db:Status-Status} ${binary:Package} ${Version}\n' |
	    awk '$1 == "installed" { print $2, $3 }' | LC_ALL=C sort
}

# Is progmux known to dpkg in any state but "not installed"?
known() {
	dpkg-query -W -f='${db:Status-Status}' progmux 2>/dev/null |
	    grep -qv '^not-installed$'
}

# On any exit after the install: the package goes again.
cleanup() {
	if [ "$installed" = 1 ] && known; then
		$SUDO apt-get purge -y -qq progmux >&2 || true
	fi
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

[ -f "$DEB" ] || fail "$DEB is missing: run make deb"
if known || [ -e /usr/bin/progmux ] || [ -e /usr/bin/progmux-reaper ]; then
	fail "progmux is installed already; this test would remove it"
fi

if ! command -v lintian >/dev/null 2>&1; then
	echo "# installing lintian" >&2
	$SUDO apt-get update -qq >&2 || true
	$SUDO apt-get install -y -qq --no-install-recommends lintian >&2
fi
echo "# lintian $DEB" >&2
# lintian leaves files in TMPDIR: ours goes with $W.
TMPDIR=$W lintian --fail-on error,warning --display-level '>=warning' "$DEB" >&2 ||
    fail "lintian"
echo "ok - lintian: no error or warning (overrides: scripts/package/deb/lintian.md)"

packages >"$W/before"
installed=1
$SUDO apt-get install -y -qq "$DEB" >&2 || fail "apt-get install $DEB"
[ "$(dpkg-query -W -f='${db:Status-Status}' progmux)" = installed ] ||
    fail "dpkg does not list progmux as installed"
[ "$(dpkg-query -S /usr/bin/progmux | cut -d: -f1)" = progmux ] ||
    fail "/usr/bin/progmux is not the package's"
echo "ok - apt-get install ./$(basename "$DEB"): $(dpkg-query -W -f='${Package} ${Version}' progmux)"
/usr/bin/progmux --version >&2 || fail "progmux --version"
# A socket of our own: the default tmux server is never asked.
PROGMUX_SOCKET_PATH=$W/tmux.sock /usr/bin/progmux --check >"$W/check" 2>&1 || { cat "$W/check" >&2; fail "progmux --check"; }
grep -q /usr/bin/progmux-reaper "$W/check" ||
    { cat "$W/check" >&2; fail "progmux --check does not name /usr/bin/progmux-reaper"; }
echo "ok - /usr/bin/progmux --check finds /usr/bin/progmux-reaper"
man -w progmux >/dev/null 2>&1 || [ -f /usr/share/man/man1/progmux.1.gz ] ||
    fail "no manual page"

PROGMUX_BIN=/usr/bin/progmux sh scripts/test/e2e.sh >&2 ||
    fail "the SDK end-to-end test against /usr/bin/progmux"
echo "ok - the SDK end-to-end test passes against /usr/bin/progmux"

# Out again, with whatever the install pulled in.
$SUDO apt-get purge -y -qq progmux >&2 || fail "apt-get purge progmux"
installed=0
packages >"$W/after"
extra=$(LC_ALL=C comm -13 "$W/before" "$W/after" | cut -d' ' -f1)
if [ -n "$extra" ]; then
	echo "# purging what the install pulled in: $extra" >&2
	# shellcheck disable=SC2086
	$SUDO apt-get purge -y -qq $extra >&2 || fail "apt-get purge $extra"
	packages >"$W/after"
fi
for f in /usr/bin/progmux /usr/bin/progmux-reaper /usr/share/doc/progmux \
    /usr/share/man/man1/progmux.1.gz /usr/share/lintian/overrides/progmux; do
	[ -e "$f" ] && fail "$f is left after the purge"
done
known && fail "dpkg -l still lists progmux"
cmp -s "$W/before" "$W/after" ||
    { diff "$W/before" "$W/after" >&2; fail "the installed packages differ"; }
echo "ok - apt-get purge progmux: no /usr/bin/progmux, none in dpkg -l, the same packages as before"
