# shellcheck shell=sh
# Sourced by fuzz_smoke.sh and fuzz_campaign.sh, with $here set to this
# folder: the sanitizer options and libFuzzer limits both runs use, and the
# seeds they start from.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
# The targets cap images at 4 Mpixels, so no allocation needs 512 MiB: a
# larger one comes from a length the input claims, and counts as a crash.
# shellcheck disable=SC2034 # used by the scripts that source this
fuzz_limits="-rss_limit_mb=2048 -malloc_limit_mb=512 -timeout=10"

# make_fuzz_seeds DIR: the bad-input corpus and the samples as seeds, one
# folder per target under DIR (make_seeds.py).
make_fuzz_seeds() {
    # shellcheck disable=SC2154 # $here is the sourcing script's
    python3 "$here/make_corpus.py" "$here/cases.txt" "$here/../../samples" "$1/corpus" >/dev/null &&
        python3 "$here/make_seeds.py" "$1" "$here/../../samples" "$1/corpus"
}
