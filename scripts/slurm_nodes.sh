#!/bin/sh
# A Slurm job over whole nodes: one gpuimg process a node, which spreads its
# share of the inputs over every GPU of the node (and its cores), resuming
# where an earlier run of the job stopped.
#
#   sbatch -N NODES --exclusive --gres=gpu:GPUS_PER_NODE \
#       scripts/slurm_nodes.sh INPUT_DIR OUTPUT_DIR [gpuimg options...]
#   e.g. sbatch -N 4 --exclusive --gres=gpu:8 scripts/slurm_nodes.sh photos/ blurred/ blur --sigma 2
#
# The job's script runs `srun --ntasks-per-node=1`: task K of N (SLURM_PROCID
# of SLURM_NTASKS, one a node) lists the same inputs as the others (gpuimg
# sorts them) and keeps those at positions K, K+N, ..., so the nodes cover
# the folder exactly once; within a node the batch uses every GPU Slurm
# gives it (CUDA_VISIBLE_DEVICES) and every core. --skip-existing plus
# atomic outputs make a re-run fill in only what is missing. Each task
# writes OUTPUT_DIR/.summaries/node-K.json; scripts/merge_summaries.sh adds
# them up. On nodes without GPUs, leave out --gres.
#SBATCH --job-name=gpuimg-nodes
#SBATCH --ntasks-per-node=1
#SBATCH --output=gpuimg-%j.log
set -eu
[ $# -ge 3 ] || { echo "usage: sbatch -N NODES $0 INPUT_DIR OUTPUT_DIR COMMAND [options]" >&2; exit 2; }
in=$1 out=$2
shift 2
gpuimg=${GPUIMG:-gpuimg}
: "${SLURM_JOB_ID:?not in a Slurm job}"
mkdir -p "$out/.summaries"
# shellcheck disable=SC2016 # the task's shell expands its own SLURM_PROCID
exec srun --ntasks-per-node=1 sh -c 'in=$1 out=$2 gpuimg=$3
    shift 3
    exec "$gpuimg" "$@" -q -r --skip-existing --shard "$SLURM_PROCID/$SLURM_NTASKS" \
        --summary-json "$out/.summaries/node-$SLURM_PROCID.json" -o "$out" "$in"' \
    sh "$in" "$out" "$gpuimg" "$@"
