#!/bin/sh
# ldd.sh BUILDDIR — starting progmux loads nothing of TLS or cryptography.
#
# progmux speaks JSON on stdio and serves ask_user_secret's page over
# plain HTTP on 127.0.0.1 (server/page_http.c, no library): a shared
# library of TLS, cryptography or what they drag in (GnuTLS, OpenSSL,
# nettle, gmp, p11-kit, libtasn1, libidn2, libunistring, libffi, ...), or
# Debian's libmicrohttpd, which brings all of GnuTLS's, costs every
# start-up its loading and relocation, for nothing. Lists what
# `ldd` says each binary loads and fails, naming them, if any is one of
# those. A static binary (make npm's) loads nothing; without ldd (not
# Linux) there is nothing to check.
set -u
B=${1:-build}
cd "$(dirname "$0")/../.." || exit 1
command -v ldd >/dev/null 2>&1 || { echo "ldd.sh: no ldd here"; exit 0; }
bad='gnutls|ssl|crypto|gcrypt|nettle|hogweed|gmp|p11-kit|tasn1|idn2|unistring|ffi|microhttpd|mbedtls|wolfssl|sodium'
rc=0
for bin in "$B/progmux" "$B/progmux-reaper"; do
	if [ ! -x "$bin" ]; then
		echo "ldd.sh: $bin is not built" >&2
		rc=1
		continue
	fi
	libs=$(ldd "$bin" 2>/dev/null | awk '/\.so/ { print $1 }' | sed 's|.*/||')
	n=$(printf '%s\n' "$libs" | grep -c .)
	found=$(printf '%s\n' "$libs" | grep -E "^lib($bad)" | tr '\n' ' ')
	if [ -n "$found" ]; then
		echo "ldd.sh: $bin loads $n shared objects, among them $found"
		rc=1
	else
		echo "ldd.sh: $bin loads $n shared objects, none of TLS or" \
		    "cryptography"
	fi
done
exit $rc
