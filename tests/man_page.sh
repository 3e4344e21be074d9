#!/bin/sh
# man_page.sh GPUIMG MANPAGE: the man page parses without warnings under
# groff (skipped, 77, without groff) and mandoc -Tlint (when mandoc is
# here), every command `gpuimg --help` lists has an entry in it (a .TP item
# naming the command), and each entry's tag renders on one line of its own:
# the whole synopsis, nothing of it run into the description (a tag that
# spans several source lines breaks after its first under `man`).
gpuimg=$1 page=$2
command -v groff >/dev/null 2>&1 || { echo "no groff: skipped"; exit 77; }
failed=0
fail() { echo "FAIL: $*"; failed=1; }
# Plain text: no bold or underline sequences, no hyphenation in the tags.
render() { groff -ww -man -Tutf8 -P-cbou "$@"; }
trim() { sed 's/^ *//; s/ *$//'; }

warnings=$(render -z "$page" 2>&1)
[ -z "$warnings" ] || fail "groff warns about $page:
$warnings"
if command -v mandoc >/dev/null 2>&1; then
    lint=$(mandoc -Tlint "$page" 2>&1) || fail "mandoc -Tlint: $page:
$lint"
    [ -z "$lint" ] || fail "mandoc -Tlint warns about $page:
$lint"
else
    echo "no mandoc: -Tlint not run"
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
render "$page" > "$tmp/page.txt" 2> /dev/null

commands=$("$gpuimg" --help | sed -n '/^Commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ -n "$commands" ] || fail "no commands in gpuimg --help"
for c in $commands; do
    # The lines after a .TP up to the first text line make its tag:
    # ".B name", ".BR name ...", ".BI name ...", and any macro lines after.
    awk -v c="$c" '
        prev == ".TP" && $1 ~ /^\.B/ && $2 == c { tag = 1 }
        tag && !/^\./ { exit }
        tag { print }
        { prev = $1 }' "$page" > "$tmp/tag.man"
    if [ ! -s "$tmp/tag.man" ]; then
        fail "command '$c' has no entry in $page"; continue
    fi
    # The synopsis as one filled line of a page too wide to break it ...
    synopsis=$({ printf '.TH T 1\n.SH S\n.nh\n.ll 1000\n'; cat "$tmp/tag.man"; } |
        render 2> /dev/null | sed -n '/^S$/,$p' | sed '1d; /^ *$/d' | head -n 1 | trim)
    # ... and the tag's line in the page, at the tag indent of its section:
    # the synopsis alone, or (a tag narrower than the indent) followed by
    # the description after a gap.
    line=$(grep -E "^ {7}$c( |$)" "$tmp/page.txt" | head -n 1 | trim)
    case $line in
        "$synopsis" | "$synopsis  "*) ;;
        *) fail "the tag of '$c' renders as '$line', not its whole synopsis '$synopsis'" ;;
    esac
done
[ "$failed" -eq 0 ] && echo "man page: ok ($(echo $commands | wc -w) commands)"
exit "$failed"
