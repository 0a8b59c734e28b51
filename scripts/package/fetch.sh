#!/bin/sh
# fetch.sh — the pinned inputs of the static builds, from Debian's archive.
#
# Every file scripts/package/sources.lock names is downloaded into
# build/package/dl by apt-get (source packages with `apt-get source
# --download-only PKG=VERSION`, the musl-dev packages with `apt-get download
# PKG:ARCH=VERSION`) and must have the SHA-256 the lock pins. apt-get runs
# with a configuration of its own under build/package/apt (its sources
# list, lists, cache and an empty dpkg status): the archive is the one the
# machine's apt already uses (apt-get indextargets), with the suites the lock
# names, and the machine's apt configuration and package state are not
# touched. Then each source package is unpacked with Debian's patches
# (dpkg-source -x) into build/package/src/NAME-UPSTREAM, and each musl-dev
# into build/package/musl/ARCH. Files already there and correct are not
# fetched again. A version the archive no longer serves fails, naming the
# versions it does serve.
set -eu
cd "$(dirname "$0")/../.."
P=$(pwd)/build/package
LOCK=scripts/package/sources.lock
APT=$P/apt
DL=$P/dl

die() { echo "fetch.sh: $*" >&2; exit 1; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
entries() { grep -v '^[[:space:]]*\(#\|$\)' "$LOCK"; }

# Is every pinned file there and right?
all_good() {
	entries | while read -r pkg ver suite file sum; do
		[ -f "$DL/$file" ] && [ "$(sha "$DL/$file")" = "$sum" ] || { echo no; break; }
	done
}

mkdir -p "$DL"
if [ -n "$(all_good)" ]; then
	uri=$(apt-get indextargets --format '$(REPO_URI)' 'Label: Debian' \
	    'Codename: bookworm' 2>/dev/null | sort -u | head -n 1)
	[ -n "$uri" ] || die "apt has no Debian 12 archive configured (apt-get indextargets names none)"
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -f "$key" ] || die "$key is missing: apt-get install debian-archive-keyring"
	mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$APT/parts" \
	    "$APT/prefs"
	: >"$APT/status"
	{
		echo "deb [arch=amd64,arm64 signed-by=$key] $uri bookworm main"
		for s in $(entries | awk '$1 !~ /:/ { print $3 }' | sort -u); do
			echo "deb-src [signed-by=$key] $uri $s main"
		done
	} >"$APT/sources.list"
	set -- -o Dir::Etc::SourceList="$APT/sources.list" \
	    -o Dir::Etc::SourceParts="$APT/parts" \
	    -o Dir::Etc::PreferencesParts="$APT/prefs" \
	    -o Dir::State::Lists="$APT/lists" -o Dir::State::status="$APT/status" \
	    -o Dir::Cache="$APT/cache" -o Debug::NoLocking=1 \
	    -o APT::Sandbox::User=root -o Acquire::Languages=none \
	    -o APT::Architecture=amd64 -o APT::Architectures::=amd64 \
	    -o APT::Architectures::=arm64 -q=2
	echo "# fetch.sh: apt-get update (private lists in $APT)" >&2
	apt-get "$@" update >&2 || die "apt-get update failed"
	for pv in $(entries | awk '{ print $1 "=" $2 }' | sort -u); do
		pkg=${pv%%=*}
		echo "# fetch.sh: $pv" >&2
		case $pkg in
		*:*) verb=download ;;
		*) verb="source --download-only" ;;
		esac
		# shellcheck disable=SC2086
		if ! (cd "$DL" && apt-get "$@" $verb "$pv" >&2); then
			case $pkg in
			*:*) have=$(apt-cache "$@" madison "$pkg" | awk -F'|' '{ print $2 }') ;;
			*) have=$(apt-cache "$@" showsrc "$pkg" | sed -n 's/^Version: //p') ;;
			esac
			die "cannot fetch $pv; the archive serves: $(echo $have); update $LOCK"
		fi
	done
	entries | while read -r pkg ver suite file sum; do
		[ -f "$DL/$file" ] || die "$file (of $pkg $ver) was not downloaded"
		got=$(sha "$DL/$file")
		[ "$got" = "$sum" ] || die "$file: sha256 $got, but $LOCK pins $sum"
	done
fi

# Unpack what is not unpacked yet.
mkdir -p "$P/src" "$P/musl"
entries | while read -r pkg ver suite file sum; do
	case $file in
	*.dsc)
		up=${ver%-*}
		dir=$P/src/$pkg-$up
		[ -f "$dir/.unpacked" ] && continue
		rm -rf "$dir"
		(cd "$P/src" && dpkg-source --no-check -x "$DL/$file" "$pkg-$up" \
		    >/dev/null) || die "dpkg-source -x $file failed"
		echo "$file" >"$dir/.unpacked"
		;;
	*.deb)
		dir=$P/musl/${pkg#*:}
		[ -f "$dir/.unpacked" ] && continue
		rm -rf "$dir"
		mkdir -p "$dir"
		dpkg-deb -x "$DL/$file" "$dir" || die "dpkg-deb -x $file failed"
		echo "$file" >"$dir/.unpacked"
		;;
	esac
done
