#!/bin/sh
# Outputs stay under -o DIR: --files-from paths with '..', './' and absolute
# paths keep their base names inside it (a path without one fails) and
# nothing appears anywhere else; a symlink
# at an output path is replaced, never written through; two inputs with
# one output path refuse the batch before anything is written, naming both
# and the file, with or without --skip-existing.
. "$(dirname "$0")/common.sh"
mkdir "$tmp/work" "$tmp/elsewhere"
cd "$tmp/work" || exit 1
sample_inputs in >/dev/null
mkdir in/a
cp "$samples/alpha.png" in/a/scene.png
for f in scene.png alpha.png gray_alpha.png edge_line.png scene.jpg a/scene.png; do
    mkdir -p "ref/$(dirname "$f")"
    "$gpuimg" blur "in/$f" "ref/$f"
done

# everything_else: every name under $tmp but out/, the gpuimg capture
# files and these listings, with a checksum for each file (an output
# written over an input would change one).
everything_else() {
    (cd "$tmp" && find . -path ./work/out -prune -o -path ./stdout -o -path ./stderr \
        -o -path ./before -o -path ./after -o -type f -exec cksum {} + -o -print |
        LC_ALL=C sort)
}

up=../../../../../../../../../../../../../../../../../../../../..
cat >list <<EOF
../work/in/scene.png
./in/alpha.png
$tmp/work/in/gray_alpha.png
in/../../work/in/edge_line.png
$up$tmp/work/in/scene.jpg
..
/
EOF
everything_else >"$tmp/before"
expect 1 blur --files-from list -o out
everything_else >"$tmp/after"
check "changed outside -o: $(comm -13 "$tmp/before" "$tmp/after" | tr '\n' ' ')" \
    same_file "$tmp/before" "$tmp/after"
for f in scene.png alpha.png gray_alpha.png edge_line.png scene.jpg; do
    check "--files-from: out/$f missing or wrong" same_file "out/$f" "ref/$f"
done
check "--files-from: want 5 files under out/, got $(files out | tr '\n' ' ')" \
    [ "$(files out | wc -l)" -eq 5 ]
check "--files-from '..' and '/': want 2 failures" [ "$(count failed "$tmp/stderr")" -eq 2 ]

# Symlinks where outputs go: one to a file that must keep its bytes, one
# dangling whose target must not be created.
mkdir out-links
printf 'precious\n' >"$tmp/elsewhere/victim.png"
cp "$tmp/elsewhere/victim.png" "$tmp/victim.copy"
ln -s "$tmp/elsewhere/victim.png" out-links/scene.png
ln -s "$tmp/elsewhere/created.png" out-links/alpha.png
expect 0 blur -o out-links in/scene.png in/alpha.png
check "a symlinked output was written through" same_file "$tmp/elsewhere/victim.png" "$tmp/victim.copy"
check "a dangling symlinked output created its target" [ ! -e "$tmp/elsewhere/created.png" ]
for f in scene.png alpha.png; do
    check "the symlink at out-links/$f was not replaced" [ ! -h "out-links/$f" ]
    check "out-links/$f missing or wrong" same_file "out-links/$f" "ref/$f"
done

# in/a/scene.png and in/scene.png both write scene.png; in/a/ sorts first,
# so in/scene.png is the later input. An output there already keeps its
# bytes, --skip-existing or not.
printf 'precious\n' >"$tmp/precious"
for skip in "" --skip-existing; do
    for jobs in 1 4; do
        for before in none precious; do
            rm -rf out-same
            mkdir out-same
            [ "$before" = precious ] && cp "$tmp/precious" out-same/scene.png
            expect 1 blur $skip -j "$jobs" -o out-same in/scene.png in/a/scene.png in/alpha.png
            case="two inputs for one output ($skip -j $jobs, output before: $before)"
            check "$case: the inputs or the file not named" has \
                '^gpuimg blur: in/scene.png: in/a/scene.png writes the same output file, out-same/scene.png$' \
                "$tmp/stderr"
            check "$case: other lines: $(grep -v 'same output' "$tmp/stderr")" \
                [ "$(wc -l <"$tmp/stderr")" -eq 1 ]
            if [ "$before" = precious ]; then
                check "$case: written: $(files out-same | tr '\n' ' ')" \
                    [ "$(files out-same)" = scene.png ]
                check "$case: the output there was changed" same_file out-same/scene.png "$tmp/precious"
            else
                check "$case: written: $(files out-same | tr '\n' ' ')" [ -z "$(files out-same)" ]
            fi
        done
    done
done
finish
