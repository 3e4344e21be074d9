#!/bin/sh
# Holds every #include "..." under lib/ to the layer rules of
# docs/design.md (the table that starts with "layer  may use"), the one
# place they are written:
#  - a file includes a file of its own folder by its bare name, and any
#    other by its path under lib/ ("base/gi_error.h"); gpuimg.h is named
#    bare everywhere, and lib/cuda names kernels/'s headers bare;
#  - a layer includes only itself and the layers its row lists.
# Given a build directory too, it holds the calls to the same rules: every
# gi_ function or table a layer's static libraries (BUILD_ROOT/lib/LAYER/)
# leave undefined is defined by the layer itself or one its row lists
# (lib/cuda may call kernels/ too), so no call goes up through gpuimg.h.
# Usage: layers_check.sh SOURCE_ROOT [BUILD_ROOT]
# Exit 0 when every include (and call) keeps the rules, 1 naming each that
# does not.
set -u
root=$(cd "${1:?usage: layers_check.sh SOURCE_ROOT [BUILD_ROOT]}" && pwd) || exit 1
build=
if [ $# -ge 2 ]; then build=$(cd "$2" && pwd) || exit 1; fi
design="$root/docs/design.md"
[ -r "$design" ] || { echo "layers_check: cannot read $design" >&2; exit 1; }

# The table: from its header line to the end of its code block.
rules=$(awk '/^layer +may use/ { on = 1; next } on && /^```/ { exit } on && NF' "$design")
[ -n "$rules" ] || { echo "layers_check: no 'layer  may use' table in $design" >&2; exit 1; }

# may: "layer used" pairs, one a line, from the table.
may=$(echo "$rules" | awk '{ print $1, $1; for (i = 2; i <= NF; i++) if ($i != "-") print $1, $i }')

cd "$root/lib" || exit 1
find . -name '*.[ch]' | sed 's|^\./||' | sort | while read -r file; do
    grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
        sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/' | sed "s|^|$file |"
done | awk -v rules="$may" -v kernels="$root/kernels" '
BEGIN {
    n = split(rules, lines, "\n")
    for (i = 1; i <= n; i++) {
        split(lines[i], w, " ")
        known[w[1]] = 1
        may[w[1], w[2]] = 1
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
status=$?
[ -n "$build" ] || exit $status
command -v nm >/dev/null 2>&1 || { echo "no nm: calls not checked"; exit $status; }

# "D layer symbol" for what each layer's libraries (and kernels/) define,
# "U layer symbol" for what they leave undefined; gi_ names only.
cd "$build" || exit 1
for a in $(find lib kernels -name '*.a' 2>/dev/null | sort); do
    layer=kernels
    case $a in lib/*) layer=${a#lib/}; layer=${layer%%/*} ;; esac
    nm -g --defined-only "$a" 2>/dev/null | awk -v l="$layer" '$NF ~ /^gi_/ && NF == 3 { print "D", l, $3 }'
    nm -u "$a" 2>/dev/null | awk -v l="$layer" '$NF ~ /^gi_/ { print "U", l, $NF }'
done | sort -u | awk -v rules="$may" '
BEGIN {
    n = split(rules, lines, "\n")
    for (i = 1; i <= n; i++) { split(lines[i], w, " "); may[w[1], w[2]] = 1 }
    may["cuda", "kernels"] = 1
    may["kernels", "kernels"] = 1
    bad = 0
}
$1 == "D" { where[$3] = where[$3] " " $2; next }
{ used[$2, $3] = 1 }
END {
    for (key in used) {
        split(key, k, SUBSEP)
        n = split(where[k[2]], ls, " ")
        ok = n == 0 # defined by no layer: not a call between layers
        for (i = 1; i <= n; i++) if ((k[1], ls[i]) in may) ok = 1
        if (!ok) { print "lib/" k[1] "/ calls " k[2] " of" where[k[2]]; bad++ }
    }
    if (bad) { print bad " call(s) break the layer rules of docs/design.md"; exit 1 }
}' || exit 1
exit $status
