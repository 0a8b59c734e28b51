#!/bin/sh
# tmux-versions.sh [BUILDDIR] — the tmux versions the integration suites
# run on, each as BUILDDIR/tmux/VERSION/tmux (default BUILDDIR: build).
#
#   3.3a  the system's tmux (Debian 12), linked as it is
#   3.5a  bookworm-backports' package, unpacked into a private root with
#         bookworm's libjemalloc2 (the one library it needs that the
#         system lacks); run by the system's ld.so with --library-path
#   3.8   sid's package and the sid libraries it needs (its glibc too),
#         unpacked into a private root; run by that root's own ld.so
#
# Nothing is installed system-wide and the machine's apt sources are left
# alone: packages come by `apt-get download` through a private sources
# list and state under BUILDDIR/apt, naming the same mirror the machine
# uses. When Debian no longer has them (sid's pool drops versions), the
# copies kept in shared/tmux-debs beside the clone are used, checked
# against their SHA256SUMS; the script says which it used. A wrapper's
# --library-path is the loader's own setting: the programs tmux starts in
# panes run with the system's libraries.
#
# Prints one "VERSION DIR/tmux" line per version on stdout (progress goes
# to stderr); exits non-zero if any version could not be set up. Run again
# it keeps what is there and still checks each wrapper's -V.
set -eu
cd "$(dirname "$0")/../.."
B=${1:-build}
case $B in /*) ;; *) B=$(pwd)/$B ;; esac
case $B in *"'"*|*:*) echo "tmux-versions: $B: no ' or : please" >&2; exit 1 ;; esac
TOP=$B/tmux
APT=$B/apt
ARCH=x86_64-linux-gnu
SYSLD=/lib64/ld-linux-x86-64.so.2
V35=3.5a-2~bpo12+1
V38=3.8-1
SID_PKGS="libc6 libevent-core-2.1-7t64 libjemalloc2 libsystemd0 libtinfo6
    libcap2 libgcrypt20 libgpg-error0 liblz4-1 liblzma5 libzstd1"

say() { echo "tmux-versions: $*" >&2; }

# The shared copies: shared/ beside the clone (TMUX_DEBS overrides).
shared_debs() {
	if [ -n "${TMUX_DEBS:-}" ]; then
		echo "$TMUX_DEBS"
	else
		t=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
		readlink -m "$t/../shared/tmux-debs"
	fi
}

# The mirror the machine's own apt sources name for bookworm.
mirror() {
	m=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' \
	    2>/dev/null | awk '$2 == "bookworm" { print $1; exit }')
	if [ -z "$m" ]; then
		apt-get update -qq >&2 || true
		m=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' \
		    2>/dev/null | awk '$2 == "bookworm" { print $1; exit }')
	fi
	echo "$m"
}

# apt-get with the private sources list and state (never the machine's).
papt() {
	apt-get -q -o Dir::Etc::sourcelist="$APT/sources.list" \
	    -o Dir::Etc::sourceparts=/nonexistent \
	    -o Dir::State::lists="$APT/lists" \
	    -o Dir::State::status="$APT/status" \
	    -o Dir::Cache="$APT/cache" -o Dir::Cache::pkgcache= \
	    -o Dir::Cache::srcpkgcache= -o APT::Sandbox::User=root "$@"
}

# Set up the private apt state once; false if Debian cannot be reached.
apt_ready=""
apt_setup() {
	[ -n "$apt_ready" ] && return "$apt_ready"
	apt_ready=1
	m=$(mirror)
	if [ -z "$m" ]; then
		say "no Debian mirror in the machine's apt sources"
		return 1
	fi
	mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial"
	: >"$APT/status"
	kr=/usr/share/keyrings/debian-archive-keyring.gpg
	cat >"$APT/sources.list" <<-EOF
	deb [signed-by=$kr] $m bookworm main
	deb [signed-by=$kr] $m bookworm-backports main
	deb [signed-by=$kr] $m sid main
	EOF
	if ! papt update >"$APT/update.log" 2>&1 ||
	    grep -q '^[WE]:' "$APT/update.log"; then
		say "apt-get update (private sources) failed:"
		sed 's/^/    /' "$APT/update.log" >&2
		return 1
	fi
	apt_ready=0
}

# Download packages (apt-get download's specs) into dir; false if any
# fails. TMUX_FROM=shared skips Debian (to try the shared copies).
fetch_debian() {
	dir=$1; shift
	[ "${TMUX_FROM:-}" = shared ] && return 1
	apt_setup || return 1
	rm -rf "$dir"
	mkdir -p "$dir"
	if ! (cd "$dir" && papt download "$@") >"$dir.log" 2>&1; then
		say "apt-get download $* failed:"
		sed 's/^/    /' "$dir.log" >&2
		return 1
	fi
}

# Copy the shared packages SHA256SUMS lists under sub into dir, and check
# the copies against their sums.
fetch_shared() {
	dir=$1 sub=$2
	s=$(shared_debs)
	if [ ! -f "$s/SHA256SUMS" ] ||
	    ! grep -q "  $sub/[^/]*\.deb\$" "$s/SHA256SUMS"; then
		say "no shared copies of $sub at $s"
		return 1
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	grep "  $sub/[^/]*\.deb\$" "$s/SHA256SUMS" | sed "s|  $sub/|  |" \
	    >"$dir/SHA256SUMS"
	while read -r _ f; do
		cp "$s/$sub/$f" "$dir/" || return 1
	done <"$dir/SHA256SUMS"
	if ! (cd "$dir" && sha256sum -c --quiet SHA256SUMS); then
		say "$s/$sub: the packages do not match SHA256SUMS"
		return 1
	fi
}

# Unpack every .deb of dir into root (new).
unpack() {
	dir=$1 root=$2
	rm -rf "$root"
	mkdir -p "$root"
	for deb in "$dir"/*.deb; do
		dpkg-deb -x "$deb" "$root"
	done
}

# Does wrapper w print "tmux want" for -V?
check_version() {
	w=$1 want=$2
	[ -x "$w" ] && [ "$("$w" -V 2>&1)" = "tmux $want" ]
}

# 3.3a: the system's own tmux.
setup_33() {
	d=$TOP/3.3a
	mkdir -p "$d"
	t=$(command -v tmux || true)
	if [ -z "$t" ]; then
		say "3.3a: no tmux installed (scripts/build/install-packages.sh installs it)"
		return 1
	fi
	ln -sf "$(readlink -f "$t")" "$d/tmux"
	echo "system ($t)" >"$d/source"
}

# 3.5a: bookworm-backports' tmux, with bookworm's libjemalloc2 beside it.
setup_35() {
	d=$TOP/3.5a
	mkdir -p "$d"
	if fetch_debian "$d/debs" "tmux=$V35" libjemalloc2/bookworm; then
		echo "Debian (bookworm-backports)" >"$d/source"
	elif fetch_shared "$d/debs" bookworm-backports; then
		echo "shared copy ($(shared_debs))" >"$d/source"
		# The shared copy has no libjemalloc2: bookworm's own, then.
		if ! ls /usr/lib/$ARCH/libjemalloc.so.2 >/dev/null 2>&1 &&
		    ! { (cd "$d/debs" && apt-get download -q \
		    -o APT::Sandbox::User=root libjemalloc2) \
		    >&2 || apt-get install -y -qq libjemalloc2 >&2; }; then
			say "3.5a: no libjemalloc2"
			return 1
		fi
	else
		return 1
	fi
	unpack "$d/debs" "$d/root"
	cat >"$d/tmux" <<-EOF
	#!/bin/sh
	# tmux 3.5a from a private root ($0); the system's loader and libraries.
	exec '$SYSLD' --library-path '$d/root/usr/lib/$ARCH' '$d/root/usr/bin/tmux' "\$@"
	EOF
	chmod +x "$d/tmux"
}

# 3.8: sid's tmux over sid's own glibc and libraries, all in one root.
setup_38() {
	d=$TOP/3.8
	mkdir -p "$d"
	specs="tmux=$V38"
	for p in $SID_PKGS; do
		specs="$specs $p/sid"
	done
	# shellcheck disable=SC2086
	if fetch_debian "$d/debs" $specs; then
		echo "Debian (sid)" >"$d/source"
	elif fetch_shared "$d/debs" sid; then
		echo "shared copy ($(shared_debs))" >"$d/source"
	else
		return 1
	fi
	unpack "$d/debs" "$d/root"
	r=$d/root
	cat >"$d/tmux" <<-EOF
	#!/bin/sh
	# tmux 3.8 from a private root ($0) with its own loader and libraries.
	exec '$r/usr/lib/$ARCH/ld-linux-x86-64.so.2' \\
	    --library-path '$r/usr/lib/$ARCH:$r/lib/$ARCH' '$r/usr/bin/tmux' "\$@"
	EOF
	chmod +x "$d/tmux"
}

rc=0
for v in 3.3a 3.5a 3.8; do
	w=$TOP/$v/tmux
	if check_version "$w" "$v" && [ -f "$TOP/$v/source" ]; then
		say "$v: already set up, from $(cat "$TOP/$v/source")"
	else
		# Only the list goes to stdout.
		case $v in
		3.3a) setup_33 >&2 || true ;;
		3.5a) setup_35 >&2 || true ;;
		3.8) setup_38 >&2 || true ;;
		esac
		if ! check_version "$w" "$v"; then
			say "$v: FAILED (-V says: $("$w" -V 2>&1 || true))"
			rc=1
			continue
		fi
		say "$v: set up, from $(cat "$TOP/$v/source")"
	fi
	echo "$v $w"
done
exit $rc
