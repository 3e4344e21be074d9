#!/bin/sh
# Holds every #include "..." under lib/ to the layer rules of
# docs/design.md (the table that starts with "layer  may use"), the one
# place they are written:
#  - a file includes a file of its own folder by its bare name, and any
#    other by its path under lib/ ("base/gi_error.h"); gpuimg.h is named
#    bare everywhere, and lib/cuda names kernels/'s headers bare;
#  - a layer includes only itself and the layers its row lists.
# Usage: layers_check.sh SOURCE_ROOT
# Exit 0 when every include keeps the rules, 1 naming each that does not.
set -u
root=$(cd "${1:?usage: layers_check.sh SOURCE_ROOT}" && pwd) || exit 1
design="$root/docs/design.md"
[ -r "$design" ] || { echo "layers_check: cannot read $design" >&2; exit 1; }

# The table: from its header line to the end of its code block.
rules=$(awk '/^layer +may use/ { on = 1; next } on && /^```/ { exit } on && NF' "$design")
[ -n "$rules" ] || { echo "layers_check: no 'layer  may use' table in $design" >&2; exit 1; }

cd "$root/lib" || exit 1
find . -name '*.[ch]' | sed 's|^\./||' | sort | while read -r file; do
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
        sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/' | sed "s|^|$file |"
done | awk -v rules="$rules" -v kernels="$root/kernels" '
BEGIN {
    n = split(rules, lines, "\n")
    for (i = 1; i <= n; i++) {
        k = split(lines[i], w, " ")
        layer = w[1]
        known[layer] = 1
        may[layer, layer] = 1
        for (j = 2; j <= k; j++) if (w[j] != "-") may[layer, w[j]] = 1
    }
    bad = 0
}
function exists(path) { return (getline line < path) >= 0 ? (close(path) || 1) : 0 }
{
    file = $1; lineno = $2; inc = $3
    dir = file; sub(/\/[^\/]*$/, "", dir); if (dir == file) dir = "."
    layer = file; sub(/\/.*/, "", layer)
    where = file ":" lineno ": \"" inc "\""
    if (dir == ".") {
        if (inc != "gpuimg.h") { print where ": lib/" file " includes nothing but gpuimg.h"; bad++ }
        next
    }
    if (!(layer in known)) { print where ": lib/" layer "/ has no row in the table"; bad++; next }
    if (inc !~ /\//) {
        if (inc == "gpuimg.h" || exists(dir "/" inc)) next
        if (layer == "cuda" && exists(kernels "/" inc)) next
        print where ": not in " dir "/: name the folder it is in (\"FOLDER/" inc "\")"; bad++
        next
    }
    if (!exists(inc)) { print where ": no such file under lib/"; bad++; next }
    target = inc; sub(/\/.*/, "", target)
    if (!((layer, target) in may)) { print where ": " layer " may not use " target; bad++ }
    else if (target == layer && inc ~ ("^" dir "/[^/]*$")) {
        print where ": in its own folder: name it bare"; bad++
    }
}
END {
    if (bad) { print bad " include(s) break the layer rules of docs/design.md"; exit 1 }
}'
