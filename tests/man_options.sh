#!/bin/sh
# man_options.sh DUMP MANPAGE: the man page's COMMAND OPTIONS describe each
# option of the table of operation parameters (DUMP, op_params_dump, prints
# them) as `gpuimg CMD --help` does: under the command's .SS, a .TP whose
# tag names the option, its short form and its value, and a paragraph that
# is the --help text (range and default included) and a full stop.
dump=$1 page=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$dump" >"$tmp/table" || { echo "FAIL: $dump"; exit 1; }
# One line per .TP item: section, tag, paragraph; roff's escapes removed.
awk '
function flush() { if (tag != "") print sec "\t" tag "\t" text; tag = ""; text = "" }
/^\.SH/ { flush(); sec = ""; next }
/^\.SS/ { flush(); sec = $2; next }
/^\.TP/ { flush(); want_tag = 1; next }
want_tag { tag = $0; sub(/^\.[BI]R? /, "", tag); want_tag = 0; next }
/^\.(PP|P|LP|RS|RE|IP|EX|EE|nf|fi)/ { flush(); next }
tag != "" { line = $0; sub(/^\.[BI]R? /, "", line); text = text (text == "" ? "" : " ") line }
END { flush() }
' "$page" | sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\(aq/'"'"'/g' -e 's/"//g' -e 's/ ,/,/g' -e 's/  */ /g' >"$tmp/items"
failed=0
while IFS="$(printf '\t')" read -r cmd short long metavar help; do
    item=$(awk -F '\t' -v c="$cmd" -v o="$long" '$1 == c && index($2 " ", o " ") { print; exit }' "$tmp/items")
    if [ -z "$item" ]; then
        echo "FAIL: no item for $cmd $long under .SS $cmd"
        failed=1
        continue
    fi
    tag=$(printf '%s' "$item" | cut -f2)
    text=$(printf '%s' "$item" | cut -f3)
    case $short in -) ;; *) case "$tag " in *"$short, "*) ;; *) echo "FAIL: $cmd $long: the tag '$tag' lacks $short"; failed=1 ;; esac ;; esac
    case $metavar in -) ;; *) case "$tag" in *"$long $metavar"*) ;; *) echo "FAIL: $cmd $long: the tag '$tag' lacks $metavar"; failed=1 ;; esac ;; esac
    # the first letter may be a capital in the page
    first=$(printf '%s' "$help" | cut -c1 | tr '[:lower:]' '[:upper:]')
    capital="$first$(printf '%s' "$help" | cut -c2-)"
    if [ "$text" != "$help." ] && [ "$text" != "$capital." ]; then
        echo "FAIL: $cmd $long: the page says"
        echo "    $text"
        echo "  where --help says"
        echo "    $help."
        failed=1
    fi
done <"$tmp/table"
[ $failed -eq 0 ] && echo "$(wc -l <"$tmp/table") options as --help describes them"
exit $failed
