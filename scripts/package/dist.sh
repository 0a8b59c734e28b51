#!/bin/sh
# dist.sh — the release tarball and the Homebrew formula for it (make dist):
#
#   build/dist/progmux-VERSION.tar.gz   the tree at HEAD (git archive),
#                                       under progmux-VERSION/
#   build/dist/homebrew-progmux/        the tap (packaging/homebrew-progmux)
#                                       with the formula's sha256 set to
#                                       that tarball's
#
# The release uploads the tarball as
# https://github.com/progmux/progmux/releases/download/vVERSION/progmux-VERSION.tar.gz
# (the formula's url) and the tap gets build/dist/homebrew-progmux.
# Uncommitted changes are not in the tarball: it is of HEAD.
set -eu
cd "$(dirname "$0")/../.."
V=$(cat VERSION)
D=build/dist
die() { echo "dist.sh: $*" >&2; exit 1; }

rm -rf "$D"
mkdir -p "$D"
t=$D/progmux-$V.tar.gz
git archive --format=tar.gz --prefix="progmux-$V/" -o "$t" HEAD
sum=$(sha256sum "$t" | cut -d' ' -f1)
cp -R packaging/homebrew-progmux "$D/"
f=$D/homebrew-progmux/Formula/progmux.rb
grep -q "releases/download/v$V/progmux-$V.tar.gz\"" "$f" ||
    die "$f's url does not name progmux-$V.tar.gz of release v$V"
sed "s/^  sha256 \"[0-9a-f]*\"\$/  sha256 \"$sum\"/" "$f" >"$f.new"
mv "$f.new" "$f"
grep -q "sha256 \"$sum\"" "$f" || die "$f: its sha256 line was not set"
echo "dist.sh: $t (sha256 $sum), $D/homebrew-progmux"
