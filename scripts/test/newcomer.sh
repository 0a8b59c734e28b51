#!/bin/sh
# newcomer.sh [BUILDDIR] — progmux tried as a new user would try it.
#
# 1. A fresh clone of the committed HEAD in a temporary directory, where
#    the README's run command is typed as a newcomer would: `make run` fed
#    initialize, notifications/initialized and tools/list on stdin, then
#    EOF; `make install DESTDIR=... PREFIX=/usr` and the installed
#    progmux's --version and --check; `make unit integration` and one unit test
#    program (never `make test`, which would run this script again).
#    Only committed files reach the clone, so anything the README needs
#    but git does not hold shows up here. Skipped, not failed, when the
#    tree is not a git work tree.
# 2. The MCP Inspector CLI (@modelcontextprotocol/inspector-cli, pinned in
#    tests/e2e/package.json and installed into tests/e2e/node_modules like
#    scripts/test/e2e.sh installs the SDK) against BUILDDIR/progmux: tools/list,
#    tools/call run_program ["echo","hi"] (the CLI's SDK client checks the
#    structuredContent against the outputSchema) and logging/setLevel.
#
# Every tmux server involved is a private one on a socket in the temporary
# directory (the default server is never touched) and is killed on exit,
# as is everything else this makes. Prints one "ok - " / "not ok - " line
# per check, a cmocka-style summary for scripts/test/test.sh and
# "N passed, M failed"; exits non-zero on any failure.
#
# Environment: PROGMUX_NPM_CACHE (npm cache, default build/npm-cache);
# NEWCOMER_KEEP=1 keeps the temporary directory (its logs) for a look.
set -eu
B=${1:-build}
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
case $B in
/*) BIN=$B/progmux ;;
*) BIN=$ROOT/$B/progmux ;;
esac
E2E=tests/e2e
CACHE=${PROGMUX_NPM_CACHE:-$(pwd)/build/npm-cache}
INSP_DIR=$ROOT/$E2E/node_modules/@modelcontextprotocol/inspector-cli/build
START=$(date +%s)

# A newcomer types the commands in a plain shell: no make of ours around
# them (MAKEFLAGS would carry SAN=1 or -j into the clone's make), no tmux
# of theirs (TMUX, TMUX_PANE), no socket settings but the private one.
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES SAN B TMUX TMUX_PANE \
	PROGMUX_SOCKET_NAME PROGMUX_SOCKET_PATH PROGMUX_ROBUST PROGMUX_TMUX_BIN \
	PROGMUX_SESSION LIBTMUX_SOCKET_NAME LIBTMUX_SOCKET_PATH \
	LIBTMUX_TMUX_BIN PROGMUX_BIN 2>/dev/null || true

tmp=$(mktemp -d "${TMPDIR:-/tmp}/progmux-newcomer.XXXXXX")
# progmux's attach lock (in TMUX_TMPDIR) and its lease rendezvous and
# runtime directories (in TMPDIR) go with the directory too.
TMUX_TMPDIR=$tmp
TMPDIR=$tmp
export TMUX_TMPDIR TMPDIR
RUN_SOCK=$tmp/run.sock		# the clone's make run and --check
INSP_SOCK=$tmp/tmux.sock	# the inspector part
child=""
step_in=/dev/null
cleanup() {
	# A signal can come while a step runs: end it (timeout, its process
	# group leader, passes the signal on to its whole group) and wait, so
	# nothing writes into $tmp or starts a tmux server after this.
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	for s in "$RUN_SOCK" "$INSP_SOCK"; do
		tmux -S "$s" kill-server >/dev/null 2>&1 || true
	done
	[ -n "${NEWCOMER_KEEP:-}" ] || rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

passed=0
failed=0
skipped=0
failed_names=""
ok() {
	passed=$((passed + 1))
	echo "ok - $1"
}
notok() { # notok NAME [LOG]: the check failed; show the end of LOG
	failed=$((failed + 1))
	failed_names="$failed_names
$1"
	echo "not ok - $1"
	if [ $# -ge 2 ] && [ -s "$2" ]; then
		tail -n 25 "$2" | sed 's/^/#   /'
	fi
}
step() { # step CMD...: run CMD, a `timeout ...` (or sh -c '... exec timeout ...'),
	# in the background and wait for it, so a signal reaches our trap at
	# once and cleanup can end CMD's process group.
	# (An asynchronous command's stdin is /dev/null unless redirected:
	# $step_in names what it reads.)
	"$@" <"$step_in" &
	child=$!
	rc=0
	wait "$child" || rc=$?
	child=""
	return "$rc"
}
check() { # check NAME LOG CMD...: ok when step CMD exits 0, its output in LOG
	name=$1 log=$2
	shift 2
	if step "$@" >"$log" 2>&1; then ok "$name"; else notok "$name (exit $?)" "$log"; fi
}

for tool in node npm tmux make timeout; do
	if command -v "$tool" >/dev/null 2>&1; then
		ok "$tool is on PATH"
	else
		notok "$tool is on PATH"
	fi
done

# ------------------------------------------------------------ 1. a fresh clone
# The README's set-up block must still say what this part types.
setup=$(sed -n '/^## Set up/,/^## /p' README.md | sed -n '/^```sh/,/^```/p')
if echo "$setup" | grep -q '^make run ' && echo "$setup" | grep -q '^make test '; then
	ok "README's set-up block gives make run and make test"
else
	notok "README's set-up block gives make run and make test"
fi

if ! command -v git >/dev/null 2>&1 || [ ! -e .git ] ||
	! git rev-parse --verify -q HEAD >/dev/null 2>&1; then
	echo "skipped: $ROOT is not a git work tree with a commit:" \
		"no fresh clone to try"
	skipped=$((skipped + 1))
else
	if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		echo "# note: uncommitted changes in $ROOT are not in the clone" \
			"(it is HEAD $(git rev-parse --short HEAD))"
	fi
	C=$tmp/progmux
	if git clone -q "$ROOT" "$C" >"$tmp/clone.log" 2>&1; then
		ok "git clone of HEAD $(git rev-parse --short HEAD)"
		cloned=1
	else
		notok "git clone of HEAD" "$tmp/clone.log"
		cloned=0
	fi
	if [ "$cloned" = 1 ]; then
		# make run: the build's output and the server's replies both go
		# to stdout; the replies are the lines that parse as JSON.
		printf '%s\n' \
			'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"newcomer","version":"0"}}}' \
			'{"jsonrpc":"2.0","method":"notifications/initialized"}' \
			'{"jsonrpc":"2.0","id":2,"method":"tools/list"}' >"$tmp/run.in"
		t0=$(date +%s)
		step_in=$tmp/run.in
		if step sh -c 'cd "$1" && exec env PROGMUX_SOCKET_PATH="$2" timeout 180 make run' \
			sh "$C" "$RUN_SOCK" >"$tmp/run.out" 2>"$tmp/run.err"; then
			ok "make run in the clone builds, serves stdin and exits at EOF ($(( $(date +%s) - t0 ))s)"
		else
			notok "make run in the clone (exit $?)" "$tmp/run.err"
		fi
		step_in=/dev/null
		tmux -S "$RUN_SOCK" kill-server >/dev/null 2>&1 || true
		# replies: id, then a verdict for each of the two requests
		node -e '
			const lines = require("fs").readFileSync(process.argv[1], "utf8").split("\n");
			const by = {};
			for (const l of lines) {
				if (!l.startsWith("{")) continue;
				try { const m = JSON.parse(l); if (m.id !== undefined) by[m.id] = m; } catch (e) {}
			}
			const i = by[1], t = by[2];
			const iok = i && i.result && i.result.serverInfo && i.result.serverInfo.name === "progmux";
			const names = t && t.result && Array.isArray(t.result.tools) ? t.result.tools.map((x) => x.name) : [];
			console.log(iok ? "ok" : "bad " + JSON.stringify(i || null).slice(0, 300));
			console.log(names.includes("run_program") ? "ok " + names.length : "bad " + JSON.stringify(t || null).slice(0, 300));
		' "$tmp/run.out" >"$tmp/run.verdict" 2>&1 || true
		v=$(sed -n 1p "$tmp/run.verdict")
		if [ "$v" = ok ]; then
			ok "make run: initialize result with serverInfo.name \"progmux\""
		else
			echo "$v" >"$tmp/run.why"
			cat "$tmp/run.out" >>"$tmp/run.why"
			notok "make run: initialize result with serverInfo.name \"progmux\"" "$tmp/run.why"
		fi
		v=$(sed -n 2p "$tmp/run.verdict")
		case $v in
		ok*) ok "make run: tools/list result lists run_program (${v#ok } tools)" ;;
		*)
			echo "$v" >"$tmp/run.why"
			cat "$tmp/run.err" >>"$tmp/run.why"
			notok "make run: tools/list result lists run_program" "$tmp/run.why"
			;;
		esac

		R=$tmp/root
		check "make install DESTDIR=\$tmp/root PREFIX=/usr in the clone" "$tmp/install.log" \
			sh -c 'cd "$1" && exec timeout 180 make install DESTDIR="$2" PREFIX=/usr' sh "$C" "$R"
		missing=""
		for f in usr/bin/progmux usr/bin/progmux-reaper usr/share/man/man1/progmux.1; do
			[ -f "$R/$f" ] || missing="$missing $f"
		done
		if [ -z "$missing" ]; then
			ok "installed progmux, progmux-reaper and progmux(1) under DESTDIR/usr"
		else
			notok "installed files present (missing:$missing)"
		fi
		if "$R/usr/bin/progmux" --version >"$tmp/version.log" 2>&1; then
			ok "installed progmux --version: $(head -n 1 "$tmp/version.log")"
		else
			notok "installed progmux --version (exit $?)" "$tmp/version.log"
		fi
		if step env PROGMUX_SOCKET_PATH="$RUN_SOCK" timeout 30 "$R/usr/bin/progmux" \
			--check >"$tmp/check.log" 2>&1; then
			ok "installed progmux --check exits 0"
		else
			notok "installed progmux --check (exit $?)" "$tmp/check.log"
		fi
		tmux -S "$RUN_SOCK" kill-server >/dev/null 2>&1 || true

		t0=$(date +%s)
		check "make unit integration in the clone builds every test program" "$tmp/unit.log" \
			sh -c 'cd "$1" && exec timeout 240 make -j"$2" unit integration' sh "$C" \
			"$(nproc 2>/dev/null || echo 2)"
		echo "# make unit integration took $(( $(date +%s) - t0 ))s"
		if step sh -c 'cd "$1" && exec timeout 60 build/tests/test_textbuf' sh "$C" \
			>"$tmp/textbuf.log" 2>&1 &&
			grep -q '^\[  PASSED  \]' "$tmp/textbuf.log" &&
			! grep -q '^\[  FAILED  \]' "$tmp/textbuf.log"; then
			ok "the clone's build/tests/test_textbuf passes"
		else
			notok "the clone's build/tests/test_textbuf passes" "$tmp/textbuf.log"
		fi
	fi
fi

# ------------------------------------------------------ 2. MCP Inspector CLI
pkgver() { # pkgver NAME: the version installed in tests/e2e, or nothing
	node -p "try { require('./$E2E/node_modules/$1/package.json').version } catch (e) { '' }"
}
pinned() { # pinned NAME: the version tests/e2e/package.json pins
	node -p "require('./$E2E/package.json').dependencies['$1'] || ''"
}
INSP=@modelcontextprotocol/inspector-cli
SDK=@modelcontextprotocol/sdk
want_insp=$(pinned "$INSP")
want_sdk=$(pinned "$SDK")
# The same npm install as scripts/test/e2e.sh's, from the same package.json,
# so the two agree on what tests/e2e/node_modules holds.
if [ "$want_insp" != "$(pkgver "$INSP")" ] || [ "$want_sdk" != "$(pkgver "$SDK")" ]; then
	echo "# installing $INSP@$want_insp and $SDK@$want_sdk into $E2E/node_modules"
	mkdir -p "$CACHE"
	step sh -c 'cd "$1" && exec timeout 300 npm install --no-audit --no-fund \
		--loglevel=error --cache "$2"' sh "$E2E" "$CACHE" >"$tmp/npm.log" 2>&1 || true
fi
if [ -n "$want_insp" ] && [ "$want_insp" = "$(pkgver "$INSP")" ] && [ -f "$INSP_DIR/index.js" ]; then
	ok "$INSP@$want_insp installed in $E2E/node_modules"
	have_insp=1
else
	notok "$INSP@${want_insp:-?} installed in $E2E/node_modules" "$tmp/npm.log"
	have_insp=0
fi

if [ ! -x "$BIN" ]; then
	notok "$BIN exists (run make all first)"
elif ! tmux -S "$INSP_SOCK" -f /dev/null new-session -d -s base >"$tmp/tmux.log" 2>&1; then
	notok "a private tmux server for the inspector checks" "$tmp/tmux.log"
elif [ "$have_insp" = 1 ]; then
	insp() { # insp LOG ARGS...: the inspector CLI against BIN
		log=$1
		shift
		# 1.0.3 finds its ../package.json relative to the working directory.
		step sh -c 'cd "$1" && s=$2 b=$3 && shift 3 &&
			exec env PROGMUX_SOCKET_PATH="$s" timeout 60 node index.js "$b" "$@"' \
			sh "$INSP_DIR" "$INSP_SOCK" "$BIN" "$@" >"$log" 2>"$log.err"
	}

	if insp "$tmp/list.json" --method tools/list; then
		# The build's tools: schemas/'s, as tests/e2e/tap.mjs says.
		v=$(node --input-type=module -e '
			const { readFileSync } = await import("node:fs");
			const { builtTools } = await import(process.argv[2] + "/tests/e2e/tap.mjs");
			const r = JSON.parse(readFileSync(process.argv[1], "utf8"));
			const names = r.tools.map((t) => t.name).sort().join(",");
			const want = builtTools().join(",");
			console.log(names === want ? "ok " + builtTools().length : "listed " + names + "; want " + want);
		' "$tmp/list.json" "$ROOT" 2>&1 || true)
		case $v in
		ok*) ok "inspector-cli tools/list lists the build's ${v#ok } tools" ;;
		*) notok "inspector-cli tools/list lists the build's tools: $v" "$tmp/list.json" ;;
		esac
	else
		notok "inspector-cli tools/list (exit $?)" "$tmp/list.json.err"
	fi

	if insp "$tmp/call.json" --method tools/call --tool-name run_program \
		--tool-arg 'argv=["echo","hi"]'; then
		v=$(node -e '
			const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
			const s = r.structuredContent || {};
			const text = (r.content || []).map((c) => c.text || "").join("");
			console.log(!r.isError && s.outcome === "completed" && s.exitStatus === 0 &&
				s.text === "hi\n" && text.includes("hi") ? "ok" : "bad");
		' "$tmp/call.json" 2>&1 || true)
		if [ "$v" = ok ]; then
			ok "inspector-cli tools/call run_program [\"echo\",\"hi\"] returns hi, structuredContent valid"
		else
			notok "inspector-cli tools/call run_program returns hi" "$tmp/call.json"
		fi
	else
		rc=$?
		cat "$tmp/call.json" >>"$tmp/call.json.err"
		notok "inspector-cli tools/call run_program (exit $rc)" "$tmp/call.json.err"
	fi

	if insp "$tmp/level.json" --method logging/setLevel --log-level info; then
		ok "inspector-cli logging/setLevel info"
	else
		notok "inspector-cli logging/setLevel info (exit $?)" "$tmp/level.json.err"
	fi
	tmux -S "$INSP_SOCK" kill-server >/dev/null 2>&1 || true
fi

# ------------------------------------------------------------------ summary
echo "# took $(( $(date +%s) - START ))s"
echo "[==========] $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[ "$skipped" -gt 0 ] && echo "[  SKIPPED ] $skipped test(s), listed above."
if [ "$failed" -gt 0 ]; then
	echo "[  FAILED  ] $failed test(s), listed below:"
	echo "$failed_names" | sed -n 's/^./[  FAILED  ] &/p'
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
