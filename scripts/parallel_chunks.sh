#!/bin/sh
# GNU parallel hands chunks of 200 files to each gpuimg process, so start-up
# (and CUDA initialisation) is paid once per chunk, not once per file.
#
#   find photos -name '*.jpg' | scripts/parallel_chunks.sh OUTPUT_DIR [gpuimg options...]
#   e.g. ... | scripts/parallel_chunks.sh blurred/ blur --sigma 2
# Across machines, add parallel's --sshlogin (gpuimg and the files must be
# reachable there at the same paths, e.g. on a shared file system):
#   ... | PARALLEL_OPTS="--sshlogin 8/node1,8/node2" scripts/parallel_chunks.sh ...
#
# Outputs keep their base names under OUTPUT_DIR (as with --files-from), so
# the listed files need distinct base names: a chunk fails the later of two
# it holds, but two chunks would write one file. Each chunk writes a
# summary OUTPUT_DIR/.summaries/chunk-N.json (merge them with
# scripts/merge_summaries.sh). Exit status: parallel's, non-zero when any
# chunk had a failed file.
set -eu
[ $# -ge 2 ] || { echo "usage: ... | $0 OUTPUT_DIR COMMAND [options]" >&2; exit 2; }
out=$1
shift
gpuimg=${GPUIMG:-gpuimg}
jobs=${JOBS:-$(nproc)}
mkdir -p "$out/.summaries"
# --pipe -N 200: each job reads 200 lines (paths) on its stdin.
# shellcheck disable=SC2086
parallel ${PARALLEL_OPTS:-} --pipe -N "${CHUNK:-200}" -j "$jobs" \
    "$gpuimg" "$@" -q -j 1 --files-from - --summary-json "$out/.summaries/chunk-{#}.json" -o "$out"
