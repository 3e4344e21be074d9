#!/bin/sh
# --summary-json: valid JSON (checked with python3 -m json.tool when there
# is a python3) whatever bytes the file names hold, one entry per input with
# status ok, failed (with the reason) or skipped, and counts that match the
# entries and the summary line on stderr; scripts/merge_summaries.sh adds
# them up and names every failed input in full. A summary that cannot be
# written is refused before the batch runs: exit 2 naming it, no output.
. "$(dirname "$0")/common.sh"
cd "$tmp" || exit 1
sample_inputs in >/dev/null
head -c 200 "$samples/scene.png" >in/trunc.png
printf 'corrupt\n' >'in/b"ad.png'
cp "$samples/scene.png" 'in/back\slash.png'
latin1=$(printf 'caf\351.png')
cp "$samples/alpha.png" "in/$latin1"
ok=7 bad=3

# has_entry JSON INPUT OUTPUT STATUS: the document has that entry.
has_entry() { grep -qF "{\"input\": \"$2\", \"output\": \"$3\", \"status\": \"$4\"" "$1"; }

# check_summary JSON OK FAILED SKIPPED: the counts in the document, its
# entries and the stderr summary line are the ones expected.
check_summary() {
    json=$1 want="$2/$3/$4"
    if command -v python3 >/dev/null; then
        why=$(python3 -m json.tool "$json" 2>&1 >/dev/null | tail -n 1)
        check "$json is not valid JSON: $why" [ -z "$why" ]
    else
        echo "note: no python3, the JSON syntax of $json is not checked"
    fi
    got=$(for s in ok failed skipped; do sed -n "s/^  \"$s\": \([0-9]*\),/\1/p" "$json"; done |
        paste -s -d / -)
    check "$json: counts $got, want $want" [ "$got" = "$want" ]
    got=$(for s in ok failed skipped; do grep -c "\"status\": \"$s\"" "$json"; done |
        paste -s -d / -)
    check "$json: entries $got, want $want" [ "$got" = "$want" ]
    got="$(count ok stderr)/$(count failed stderr)/$(count skipped stderr)"
    check "stderr summary $got, want $want" [ "$got" = "$want" ]
    check "$json: want not_started 0" has '"not_started": 0,' "$json"
    check "$json: want interrupted false" has '"interrupted": false,' "$json"
    got=$(grep -c '"status": "failed", "reason": "in/[^"]' "$json")
    check "$json: failed entries with a reason naming the input: $got, want $3" [ "$got" -eq "$3" ]
}

expect 1 blur -r -o out --summary-json first.json in
check_summary first.json $ok $bad 0
for f in alpha.png scene.jpg; do
    check "first.json: no ok entry for in/$f" has_entry first.json "in/$f" "out/$f" ok
done
check "first.json: in/bad.png not failed with its reason" \
    has '"status": "failed", "reason": "in/bad.png: not a PNG' first.json

expect 1 blur -r -o out --summary-json again.json --skip-existing in
check_summary again.json 0 $bad $ok
check "again.json: no skipped entry for in/scene.png" \
    has_entry again.json in/scene.png out/scene.png skipped

# The merge of both runs, in the UTF-8 locale most users have: 20 entries,
# every failed input named in full.
LC_ALL=C.UTF-8 sh "$scripts/merge_summaries.sh" first.json again.json >merged 2>&1
merge_rc=$?
check "merge_summaries.sh: exit $merge_rc, want 1 (failures)" [ $merge_rc -eq 1 ]
want="20 files, ok $ok, failed $((2 * bad)), skipped $ok, not_started 0"
check "merge_summaries.sh: '$(head -n 1 merged)', want '$want'" [ "$(head -n 1 merged)" = "$want" ]
for f in bad.png trunc.png 'b\"ad.png'; do
    check "merge_summaries.sh: want 2 lines naming \"in/$f\"" \
        [ "$(grep -cF "failed \"in/$f\": \"in/" merged)" -eq 2 ]
done

# A summary that cannot be written: a folder that is not there, a name
# under a file, a folder itself, a folder that may not be written (not to
# root). It was found out only after the whole batch had run; now the
# batch does not start: exit 2 naming the path, no -o folder made, no
# outputs in one that was there, no temporary file left.
mkdir -p ro existing
chmod 555 ro
unwritable="nowhere/summary.json first.json/summary.json ro"
[ -w ro ] || unwritable="$unwritable ro/summary.json"
for s in $unwritable; do
    expect 2 blur -r -o fresh --summary-json "$s" in
    check "--summary-json $s: the message does not name it" has "summary-json $s" "$tmp/stderr"
    check "--summary-json $s: the batch ran (-o folder made)" [ ! -e fresh ]
    expect 2 blur -r -o existing --summary-json "$s" in
    check "--summary-json $s: outputs written: $(ls existing | head -n 3)" [ -z "$(ls -A existing)" ]
done
check "a refused summary left a file in ro: $(ls -A ro)" [ -z "$(ls -A ro)" ]
# the summary may go into the -o folder that the batch makes
expect 1 blur -r -o made --summary-json made/summary.json in
check "made/summary.json: not written into the -o folder" [ -s made/summary.json ]
chmod 755 ro
finish
