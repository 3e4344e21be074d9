#!/bin/sh
# exports_check.sh LIBGPUIMG PCDIR HEADER...: libgpuimg exports exactly the
# functions the public headers declare (GI_API): every dynamic symbol it
# defines is one of them (no gi__ internals, no stbi_ of its stb), and each
# of them is there; and `pkg-config --cflags --libs gpuimg` works with
# PCDIR's gpuimg.pc alone on the search path, so that it needs no other
# package's development files. Skips (77) for a static libgpuimg or
# without nm.
set -u
lib=$1
pcdir=$2
shift 2
command -v nm >/dev/null 2>&1 || { echo "skip: no nm"; exit 77; }
case $lib in *.so*) ;; *) echo "skip: $lib is not a shared library"; exit 77 ;; esac
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

nm -D --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sed 's/@.*//' | sort -u >"$tmp/exported"
# Function declarations of the headers: the name before the first "(" of
# each declaration that starts a line (types and inline helpers aside).
cat "$@" | grep -E '^(GI_API )?[a-z][a-z0-9_ *]*\<gi_[a-z0-9_]+\(' |
    grep -vE '^(typedef|static|extern)' | sed -E 's/^[^(]*\<(gi_[a-z0-9_]+)\(.*/\1/' |
    sort -u >"$tmp/declared"
[ -s "$tmp/declared" ] || { echo "FAIL: no declarations found in $*"; exit 1; }

extra=$(comm -23 "$tmp/exported" "$tmp/declared")
if [ -n "$extra" ]; then
    echo "FAIL: $lib exports what no public header declares:"
    echo "$extra" | head -20
    failed=1
fi
missing=$(comm -13 "$tmp/exported" "$tmp/declared")
if [ -n "$missing" ]; then
    echo "FAIL: declared but not exported (GI_API missing?):"
    echo "$missing"
    failed=1
fi

if command -v pkg-config >/dev/null 2>&1; then
    if ! PKG_CONFIG_LIBDIR=$pcdir pkg-config --cflags --libs gpuimg >"$tmp/pc" 2>&1; then
        echo "FAIL: pkg-config --cflags --libs gpuimg with $pcdir alone: $(cat "$tmp/pc")"
        failed=1
    fi
fi
[ $failed -eq 0 ] && echo "$(wc -l <"$tmp/declared") functions exported, nothing else"
exit $failed
