#!/bin/sh
# Adds up the --summary-json files of an array job or a parallel run:
#   scripts/merge_summaries.sh OUTPUT_DIR/.summaries/*.json
# Prints one line "N files, ok X, failed Y, skipped Z, not_started W" and
# each failed input with its reason; exits 1 when any file failed or was not
# started. Needs only POSIX sh, grep and sed (the summaries are written one
# file entry per line).
set -eu
LC_ALL=C # file names are bytes, not text in the user's locale
export LC_ALL
[ $# -ge 1 ] || { echo "usage: $0 SUMMARY.json..." >&2; exit 2; }
cat "$@" | grep '"status": ' | sed 's/.*"status": "\([a-z_]*\)".*/\1/' | sort | uniq -c |
    awk '{n[$2] = $1; t += $1}
         END {printf "%d files, ok %d, failed %d, skipped %d, not_started %d\n",
                     t, n["ok"], n["failed"], n["skipped"], n["not_started"]
              exit (n["failed"] + n["not_started"] > 0)}' && status=0 || status=1
# A JSON string is quotes around non-quote characters or escapes (\").
cat "$@" | grep '"status": "failed"' |
    sed -E 's/.*"input": ("([^"\\]|\\.)*").*"reason": ("([^"\\]|\\.)*").*/failed \1: \3/' || true
exit $status
