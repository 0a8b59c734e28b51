#!/bin/sh
# paths.sh — every script the tree names is there: a path under scripts/
# (scripts/DIR/NAME.sh, .mjs or .py) written in the Makefile, .ci/run, the
# scripts, the tests, the sources or the documents must be a file of the
# tree, so that a renamed script cannot leave a step that runs nothing
# but its own "cannot open".
#
# Prints one "not ok - " line per path named but missing and a cmocka-style
# summary for scripts/test/test.sh; exits non-zero if any. Reads only the
# tree: no build, no tmux.
set -u
cd "$(dirname "$0")/../.."
passed=0
failed=0

# The files that may name a script: the tree's own (never an npm
# package's), as git lists them, or as find does outside a clone.
files() {
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files
	else
		find . -path ./build -prune -o -name node_modules -prune -o \
		    -path ./.git -prune -o -type f -print | sed 's#^\./##'
	fi | grep -v -e '/node_modules/' -e '^build/' -e 'package-lock\.json$' |
	    while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done
}

named=$(files | tr '\n' '\0' | xargs -0 grep -ohE \
    'scripts/[a-z0-9_-]+/[A-Za-z0-9_.-]+\.(sh|mjs|py)' 2>/dev/null |
    sort -u)
for p in $named; do
	if [ -f "$p" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "not ok - $p is named but not there:"
		files | tr '\n' '\0' | xargs -0 grep -lF "$p" | sed 's/^/#   /'
	fi
done
echo "[  PASSED  ] $passed test(s)."
if [ "$failed" -gt 0 ]; then
	echo "[  FAILED  ] $failed test(s), listed above"
	exit 1
fi
