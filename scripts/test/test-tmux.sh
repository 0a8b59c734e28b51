#!/bin/sh
# test-tmux.sh [BUILDDIR] — the integration suites (tests/integration and
# the end-to-end test) on each tmux version of scripts/test/tmux-versions.sh:
# 3.3a, 3.5a and 3.8, in turn.
#
# For each version, scripts/test/test.sh runs with PROGMUX_TEST_TMUX set to
# that version's tmux (the harness starts, inspects and ends its private
# servers with it and gives it to progmux as PROGMUX_TMUX_BIN) and with
# its directory first on PATH, so a plain "tmux" (progmux's default, a
# program in a pane) is that version too; PROGMUX_TEST_TMUX_VERSION makes
# the harness and the end-to-end test check that the private server and
# progmux's start line are that version (a test that sets its own
# PROGMUX_TMUX_BIN is exempt from the latter). Every line is labelled
# with the version; a line per version gives its counts and time, and the
# run ends with one "N passed, M failed" line for all; any failure, or a
# version that could not be set up, makes the exit status non-zero.
# TMUX_VERSIONS="3.5a 3.8" runs only those (CI leaves out 3.3a, the
# system's, on which make test has just run the same suites).
set -u
B=${1:-build}
cd "$(dirname "$0")/../.."
start=$(date +%s)
passed=0
failed=0
summary=""
list=$(mktemp /tmp/progmux-tmuxlist.XXXXXX)
rcf=$(mktemp /tmp/progmux-tmuxrc.XXXXXX)
out=$(mktemp /tmp/progmux-tmuxout.XXXXXX)
trap 'rm -f "$list" "$rcf" "$out"' EXIT

if ! sh scripts/test/tmux-versions.sh "$B" >"$list"; then
	echo "test-tmux: some tmux version could not be set up"
	failed=$((failed + 1))
fi
while read -r v w; do
	case " ${TMUX_VERSIONS:-$v} " in *" $v "*) ;; *) continue ;; esac
	echo "== tmux $v: $w"
	t0=$(date +%s)
	{
		PROGMUX_TEST_TMUX=$w PROGMUX_TEST_TMUX_VERSION=$v \
		    PATH=$(dirname "$w"):$PATH SKIP_UNIT=1 SKIP_NEWCOMER=1 \
		    sh scripts/test/test.sh "$B" </dev/null 2>&1
		echo $? >"$rcf"
	} | tee "$out" | sed "s/^/[$v] /"
	line=$(tail -1 "$out")
	# test.sh's last line: "N passed, M failed, K skipped".
	p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, [0-9]* skipped$/\1/p')
	f=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, [0-9]* skipped$/\2/p')
	if [ -z "$p" ]; then
		p=0 f=1
	elif [ "$(cat "$rcf")" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	summary="$summary
tmux $v: $p passed, $f failed ($(( $(date +%s) - t0 ))s)"
done <"$list"
echo "== tmux versions:$summary"
echo "(all: $(( $(date +%s) - start ))s)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
