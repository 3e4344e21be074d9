#!/bin/sh
# man_page.sh GPUIMG MANPAGE: the man page parses without warnings (when
# groff is here; 77 otherwise), and every command `gpuimg --help` lists
# has an entry in it (a .TP item naming the command).
gpuimg=$1 page=$2
command -v groff >/dev/null 2>&1 || { echo "no groff: skipped"; exit 77; }
failed=0
warnings=$(groff -man -z -ww "$page" 2>&1)
if [ -n "$warnings" ]; then
    echo "FAIL: groff warns about $page:"; echo "$warnings"; failed=1
fi
commands=$("$gpuimg" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ -n "$commands" ] || { echo "FAIL: no commands in gpuimg --help"; failed=1; }
for c in $commands; do
    # The line after a .TP names the item: ".B name", ".BR name ...", ".BI name ...".
    if ! awk -v c="$c" 'prev == ".TP" && $1 ~ /^\.B/ && $2 == c { found = 1 } { prev = $1 } END { exit !found }' "$page"; then
        echo "FAIL: command '$c' has no entry in $page"; failed=1
    fi
done
[ "$failed" -eq 0 ] && echo "man page: ok ($(echo $commands | wc -w) commands)"
exit "$failed"
