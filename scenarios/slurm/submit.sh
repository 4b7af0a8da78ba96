#!/usr/bin/env bash
# Submits a sharded ckptsim run to Slurm: a job array of SHARDS tasks (array.sbatch), then
# the merge (merge.sbatch), which starts only once every task has succeeded.
#
#   scenarios/slurm/submit.sh SCENARIO REPS SHARDS OUT [RUN OPTION...]
#
# RUN OPTION: further `ckptsim run` options for every shard (`--seed 7`,
# `--set job.checkpoint=300s`, `--save-every 120`). Environment:
#   CKPTSIM              the binary (default: `ckptsim` on PATH, else target/release/ckptsim
#                        here); exported to the jobs as an absolute path
#   CKPTSIM_ARRAY_OPTS   extra sbatch options for the array, split at blanks
#                        ("--cpus-per-task=8 --time=12:00:00 --partition=long")
#   CKPTSIM_MERGE_OPTS   extra sbatch options for the merge job
#   CKPTSIM_MAX_RUNNING  run at most this many tasks at once (--array=0-N%K)
#   SBATCH_ACCOUNT, SBATCH_PARTITION, ...: sbatch's own variables, for both jobs
# Logs go to OUT/logs/. On stdout, last: `array_job_id=ID` and `merge_job_id=ID`.
set -euo pipefail

say() { printf 'submit: %s\n' "$*"; }
die() {
    printf 'submit: error: %s\n' "$*" >&2
    exit 2
}
is_count() { [[ $1 =~ ^[0-9]+$ ]]; }
# at_least VALUE MIN: VALUE is a decimal integer ≥ MIN (leading zeros are not octal).
at_least() { is_count "$1" && ((10#$1 >= $2)); }

if (($# < 4)); then
    die "usage: $0 SCENARIO REPS SHARDS OUT [RUN OPTION...]"
fi
scenario=$1
reps=$2
shards=$3
out=$4
shift 4
extra=("$@")

here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
[[ -r $scenario && -f $scenario ]] || die "scenario $scenario is not a readable file"
at_least "$reps" 2 || die "REPS $reps: accepted is an integer ≥ 2"
at_least "$shards" 1 || die "SHARDS $shards: accepted is an integer ≥ 1"
reps=$((10#$reps))
shards=$((10#$shards))
((shards <= reps)) || die "SHARDS $shards is more than REPS $reps: some shards would be empty"
command -v sbatch >/dev/null || die "sbatch is not on PATH: run this on a Slurm login node"

# Absolute paths, so the jobs find everything whatever their working folder.
scenario=$(cd -- "$(dirname -- "$scenario")" && pwd)/$(basename -- "$scenario")
mkdir -p -- "$out/logs"
out=$(cd -- "$out" && pwd)

# The binary, checked here so that a typo fails now rather than in every task.
if [[ -n ${CKPTSIM:-} ]]; then
    bin=$CKPTSIM
elif bin=$(command -v ckptsim); then
    :
else
    bin=$PWD/target/release/ckptsim
fi
if [[ -x $bin ]]; then
    bin=$(cd -- "$(dirname -- "$bin")" && pwd)/$(basename -- "$bin")
    export CKPTSIM=$bin
    # Validates the scenario and the options at no cost: this shard owns no replication.
    probe=$(mktemp -d "${TMPDIR:-/tmp}/ckptsim-submit.XXXXXX")
    trap 'rm -rf -- "$probe"' EXIT
    "$bin" run "$scenario" --reps "$reps" --shard "$reps/$((reps + 1))" --out "$probe" --threads 1 \
        ${extra[@]+"${extra[@]}"} >/dev/null || die "ckptsim rejects the scenario or the run options (its error is above)"
else
    say "warning: no ckptsim binary here (CKPTSIM, PATH, $PWD/target/release/ckptsim); the jobs look for their own"
fi

read -r -a array_opts <<<"${CKPTSIM_ARRAY_OPTS:-}"
read -r -a merge_opts <<<"${CKPTSIM_MERGE_OPTS:-}"
range=0-$((shards - 1))
if [[ -n ${CKPTSIM_MAX_RUNNING:-} ]]; then
    at_least "$CKPTSIM_MAX_RUNNING" 1 || die "CKPTSIM_MAX_RUNNING: accepted is an integer ≥ 1"
    range+=%$CKPTSIM_MAX_RUNNING
fi

# --parsable prints "ID" or "ID;CLUSTER".
array_job=$(sbatch --parsable --array="$range" --output="$out/logs/%x-%A_%a.out" \
    ${array_opts[@]+"${array_opts[@]}"} "$here/array.sbatch" "$scenario" "$reps" "$out" ${extra[@]+"${extra[@]}"})
array_job=${array_job%%;*}
is_count "$array_job" || die "could not read the array's job id from sbatch: '$array_job'"
merge_job=$(sbatch --parsable --dependency="afterok:$array_job" --kill-on-invalid-dep=yes \
    --output="$out/logs/%x-%j.out" ${merge_opts[@]+"${merge_opts[@]}"} \
    "$here/merge.sbatch" "$scenario" "$shards" "$out" ${extra[@]+"${extra[@]}"})
merge_job=${merge_job%%;*}
is_count "$merge_job" || die "could not read the merge's job id from sbatch: '$merge_job'"

say "array job $array_job: $shards shards of $scenario, $reps replications, into $out"
say "merge job $merge_job: starts when every task of $array_job has succeeded"
say "watch:   squeue -j $array_job,$merge_job   (sacct -j $array_job where accounting is on)"
say "logs:    $out/logs/"
say "result:  $out/<name>.csv and $out/<name>.json"
echo "array_job_id=$array_job"
echo "merge_job_id=$merge_job"
