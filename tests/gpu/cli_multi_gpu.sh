#!/bin/sh
# cli_multi_gpu.sh GPUIMG SAMPLES MODE: batches over several GPUs, on a
# folder of images made from the samples (1600x1200, PNG and JPEG, 1 to 4
# channels).
#   same-bytes: `--gpus 1`, `--gpus 0,1`, `--gpus 0-3` (with four GPUs) and
#     `--gpus all` under the default device write the bytes `--gpus 0` and
#     `--device cpu` write; -v names a GPU on each image's line; so does a
#     call of the folder through a server of GPUs 0 and 1 under CUDA, and
#     under the default device GPU 1 takes images in such a call too.
#     Skips (77) with fewer than two GPUs.
#   failure: GPUIMG_TEST_FAIL_GPU=0 fails GPU 0 after its lanes' first
#     images. With two GPUs, GPU 1 takes its images: every output written,
#     the same bytes, each image reported once. With GPU 0 alone, under
#     CUDA the images left fail naming the failure (none written twice);
#     under the default device, none is lost. Skips (77) without a GPU.
#   long-batch: 1200 small images, enough for GPU 0 to get lanes added on
#     CUDA (gi__plan_gpu_lanes: 12 lanes, 8 more than the CPU's): `--gpus
#     0` under CUDA writes the CPU's bytes with 8 threads more than it;
#     with GPU 0 failing, the images left fail naming it, none written
#     twice; with two GPUs, `--gpus all` writes the same bytes. Skips (77)
#     without a GPU.
set -u
gpuimg=$1 samples=$2 mode=$3
case $gpuimg in /*) ;; *) gpuimg=$PWD/$gpuimg ;; esac
case $samples in /*) ;; *) samples=$PWD/$samples ;; esac
gpus=$("$gpuimg" info --no-bandwidth 2>/dev/null | grep -c '^cuda device [0-9]*:')
[ "$gpus" -ge 1 ] || { echo "skip: no GPU"; exit 77; }
[ "$mode" != same-bytes ] || [ "$gpus" -ge 2 ] || { echo "skip: $gpus GPU, two needed"; exit 77; }
unset GPUIMG_DEVICE GPUIMG_GPUS GPUIMG_TEST_FAIL_GPU

tmp=$(mktemp -d) || exit 1
server_pid=
trap '[ -z "$server_pid" ] || kill "$server_pid"; rm -rf "$tmp"' EXIT
passed=0 failed=0
check() {
    msg=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $msg" >&2
    fi
}

# The folder: each sample enlarged (for a long batch, made small), then
# turned six ways, alternately written as PNG and JPEG (30 images; a long
# batch has 40 copies of each).
size=1600x1200
[ "$mode" = long-batch ] && size=96x72
mkdir "$tmp/in" || exit 1
n=0
for s in scene.png scene.jpg alpha.png gray_alpha.png edge_line.png; do
    big=$tmp/big-${s%.*}.png
    "$gpuimg" resize --device cpu --size $size "$samples/$s" "$big" || exit 1
    for t in "rotate 90" "rotate 180" "rotate 270" "flip h" "flip v" "transpose"; do
        ext=png
        [ $((n % 2)) = 1 ] && ext=jpg
        # shellcheck disable=SC2086 # $t is a command and its argument
        "$gpuimg" $t --device cpu "$big" "$tmp/in/img$n.$ext" || exit 1
        n=$((n + 1))
    done
done
if [ "$mode" = long-batch ]; then
    for f in "$tmp"/in/*; do
        for k in $(seq 1 39); do cp "$f" "${f%.*}-$k.${f##*.}" || exit 1; done
    done
    n=$((n * 40))
fi

# same_outputs DIR REF: every input's output in DIR is REF's, byte for byte.
same_outputs() {
    for f in "$tmp"/in/*; do
        name=$(basename "$f")
        cmp -s "$1/$name" "$2/$name" || { echo "    $name differs" >&2; return 1; }
    done
}

# reported_once LOG: each input has exactly one line in LOG (its -v line
# or its failure).
reported_once() {
    for f in "$tmp"/in/*; do
        name=$(basename "$f")
        [ "$(grep -c -- "/${name}[ :]" "$1")" = 1 ] || { echo "    $name: not one line" >&2; return 1; }
    done
}

# blur DIR ARGS...: blur of the folder into DIR, with $fail in the
# environment when set; status in $rc, stderr in DIR.log.
fail=
blur() {
    dir=$1
    shift
    env ${fail:+"$fail"} "$gpuimg" -v blur --sigma 2 "$@" -o "$tmp/$dir" "$tmp"/in/* \
        2>"$tmp/$dir.log"
    rc=$?
}

# between N LOW HIGH: LOW <= N <= HIGH
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# fails_alone DIR: with GPU 0 failing after each lane's first image, a
# batch on it alone under CUDA into DIR exits 1, the images left failing
# with its name, none reported twice; what it wrote is --gpus 0's.
fails_alone() {
    fail=GPUIMG_TEST_FAIL_GPU=0
    blur "$1" --device cuda --gpus 0
    check "GPU 0 failing alone under CUDA: exit $rc, want 1" [ "$rc" = 1 ]
    check "GPU 0 failing alone: no image failed naming it" grep -q 'GPUIMG_TEST_FAIL_GPU=0' "$tmp/$1.log"
    check "GPU 0 failing alone: an image reported twice or never" reported_once "$tmp/$1.log"
    written=0
    for f in "$tmp/$1"/*; do
        [ -e "$f" ] || continue
        written=$((written + 1))
        cmp -s "$f" "$tmp/one/$(basename "$f")" || check "$1: $(basename "$f") differs" false
    done
    check "GPU 0 failing alone: $written written, want 1 to $((n - 1))" \
        between "$written" 1 $((n - 1))
}

blur cpu --device cpu
check "--device cpu: exit $rc" [ "$rc" = 0 ]
blur one --device cuda --gpus 0
check "--gpus 0: exit $rc" [ "$rc" = 0 ]
check "--gpus 0 differs from --device cpu" same_outputs "$tmp/one" "$tmp/cpu"

if [ "$mode" = same-bytes ]; then
    runs="1 0,1 all"
    [ "$gpus" -ge 4 ] && runs="$runs 0-3"
    for list in $runs; do
        device=cuda
        [ "$list" = all ] && device=auto
        blur "gpus-$list" --device $device --gpus "$list"
        check "--device $device --gpus $list: exit $rc" [ "$rc" = 0 ]
        check "--gpus $list differs from --gpus 0" same_outputs "$tmp/gpus-$list" "$tmp/one"
        check "--gpus $list: an image reported twice or never" reported_once "$tmp/gpus-$list.log"
    done
    check "--gpus 1: a line without 'on gpu 1'" \
        [ "$(grep -c ' -> .* on gpu 1: ' "$tmp/gpus-1.log")" = "$n" ]
    check "--gpus 0,1: a line without its GPU" \
        [ "$(grep -c ' -> .* on gpu [01]: ' "$tmp/gpus-0,1.log")" = "$n" ]
    # served DEVICE: a call of the folder through a server of GPUs 0 and 1
    # under DEVICE runs in it, over both GPUs' lanes, and writes the same
    # bytes. Under the default device GPU 1's lanes open on CUDA too: the
    # lent context's plan chose the GPU, and the other GPU does not weigh
    # itself against the CPU again.
    served() {
        sock=$tmp/socket-$1
        "$gpuimg" serve --socket "$sock" --device "$1" --gpus 0,1 2>"$tmp/server-$1.log" &
        server_pid=$!
        i=0
        while [ $i -lt 200 ] && ! GPUIMG_SERVER=$sock "$gpuimg" info --no-bandwidth 2>/dev/null |
            grep -q "^server: $sock"; do
            i=$((i + 1))
            sleep 0.05
        done
        GPUIMG_SERVER=$sock "$gpuimg" -v blur --sigma 2 --device "$1" -o "$tmp/served-$1" \
            "$tmp"/in/* 2>"$tmp/served-$1.log"
        rc=$?
        kill "$server_pid" && wait "$server_pid"
        server_pid=
        log=$tmp/served-$1.log
        check "served, $1: exit $rc" [ "$rc" = 0 ]
        check "served, $1: ran in the client's process" [ "$(grep -c 'in this process' "$log")" = 0 ]
        check "served, $1: differs from --gpus 0" same_outputs "$tmp/served-$1" "$tmp/one"
        check "served, $1: an image reported twice or never" reported_once "$log"
        check "served, $1: GPU 1 took no image" grep -q ' -> .* on gpu 1: ' "$log"
        echo "served, $1, images per GPU: $(grep -o ' on gpu [01]: ' "$log" | sort | uniq -c | tr -s ' \n' ' ')"
    }
    served cuda
    check "served, cuda: a line without a GPU of the server" \
        [ "$(grep -c ' -> .* on gpu [01]: ' "$tmp/served-cuda.log")" = "$n" ]
    served auto
elif [ "$mode" = long-batch ]; then
    # threads LOG: the thread count of the batch's -v summary
    threads() { sed -n 's/.* over \([0-9]*\) threads$/\1/p' "$1"; }
    more=$(($(threads "$tmp/one.log") - $(threads "$tmp/cpu.log")))
    check "$n images on CUDA: $more threads more than on the CPU, want 8 (lanes added)" [ "$more" = 8 ]
    check "--gpus 0: an image reported twice or never" reported_once "$tmp/one.log"
    # (small images under the default device would plan the CPU)
    fails_alone lost
    fail=
    if [ "$gpus" -ge 2 ]; then
        blur all --device cuda --gpus all
        check "--gpus all: exit $rc" [ "$rc" = 0 ]
        check "--gpus all differs from --gpus 0" same_outputs "$tmp/all" "$tmp/one"
        check "--gpus all: an image reported twice or never" reported_once "$tmp/all.log"
    fi
else
    if [ "$gpus" -ge 2 ]; then
        fail=GPUIMG_TEST_FAIL_GPU=0
        blur lost --device cuda --gpus 0,1
        check "GPU 0 failing, --gpus 0,1: exit $rc" [ "$rc" = 0 ]
        check "GPU 0 failing: an output differs or is missing" same_outputs "$tmp/lost" "$tmp/one"
        check "GPU 0 failing: an image reported twice or never" reported_once "$tmp/lost.log"
        check "GPU 0 failing: GPU 1 took no image" grep -q ' -> .* on gpu 1: ' "$tmp/lost.log"
        blur lost-auto --gpus 0,1
        check "GPU 0 failing, default device: exit $rc" [ "$rc" = 0 ]
        check "GPU 0 failing, default device: an output differs" same_outputs "$tmp/lost-auto" "$tmp/one"
        check "GPU 0 failing, default device: reported twice or never" reported_once "$tmp/lost-auto.log"
    fi
    fails_alone alone
    blur alone-auto --gpus 0
    check "GPU 0 failing alone, default device: exit $rc" [ "$rc" = 0 ]
    check "GPU 0 failing alone, default device: an output differs" \
        same_outputs "$tmp/alone-auto" "$tmp/one"
    check "GPU 0 failing alone, default device: reported twice or never" \
        reported_once "$tmp/alone-auto.log"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
