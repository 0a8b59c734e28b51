#!/bin/sh
# static.sh TARGET [UNIT] — progmux and progmux-reaper as static binaries
# for TARGET (linux-x64 or linux-arm64) in build/static/TARGET, with musl
# and the libraries built for TARGET from the pinned sources
# (scripts/package/fetch.sh, scripts/package/sources.lock). With UNIT=unit
# also every unit test (tests/unit), linked the same way, to run on
# TARGET (scripts/package/npm-test.sh runs the arm64 ones under qemu).
#
# The C compiler of a target is Debian's gcc for it (gcc, or the cross
# compiler aarch64-linux-gnu-gcc) with Debian's musl-dev for it in place
# of glibc (its musl-gcc.specs, pointed at build/package/musl/ARCH), the
# kernel's headers of that architecture, and two headers the tree takes
# from the build machine as they are: BSD's <sys/queue.h> (glibc's copy:
# musl has none) and <jsmn.h> (libjsmn-dev). Binaries are linked
# -static-pie: one file, no loader, no shared library, any Linux kernel
# since 3.2, and still loaded at a random address. msgpack-c, PCRE2 (8-bit,
# Unicode, no JIT: the front never asks for it) and cmocka are built with
# that compiler by CMake into build/package/TARGET/deps (cmocka.h is told
# that <stdint.h> has uintptr_t: its own guess fails on musl for arm64).
set -eu
T=${1:?usage: static.sh linux-x64|linux-arm64 [unit]}
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
P=$ROOT/build/package
D=$P/$T
B=build/static/$T
die() { echo "static.sh: $*" >&2; exit 1; }

case $T in
linux-x64) arch=amd64 gnu=x86_64-linux-gnu mtriple=x86_64-linux-musl
	gcc=gcc cpu=x86_64 kinc=/usr/include kasm=/usr/include/x86_64-linux-gnu/asm
	[ "$(uname -m)" = x86_64 ] || die "linux-x64 is built on an x86_64 machine" ;;
linux-arm64) arch=arm64 gnu=aarch64-linux-gnu mtriple=aarch64-linux-musl
	gcc=aarch64-linux-gnu-gcc cpu=aarch64 kinc=/usr/aarch64-linux-gnu/include
	kasm=/usr/aarch64-linux-gnu/include/asm ;;
*) die "unknown target $T (linux-x64 or linux-arm64)" ;;
esac
X=scripts/package/install-cross-tools.sh
command -v "$gcc" >/dev/null || die "$gcc not found: sh $X"
[ -f "$kinc/linux/kcmp.h" ] || die "$kinc/linux is missing: sh $X"
sh scripts/package/fetch.sh

M=$P/musl/$arch
[ -f "$M/usr/lib/$mtriple/libc.a" ] || die "$M has no musl for $arch"
musl=$(sed -n 's/^musl-dev:[a-z0-9]* \([^ ]*\) .*/\1/p' scripts/package/sources.lock | head -n 1)
musl=${musl%-*}
mkdir -p "$D/bin" "$D/include/sys"

# The compiler: Debian's musl-gcc.specs with its paths moved to where the
# package was unpacked, and the start file of a static PIE (rcrt1.o).
sed -e "s|/usr/include/$mtriple|$M/usr/include/$mtriple|g" \
    -e "s|/usr/lib/$mtriple|$M/usr/lib/$mtriple|g" \
    -e "s|%{!shared: $M/usr/lib/$mtriple/Scrt1.o}|%{static-pie: $M/usr/lib/$mtriple/rcrt1.o;!shared: $M/usr/lib/$mtriple/Scrt1.o}|" \
    -e "s|^-dynamic-linker \([^ ]*\) -nostdlib |%{!static-pie:-dynamic-linker \1} %{static-pie:-static -pie --no-dynamic-linker -z text} -nostdlib |" \
    "$M/usr/lib/$mtriple/musl-gcc.specs" >"$D/musl-gcc.specs"
grep -q rcrt1.o "$D/musl-gcc.specs" && grep -q no-dynamic-linker "$D/musl-gcc.specs" ||
    die "$M's musl-gcc.specs has not the start-file and link lines to extend"
for h in linux asm-generic; do ln -sfn "$kinc/$h" "$D/include/$h"; done
ln -sfn "$kasm" "$D/include/asm"
q=$(echo '#include <sys/queue.h>' | cpp -H -o /dev/null 2>&1 | sed -n 's/^\. //p' | head -n 1)
[ -f "$q" ] || die "<sys/queue.h> not found on this machine (libc6-dev)"
cp "$q" "$D/include/sys/queue.h"
[ -f /usr/include/jsmn.h ] || die "/usr/include/jsmn.h is missing: sh scripts/build/install-packages.sh"
cp /usr/include/jsmn.h "$D/include/jsmn.h"
cat >"$D/bin/cc" <<EOF
#!/bin/sh
exec $gcc "\$@" -isystem "$D/include" -specs "$D/musl-gcc.specs"
EOF
chmod +x "$D/bin/cc"
CC=$D/bin/cc

