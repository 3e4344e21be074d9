#!/bin/sh
# run_case.sh GPUIMG SAMPLES OUT INPUT ARGS...
#
# Runs one golden case: `gpuimg ARGS INPUT OUT` from inside the samples
# directory, so INPUT is a bare file name (the hist header prints it).
# Shared by check.sh (the test) and regen.sh (rewriting the goldens).
set -eu
gpuimg=$1 samples=$2 out=$3 input=$4
shift 4
case $gpuimg in /*) ;; *) gpuimg=$PWD/$gpuimg ;; esac
case $out in /*) ;; *) out=$PWD/$out ;; esac
cd "$samples"
exec "$gpuimg" "$@" "$input" "$out"
