#!/bin/sh
# slurm_local.sh GPUIMG IMGCMP NOISE_PNG SOURCE_ROOT PHOTOS
#
# scripts/slurm_array.sh on a real, one-node Slurm cluster started here on
# localhost (Debian packages slurmctld, slurmd, slurm-client and munge):
# sbatch --array=0-3 --wait over copies of the four photos writes what one
# unsharded gpuimg run writes, byte for byte, and merge_summaries.sh counts
# 4 ok; after one output is deleted, a second array run writes only that
# one (1 ok, 3 skipped). scripts/slurm_nodes.sh (one task a node, here
# one node) writes the same bytes, its summary counting 4 ok. The cluster is private to the test: its own munge
# key and socket, slurm.conf (through SLURM_CONF), ports, state and logs in
# the temporary directory; the daemons are stopped on exit. Skips (77)
# without the photos, the programs, or when the daemons cannot start.
. "$(dirname "$0")/common.sh"
photos=$1
for f in calla.png firstgeneration.jpg the-mouse.jpg warty-final-ubuntu.png; do
    [ -r "$photos/$f" ] || skip "no $photos/$f"
done
PATH=$PATH:/usr/sbin:/sbin # the daemons, for users without sbin in PATH
for p in munged slurmctld slurmd sbatch srun sinfo squeue scancel; do
    command -v "$p" >/dev/null ||
        skip "no $p: install the Debian packages slurmctld slurmd slurm-client munge"
done

# Nothing from a surrounding Slurm job or the caller's sbatch defaults.
for v in $(env | sed -n 's/^\(S[LB][A-Z]*_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
export SLURM_CONF="$tmp/slurm.conf"

pids=
at_exit() {
    [ -n "$pids" ] || return 0
    scancel --quiet --user "$(id -un)" 2>/dev/null
    # shellcheck disable=SC2086
    kill $pids 2>/dev/null
    wait
}

# why_not_started WHAT: the skip, with the ends of the daemons' logs.
why_not_started() {
    for log in "$tmp"/log/*.log; do
        echo "== $log"
        tail -n 8 "$log"
    done
    skip "$1"
}

# ---- munge: a fresh key and a socket of our own. munged wants the socket's
# directory searchable by all, and the key private.
chmod 711 "$tmp"
mkdir -m 700 "$tmp/munge"
mkdir -m 755 "$tmp/run"
mkdir "$tmp/log" "$tmp/state" "$tmp/spool"
socket=$tmp/run/munge.socket
if command -v mungekey >/dev/null; then
    mungekey --create --keyfile="$tmp/munge/munge.key"
else
    (umask 077 && dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 2>/dev/null)
fi
munged -F --socket="$socket" --key-file="$tmp/munge/munge.key" \
    --log-file="$tmp/log/munged.log" --pid-file="$tmp/munge/munged.pid" \
    --seed-file="$tmp/munge/munged.seed" 2>>"$tmp/log/munged.log" &
pids="$pids $!"

# ---- slurm: one node with two CPUs, no cgroups, no accounting.
host=$(uname -n | sed 's/\..*//')
user=$(id -un)
port=$((20000 + $$ % 20000 * 2))
cat >"$SLURM_CONF" <<EOF
ClusterName=gpuimgtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
wait_until 20 [ -S "$socket" ] || why_not_started "munged did not start"
slurmctld -D -f "$SLURM_CONF" 2>>"$tmp/log/slurmctld.log" &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" 2>>"$tmp/log/slurmd.log" &
pids="$pids $!"
node_idle() { sinfo -h -o %T 2>/dev/null | grep -q '^idle'; }
wait_until 60 node_idle || why_not_started "the node did not come up idle: $(sinfo 2>&1)"

# ---- the array job, twice
cd "$tmp" || exit 1
mkdir in
cp "$photos/calla.png" "$photos/firstgeneration.jpg" "$photos/the-mouse.jpg" \
    "$photos/warty-final-ubuntu.png" in/
gi blur --device cpu --sigma 2 -r -o full in
check "the unsharded run: exit $rc" [ "$rc" -eq 0 ]
# sbatch --wait has no time limit: a job that can never run (one asking for
# more CPUs than the node has) would keep it pending until meson's timeout.
watchdog=
command -v timeout >/dev/null && watchdog="timeout 240"

# run_array LABEL: sbatch --array=0-3 --wait; the header asks for a GPU,
# which a node without GPUs has not: the command line overrides it (and
# asks for one CPU a task, so that four tasks fit two CPUs in turn).
run_array() {
    GPUIMG=$gpuimg $watchdog sbatch --array=0-3 --wait --gres=none --cpus-per-task=1 \
        --output="$tmp/log/$1-%a.log" "$scripts/slurm_array.sh" in out \
        blur --device cpu --sigma 2 >"$tmp/stdout" 2>"$tmp/stderr"
    rc=$?
    [ "$rc" -eq 0 ] || { squeue; cat "$tmp/log/$1"-*.log; } >&2
    check "$1: sbatch --wait: exit $rc" [ "$rc" -eq 0 ]
    sh "$scripts/merge_summaries.sh" out/.summaries/*.json >merged 2>&1
    merge_rc=$?
    check "$1: merge_summaries.sh: exit $merge_rc" [ "$merge_rc" -eq 0 ]
}

run_array first
files out | grep -v '^\.summaries/' >images
check "the array wrote $(tr '\n' ' ' <images), want what one run writes" \
    [ "$(cat images)" = "$(files full)" ]
for f in $(cat images); do check "$f differs from the unsharded run's" same_file "out/$f" "full/$f"; done
check "want 4 task summaries, got $(files out/.summaries | tr '\n' ' ')" \
    [ "$(files out/.summaries | wc -l)" -eq 4 ]
want="4 files, ok 4, failed 0, skipped 0, not_started 0"
check "merge_summaries.sh: '$(head -n 1 merged)', want '$want'" [ "$(head -n 1 merged)" = "$want" ]

rm out/the-mouse.jpg
run_array again
check "again: the-mouse.jpg differs from the unsharded run's" \
    same_file out/the-mouse.jpg full/the-mouse.jpg
want="4 files, ok 1, failed 0, skipped 3, not_started 0"
check "again: merge_summaries.sh: '$(head -n 1 merged)', want '$want'" \
    [ "$(head -n 1 merged)" = "$want" ]

# ---- whole nodes: one task a node over its shard, with all its GPUs (none here)
GPUIMG=$gpuimg $watchdog sbatch -N 1 --wait --gres=none --cpus-per-task=2 \
    --output="$tmp/log/nodes.log" "$scripts/slurm_nodes.sh" in nodes \
    blur --device cpu --sigma 2 >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 0 ] || { squeue; cat "$tmp/log/nodes.log"; } >&2
check "slurm_nodes.sh: sbatch --wait: exit $rc" [ "$rc" -eq 0 ]
files nodes | grep -v '^\.summaries/' >images
check "slurm_nodes.sh wrote $(tr '\n' ' ' <images), want what one run writes" \
    [ "$(cat images)" = "$(files full)" ]
for f in $(cat images); do check "nodes: $f differs from the unsharded run's" same_file "nodes/$f" "full/$f"; done
sh "$scripts/merge_summaries.sh" nodes/.summaries/*.json >merged 2>&1
want="4 files, ok 4, failed 0, skipped 0, not_started 0"
check "slurm_nodes.sh: merge_summaries.sh: '$(head -n 1 merged)', want '$want'" \
    [ "$(head -n 1 merged)" = "$want" ]
finish
