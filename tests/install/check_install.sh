#!/bin/bash
# `cmake --install` into a temporary prefix gives a working augment: the installed program loads
# its OpenCV codec plugin from the install (it writes a PNG, which needs the plugin), and the man
# page reads with `man -l` (when man is installed) and has a section for every command.
#
# usage: check_install.sh CMAKE BUILD_DIR BINDIR MANDIR SOURCE_DIR
#   BINDIR, MANDIR: CMAKE_INSTALL_BINDIR and CMAKE_INSTALL_MANDIR, relative to the prefix
set -euo pipefail
cmake=$1 build=$2 bindir=$3 mandir=$4 src=$5
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "check_install.sh: $*" >&2; exit 1; }

"$cmake" --install "$build" --prefix "$prefix" >/dev/null
augment=$prefix/$bindir/augment
page=$prefix/$mandir/man1/augment.1
[ -x "$augment" ] || fail "no $augment"
[ -s "$page" ] || fail "no $page"

# The codecs must come from the install, not from the build tree the program was built in.
"$augment" --log-level debug run -c "$src/configs/default.json" -i "$src/samples/camera.png" \
  -o "$prefix/out" --progress never 2>"$prefix/log" >/dev/null || { cat "$prefix/log" >&2; fail "the installed augment failed"; }
grep -q "OpenCV codecs: $prefix/" "$prefix/log" || { cat "$prefix/log" >&2; fail "the codec plugin was not loaded from $prefix"; }
[ -s "$prefix/out/camera.png" ] || fail "no output image"

# Every command of `augment --help` has its section ("augment NAME") in the man page.
if command -v man >/dev/null; then
  text=$(MANWIDTH=100 man --warnings -l "$page" 2>"$prefix/man.err")
  ! grep -Eiq "warning|error" "$prefix/man.err" || { cat "$prefix/man.err" >&2; fail "man -l $page: warnings"; }
else
  text=$(sed 's/\\-/-/g' "$page")
fi
commands=$("$augment" --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }')
[ -n "$commands" ] || fail "augment --help lists no command"
for c in $commands; do
  grep -Eq "^ *(\.SS )?augment $c\$" <<<"$text" || fail "the man page has no section for '$c'"
done
echo "check_install.sh: installed into a temporary prefix; the codecs load from it; the man page has all $(wc -w <<<"$commands") commands"