# The libraries, once per target (build/package/TARGET/deps).
cat >"$D/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR $cpu)
set(CMAKE_C_COMPILER $CC)
set(CMAKE_AR /usr/bin/$gnu-ar)
set(CMAKE_RANLIB /usr/bin/$gnu-ranlib)
set(CMAKE_C_FLAGS_INIT "-O2 -fPIE -fstack-protector-strong")
set(CMAKE_EXE_LINKER_FLAGS_INIT "-static-pie")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
EOF
lib() {	# name source-dir target cmake-options...
	name=$1 src=$2 tgt=$3
	shift 3
	[ -f "$D/deps/.$name" ] && return 0
	echo "# static.sh: $T: $name" >&2
	rm -rf "$D/build-$name"
	cmake -S "$src" -B "$D/build-$name" -DCMAKE_BUILD_TYPE=Release \
	    -DCMAKE_TOOLCHAIN_FILE="$D/toolchain.cmake" \
	    -DCMAKE_INSTALL_PREFIX="$D/deps" -DBUILD_SHARED_LIBS=OFF "$@" \
	    >"$D/build-$name.log" 2>&1 &&
	cmake --build "$D/build-$name" --target "$tgt" -j 2 \
	    >>"$D/build-$name.log" 2>&1 ||
	    { tail -30 "$D/build-$name.log" >&2; die "$name for $T failed (log: $D/build-$name.log)"; }
}
mkdir -p "$D/deps/lib" "$D/deps/include"
lib msgpack-c "$P/src/msgpack-c-4.0.0" msgpackc -DMSGPACK_BUILD_EXAMPLES=OFF
if [ ! -f "$D/deps/.msgpack-c" ]; then
	cp "$D/build-msgpack-c/libmsgpackc.a" "$D/deps/lib/"
	cp -r "$P/src/msgpack-c-4.0.0/include/." "$D/build-msgpack-c/include/." "$D/deps/include/"
	touch "$D/deps/.msgpack-c"
fi
lib pcre2 "$P/src/pcre2-10.46" pcre2-8-static -DPCRE2_BUILD_PCRE2GREP=OFF \
    -DPCRE2_BUILD_TESTS=OFF -DPCRE2_SUPPORT_JIT=OFF -DPCRE2_SUPPORT_UNICODE=ON \
    -DPCRE2_SHOW_REPORT=OFF
if [ ! -f "$D/deps/.pcre2" ]; then
	cp "$D/build-pcre2/libpcre2-8.a" "$D/deps/lib/"
	cp "$D/build-pcre2/pcre2.h" "$D/deps/include/"
	touch "$D/deps/.pcre2"
fi
if [ "${2:-}" = unit ]; then
	lib cmocka "$P/src/cmocka-1.1.5" cmocka-static -DWITH_STATIC_LIB=ON \
	    -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF -DCMAKE_C_FLAGS=-D_UINTPTR_T
	if [ ! -f "$D/deps/.cmocka" ]; then
		cp "$D/build-cmocka/src/libcmocka-static.a" "$D/deps/lib/"
		cp "$P/src/cmocka-1.1.5/include/cmocka.h" "$D/deps/include/"
		touch "$D/deps/.cmocka"
	fi
fi

# progmux itself, and the unit tests if asked. The reaper's own -static
# (Makefile) gives way to -static-pie.
goals="$B/progmux $B/progmux-reaper"
[ "${2:-}" = unit ] && for t in tests/unit/test_*.c; do
	n=${t#tests/unit/}
	goals="$goals $B/tests/${n%.c}"
done
echo "# static.sh: $T: make $B" >&2
# Linked again each time: the compiler's specs are no make dependency.
# shellcheck disable=SC2086
rm -f $goals
# shellcheck disable=SC2086
make -s B="$B" CC="$CC" SAN= OPT="-O2 -g -fPIE -fstack-protector-strong" \
    PKG_CFLAGS="-I$D/deps/include -DPCRE2_STATIC -D_UINTPTR_T" \
    PKG_LIBS="$D/deps/lib/libmsgpackc.a" \
    PCRE_LIBS="$D/deps/lib/libpcre2-8.a" SECRET_PAGE=1 \
    CMOCKA_LIBS="$D/deps/lib/libcmocka-static.a" LDFLAGS="-static-pie -Wl,-z,relro,-z,now" \
    REAPER_STATIC= BUILD_TARGET="$T, static, musl $musl" $goals
