#!/bin/sh
# brew-test.sh — the Homebrew formula (packaging/homebrew-progmux) as
# brew install and brew test would run it, on this machine, without
# Homebrew (make brew-test): make dist's tarball and formula, then the
# formula's install block (the tarball unpacked and built, installed into
# a prefix) and its test block (initialize and tools/call run_program
# piped into progmux) run by tests/package/brew/formula.rb, a Ruby
# stand-in for the part of Homebrew's formula language the formula
# uses. Installs ruby (Debian's) when missing. Everything is under
# build/brew-test, removed at the end.
set -eu
cd "$(dirname "$0")/../.."
V=$(cat VERSION)
W=$(pwd)/build/brew-test

sh scripts/build/install-packages.sh ruby
sh scripts/package/dist.sh
rm -rf "$W"
mkdir -p "$W"
trap 'rm -rf "$W"' EXIT
ruby tests/package/brew/formula.rb \
    build/dist/homebrew-progmux/Formula/progmux.rb \
    "build/dist/progmux-$V.tar.gz" "$W"
