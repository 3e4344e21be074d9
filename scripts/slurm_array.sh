#!/bin/sh
# A Slurm array job: each task runs one gpuimg process over its shard of the
# inputs, on one GPU, resuming where an earlier run of the task stopped.
#
#   sbatch --array=0-7 scripts/slurm_array.sh INPUT_DIR OUTPUT_DIR [gpuimg options...]
#   e.g. sbatch --array=0-7 scripts/slurm_array.sh photos/ blurred/ blur --sigma 2
#
# Every task lists the same inputs (gpuimg sorts them) and keeps the ones at
# positions K, K+N, ... (K = task id, N = task count), so the tasks cover the
# folder exactly once. --skip-existing plus atomic outputs make a re-run
# task fill in only what is missing. Each task writes
# OUTPUT_DIR/.summaries/task-K.json; scripts/merge_summaries.sh adds them up.
# On nodes without GPUs (the CPU backend), override the GPU request:
#   sbatch --array=0-7 --gres=none scripts/slurm_array.sh ...
# Any array range and step works (--array=1-8, --array=0-14:2): the shard is
# the task's position in the array.
#SBATCH --job-name=gpuimg
#SBATCH --gres=gpu:1
#SBATCH --output=gpuimg-%A_%a.log
set -eu
[ $# -ge 3 ] || { echo "usage: sbatch --array=0-N $0 INPUT_DIR OUTPUT_DIR COMMAND [options]" >&2; exit 2; }
in=$1 out=$2
shift 2
gpuimg=${GPUIMG:-gpuimg}
id=${SLURM_ARRAY_TASK_ID:?not in a Slurm array job}
tasks=${SLURM_ARRAY_TASK_COUNT:?not in a Slurm array job}
task=$(( (id - ${SLURM_ARRAY_TASK_MIN:-0}) / ${SLURM_ARRAY_TASK_STEP:-1} ))
mkdir -p "$out/.summaries"
exec "$gpuimg" "$@" -q -r --skip-existing --shard "$task/$tasks" \
    --summary-json "$out/.summaries/task-$task.json" -o "$out" "$in"
