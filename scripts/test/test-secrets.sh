#!/bin/sh
# test-secrets.sh [BUILDDIR] — ask_user_secret for real (tests/secrets):
# Debian's chromium, headless under puppeteer-core, fills progmux's
# one-time page while the official MCP SDK clients answer its URL
# elicitation in both eras; a getpass program and ssh to an sshd of the
# test's own take the secret; it is then looked for everywhere it must
# not be. Installs what is missing first: chromium, openssh-server and
# openssl (Debian packages, as scripts/build/install-packages.sh does) and
# tests/secrets' npm packages from its lockfile (npm ci, a cache under
# build/). The page as rendered is kept as build/secrets/page.png.
# SECRETS_SSH=skip skips the ssh part where it cannot be set up (its sshd
# needs root for its mount namespace); otherwise that fails the run.
set -eu
B=${1:-build}
cd "$(dirname "$0")/../.."
CACHE=${PROGMUX_NPM_CACHE:-$(pwd)/build/npm-cache}

sh scripts/build/install-packages.sh chromium openssh-server openssl util-linux
if [ ! -x "$B/progmux" ] || [ ! -x "$B/fixtures/getpass" ]; then
	echo "test-secrets.sh: $B/progmux or $B/fixtures/getpass missing: make all integration" >&2
	exit 1
fi
if ! "$B/progmux" --check 2>&1 | grep -q ask_user_secret; then
	echo "test-secrets.sh: $B/progmux has no ask_user_secret (built with SECRET_PAGE=)" >&2
	exit 1
fi
# The pinned packages, unless installed already at the lockfile's versions.
if ! (cd tests/secrets && npm ls --silent >/dev/null 2>&1); then
	mkdir -p "$CACHE"
	(cd tests/secrets && npm ci --no-audit --no-fund --loglevel=error \
	    --cache "$CACHE" >&2)
fi
mkdir -p build/secrets
PROGMUX_BIN="$(pwd)/$B/progmux" exec node tests/secrets/secrets.mjs
