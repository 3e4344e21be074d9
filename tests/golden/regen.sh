#!/bin/sh
# regen.sh [BUILDDIR]   (default BUILDDIR: build)
#
# Rewrites the frozen outputs in tests/golden/ from the current CLI.
#
# Only run this when a change of semantics is intended: a new rounding rule,
# a new border mode, a fixed bug whose wrong output had been frozen. The
# golden tests exist to catch every other change. Afterwards, look at what
# moved (git status; tests/imgcmp old new names the first changed pixel) and
# say in the commit message why the old outputs were wrong.
#
# A new case is one line in cases.txt: OUTFILE INPUT COMMAND [OPTIONS...];
# it runs as `gpuimg COMMAND [OPTIONS...] INPUT OUTFILE` inside samples/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
gpuimg=$build/cmd/gpuimg
[ -x "$gpuimg" ] || { echo "regen.sh: no $gpuimg; build first (ninja -C $build)" >&2; exit 1; }

grep -v '^[[:space:]]*#' "$here/cases.txt" | while read -r out input args; do
    [ -n "$out" ] || continue
    # $args is split on purpose: the options are plain words.
    # shellcheck disable=SC2086
    sh "$here/run_case.sh" "$gpuimg" "$root/samples" "$here/$out" "$input" $args
    echo "wrote tests/golden/$out"
done

# Goldens no case produces any more are stale.
for f in "$here"/*.png "$here"/*.jpg "$here"/*.txt "$here"/*.csv "$here"/*.json; do
    [ -e "$f" ] || continue
    name=${f##*/}
    [ "$name" = cases.txt ] && continue
    grep -q "^${name}[[:space:]]" "$here/cases.txt" || echo "stale, not in cases.txt: $name" >&2
done
