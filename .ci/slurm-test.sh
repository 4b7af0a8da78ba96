#!/usr/bin/env bash
# Tests scenarios/slurm/ (array.sbatch, merge.sbatch, submit.sh) against a real single-node
# Slurm on this machine: Debian's slurm-wlm and munge (installed if missing), configured in a
# scratch folder, daemons started here and stopped on exit.
#
#  1. submit.sh young-daly.toml 700 replications in 4 shards; the merged CSV and JSON must be
#     byte-identical to `ckptsim run scenarios/young-daly.toml --reps 700`.
#  2. 2,000,000 replications in 2 shards, saving every second; once both tasks have saved,
#     task 0 gets Slurm's time-limit warning (SIGUSR1 to the batch shell, as
#     `--signal=B:USR1@180` sends it) and requeues itself, task 1 is requeued by
#     `scontrol requeue` (what preemption does); both resume, and the merged files must be
#     byte-identical to one uninterrupted run.
#  3. A task that fails (a wrapper binary fails shard 1) cancels the merge job; rerunning
#     that shard alone and merging gives the bytes of test 1.
#
# If a real Slurm cannot run here (no apt, a daemon that does not start, a node that never
# comes up), the script says why, with the daemon's own error, and tests the same scripts
# without Slurm: an emulated sbatch on PATH runs array tasks one after another and honours
# --dependency=afterok, and the interruptions are sent to array.sbatch directly. It then
# exits 0. CKPTSIM_SLURM_TEST_FAKE=1 asks for the emulation outright.
#
# Environment: CKPTSIM (the binary; default: cargo build --release, then
# ${CARGO_TARGET_DIR:-target}/release/ckptsim), CKPTSIM_SLURM_TEST_DIR (scratch folder,
# default ${TMPDIR:-/tmp}/ckptsim-slurm-test; laid anew on every run, removed after a pass
# unless CKPTSIM_SLURM_TEST_KEEP=1, kept with every log after a failure).
# Idempotent: a second run stops what a killed first run left (by the pids it recorded).
set -euo pipefail

repo=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
work=${CKPTSIM_SLURM_TEST_DIR:-${TMPDIR:-/tmp}/ckptsim-slurm-test}
scenario=$repo/scenarios/young-daly.toml
slurm_dir=$repo/scenarios/slurm
small_reps=700
small_shards=4
big_reps=2000000
big_shards=2
wait_limit=240 # seconds for any one wait
t0=$SECONDS

log() { printf 'slurm-test: [%3d s] %s\n' $((SECONDS - t0)) "$*"; }
fail() {
    printf 'slurm-test: FAIL: %s\n' "$*" >&2
    exit 1
}

# ---------------------------------------------------------------------------------------
# Daemons: started by this script, recorded in $work/pids, stopped on exit.

# Stops the processes recorded in a pid folder, if they are still the daemons we started
# (their command line names the scratch folder).
stop_recorded() {
    local dir=$1 f pid i
    [[ -d $dir ]] || return 0
    for f in "$dir"/slurmd "$dir"/slurmctld "$dir"/munged; do
        [[ -f $f ]] || continue
        pid=$(<"$f")
        if [[ $pid =~ ^[0-9]+$ ]] && [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$work"; then
            kill -TERM "$pid" 2>/dev/null || true
            for ((i = 0; i < 100; i++)); do
                kill -0 "$pid" 2>/dev/null || break
                sleep 0.1
            done
            kill -KILL "$pid" 2>/dev/null || true
        fi
        rm -f -- "$f"
    done
}

# While our slurmctld runs, cancels every job it knows (only this test's) and waits for them
# to end, so that no job step outlives slurmd.
cancel_jobs() {
    local pid jobs i
    [[ -f $work/pids/slurmctld && -f $work/slurm.conf ]] || return 0
    pid=$(<"$work/pids/slurmctld")
    [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 0
    jobs=$(SLURM_CONF=$work/slurm.conf squeue -h -o %A 2>/dev/null | sort -u) || true
    [[ -n $jobs ]] || return 0
    # shellcheck disable=SC2086 # one id a word
    SLURM_CONF=$work/slurm.conf scancel $jobs 2>/dev/null || true
    for ((i = 0; i < 30; i++)); do
        [[ -z $(SLURM_CONF=$work/slurm.conf squeue -h -o %A 2>/dev/null) ]] && break
        sleep 1
    done
}

slurm_up=0
cleanup() {
    local status=$?
    set +e
    if ((status != 0)); then dump_logs; fi
    cancel_jobs
    stop_recorded "$work/pids"
    # Emulated-mode tasks started in the background.
    for pid in "${bg_pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
    if ((status == 0)); then
        [[ ${CKPTSIM_SLURM_TEST_KEEP:-0} == 1 ]] || rm -rf -- "$work"
        log "daemons stopped; took $((SECONDS - t0)) s"
    else
        log "daemons stopped; failed after $((SECONDS - t0)) s"
    fi
    exit "$status"
}
bg_pids=()

dump_logs() {
    local f
    echo "slurm-test: ---- logs ----" >&2
    for f in "$work"/log/*.log "$work"/log/*.stderr "$work"/out-*/logs/*.out "$work"/emul/*.out; do
        [[ -s $f ]] || continue
        echo "==== $f (last 60 lines)" >&2
        tail -n 60 -- "$f" >&2
    done
    if ((slurm_up)); then
        echo "==== squeue" >&2
        squeue -r -o '%i %T %r %M' >&2 2>&1
        echo "==== sinfo" >&2
        sinfo -N -l >&2 2>&1
    fi
}

# A TCP port on 127.0.0.1 that nothing listens on, from $1 upwards, other than $2.
free_port() {
    local p
    for ((p = $1; p < $1 + 500; p++)); do
        [[ $p == "${2:-}" ]] && continue
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

# wait_for WHAT LIMIT PID COMMAND...: until COMMAND succeeds, at most LIMIT seconds; fails
# at once if the daemon PID (- for none) has exited, setting $why either way.
wait_for() {
    local what=$1 limit=$2 pid=$3 i
    shift 3
    for ((i = 0; i < limit * 2; i++)); do
        if "$@" >/dev/null 2>&1; then return 0; fi
        if [[ $pid != - ]] && ! kill -0 "$pid" 2>/dev/null; then
            why="$what: the daemon exited"
            return 1
        fi
        sleep 0.5
    done
    why="$what: not after $limit s"
    return 1
}

# The first error lines of daemon logs (the mpi/pmix plugin's complaints are harmless).
errors_in() {
    cat -- "$@" 2>/dev/null | grep -i -E 'error|fatal' | grep -v -i -E 'pmix|state file|Trying backup state' | head -n 4 | tr '\n' ' '
}

# Sets up and starts munged, slurmctld and slurmd; on failure sets $why and returns 1.
why=
start_slurm() {
    local node cpus ctld_port d_port
    if [[ ${CKPTSIM_SLURM_TEST_FAKE:-0} == 1 ]]; then
        why="CKPTSIM_SLURM_TEST_FAKE=1 asks for the emulation"
        return 1
    fi
    if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
        if ((EUID != 0)) || ! command -v apt-get >/dev/null; then
            why="slurm-wlm and munge are not installed, and apt-get as root is not available to install them"
            return 1
        fi
        log "installing slurm-wlm and munge (apt-get; log in $work/log/apt.log)"
        export DEBIAN_FRONTEND=noninteractive
        if ! apt-get install -y slurm-wlm munge >>"$work/log/apt.log" 2>&1; then
            apt-get update >>"$work/log/apt.log" 2>&1 || true
            if ! apt-get install -y slurm-wlm munge >>"$work/log/apt.log" 2>&1; then
                why="apt-get install -y slurm-wlm munge failed: $(tail -n 3 "$work/log/apt.log" | tr '\n' ' ')"
                return 1
            fi
        fi
    fi
    log "$(slurmctld -V 2>&1), munge $(munged -V 2>&1 | head -n 1)"

    # munge: our own key, socket and daemon, beside any system one.
    mkdir -p "$work/munge" "$work/run" "$work/spool/ctld" "$work/spool/d"
    chmod 0700 "$work/munge" "$work/spool"
    if ! mungekey --create --keyfile="$work/munge/munge.key" --force >>"$work/log/munged.stderr" 2>&1; then
        dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
    fi
    chmod 0400 "$work/munge/munge.key"
    munged -F --key-file="$work/munge/munge.key" --socket="$work/run/munge.socket" \
        --pid-file="$work/run/munged.pid" --log-file="$work/log/munged.log" \
        --seed-file="$work/munge/seed" >>"$work/log/munged.stderr" 2>&1 9>&- &
    echo $! >"$work/pids/munged"
    # shellcheck disable=SC2016 # expanded by the inner shell
    if ! wait_for "munged" 20 $! bash -c 'munge --socket="$1" -n | unmunge --socket="$1"' _ "$work/run/munge.socket"; then
        why="munged does not answer ($why): $(errors_in "$work/log/munged.log" "$work/log/munged.stderr")"
        return 1
    fi

    node=$(hostname -s 2>/dev/null || uname -n)
    node=${node%%.*}
    cpus=$(nproc)
    ctld_port=$(free_port 16817) || {
        why="no free TCP port for slurmctld"
        return 1
    }
    d_port=$(free_port $((ctld_port + 1)) "$ctld_port") || {
        why="no free TCP port for slurmd"
        return 1
    }
    cat >"$work/slurm.conf" <<EOF
# Written by .ci/slurm-test.sh: one node, this machine, no cgroups, no accounting.
ClusterName=ckptsimtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/run/munge.socket
StateSaveLocation=$work/spool/ctld
SlurmdSpoolDir=$work/spool/d
SlurmctldPidFile=$work/run/slurmctld.pid
SlurmdPidFile=$work/run/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
ReturnToService=2
JobRequeue=1
KillWait=10
MinJobAge=30
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
    export SLURM_CONF=$work/slurm.conf

    slurmctld -D -f "$SLURM_CONF" >>"$work/log/slurmctld.stderr" 2>&1 9>&- &
    echo $! >"$work/pids/slurmctld"
    slurm_up=1
    if ! wait_for "slurmctld" 30 $! bash -c 'scontrol ping | grep -q UP'; then
        why="slurmctld does not come up ($why): $(errors_in "$work/log/slurmctld.log" "$work/log/slurmctld.stderr")"
        return 1
    fi
    slurmd -D -f "$SLURM_CONF" -N "$node" >>"$work/log/slurmd.stderr" 2>&1 9>&- &
    echo $! >"$work/pids/slurmd"
    # shellcheck disable=SC2016 # expanded by the inner shell
    if ! wait_for "node $node idle" 60 $! bash -c '[[ $(sinfo -h -N -n "$1" -o %T) == idle ]]' _ "$node"; then
        why="node $node never becomes idle ($why; sinfo: $(sinfo -h -N -n "$node" -o '%T %E' 2>&1)); slurmd: $(errors_in "$work/log/slurmd.log" "$work/log/slurmd.stderr")"
        return 1
    fi
    # A trivial job, to be sure steps really launch here.
    local smoke
    if ! smoke=$(cd "$work" && sbatch --parsable --output="$work/log/smoke.log" --wrap 'echo smoke-ok' 2>&1); then
        why="sbatch of a trivial job fails: $smoke"
        return 1
    fi
    if ! wait_for "a trivial job" 60 - grep -q smoke-ok "$work/log/smoke.log"; then
        why="a trivial job never ran: $(scontrol show job "${smoke%%;*}" 2>&1 | grep -m 1 -o 'JobState=[^ ]* Reason=[^ ]*'); slurmd: $(errors_in "$work/log/slurmd.log" "$work/log/slurmd.stderr")"
        return 1
    fi
    return 0
}

# ---------------------------------------------------------------------------------------
# The emulation used when no real Slurm can run: sbatch, squeue, scancel, scontrol stubs.

make_emulation() {
    local bin=$work/emul/bin
    mkdir -p "$bin" "$work/emul/state"
    export FAKE_SLURM_STATE=$work/emul/state
    cat >"$bin/sbatch" <<'STUB'
#!/usr/bin/env bash
# Emulated sbatch: reads the script's #SBATCH lines, then the command line (which wins);
# runs the job at once, array tasks one after another, on a copy of the script (as Slurm
# does); honours --dependency=afterok:ID[:ID...] (with --kill-on-invalid-dep=yes a job whose
# dependency failed is cancelled, never run) and reruns a task that asked `scontrol requeue`.
set -euo pipefail
state=${FAKE_SLURM_STATE:?}
parsable=0 array='' dependency='' output='' name='' kill_invalid=0 cpus='' mode=truncate
opt() {
    case $1 in
    --parsable) parsable=1 ;;
    --array=*) array=${1#*=} ;;
    --dependency=*) dependency=${1#*=} ;;
    --output=*) output=${1#*=} ;;
    --job-name=*) name=${1#*=} ;;
    --kill-on-invalid-dep=yes) kill_invalid=1 ;;
    --kill-on-invalid-dep=no) kill_invalid=0 ;;
    --cpus-per-task=*) cpus=${1#*=} ;;
    --open-mode=*) mode=${1#*=} ;;
    --requeue | --no-requeue | --signal=* | --time=* | --partition=* | --account=* | --mem=* | --qos=* | --export=*) ;;
    *)
        echo "sbatch (emulated): unsupported option '$1'" >&2
        exit 1
        ;;
    esac
}
cli=()
while (($#)) && [[ $1 == -* ]]; do
    cli+=("$1")
    shift
done
(($#)) || { echo "sbatch (emulated): no batch script" >&2; exit 1; }
script=$1
shift
[[ -r $script ]] || { echo "sbatch: error: Unable to open file $script" >&2; exit 1; }
# #SBATCH lines count up to the first line that is neither blank nor a comment.
while IFS= read -r line; do
    if [[ $line =~ ^#SBATCH[[:space:]]+([^[:space:]]+) ]]; then
        opt "${BASH_REMATCH[1]}"
    elif [[ -n ${line//[[:space:]]/} && $line != \#* ]]; then
        break
    fi
done <"$script"
for o in ${cli[@]+"${cli[@]}"}; do opt "$o"; done

next_id() {
    local n
    n=$(cat "$state/next_id" 2>/dev/null || echo 100)
    echo $((n + 1)) >"$state/next_id"
    echo "$n"
}
id=$(next_id)
name=${name:-$(basename -- "$script")}
say_id() { if ((parsable)); then echo "$id"; else echo "Submitted batch job $id"; fi; }

if [[ -n $dependency ]]; then
    [[ $dependency =~ ^afterok(:[0-9]+)+$ ]] || { echo "sbatch (emulated): unsupported dependency '$dependency'" >&2; exit 1; }
    IFS=: read -r -a deps <<<"${dependency#afterok:}"
    for d in "${deps[@]}"; do
        [[ -f $state/job-$d ]] || { echo "sbatch: error: Job dependency problem (no job $d)" >&2; exit 1; }
        if [[ $(<"$state/job-$d") != COMPLETED ]]; then
            if ((kill_invalid)); then
                echo CANCELLED >"$state/job-$id"
                echo "$id: dependency on $d never satisfied: cancelled" >>"$state/events"
                say_id
                exit 0
            fi
            echo "sbatch (emulated): job $d did not complete: $id would pend forever" >&2
            exit 1
        fi
    done
    echo "$id: dependency afterok:${dependency#afterok:} satisfied" >>"$state/events"
fi

tasks=()
if [[ -n $array ]]; then
    array=${array%%\%*}
    IFS=, read -r -a parts <<<"$array"
    for p in "${parts[@]}"; do
        if [[ $p =~ ^([0-9]+)-([0-9]+)$ ]]; then
            for ((t = BASH_REMATCH[1]; t <= BASH_REMATCH[2]; t++)); do tasks+=("$t"); done
        elif [[ $p =~ ^[0-9]+$ ]]; then
            tasks+=("$p")
        else
            echo "sbatch (emulated): unsupported --array '$array'" >&2
            exit 1
        fi
    done
fi
copy=$state/script-$id
cp -- "$script" "$copy"
chmod +x "$copy"

# run_one TASK JOBID: runs the script once per request until it no longer asks for a requeue.
run_one() {
    local task=$1 jid=$2 restarts=0 out rc
    shift 2
    out=${output:-$([[ -n $array ]] && echo 'slurm-%A_%a.out' || echo 'slurm-%j.out')}
    out=${out//%A/$id}
    out=${out//%a/$task}
    out=${out//%j/$jid}
    out=${out//%x/$name}
    [[ $mode == append ]] || : >"$out"
    while :; do
        rc=0
        env SLURM_JOB_ID="$jid" SLURM_JOB_NAME="$name" SLURM_SUBMIT_DIR="$PWD" \
            ${cpus:+SLURM_CPUS_PER_TASK=$cpus} \
            ${array:+SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$task SLURM_ARRAY_TASK_COUNT=${#tasks[@]} SLURM_ARRAY_TASK_MIN=${tasks[0]} SLURM_ARRAY_TASK_MAX=${tasks[-1]}} \
            SLURM_RESTART_COUNT="$restarts" "$copy" "$@" >>"$out" 2>&1 || rc=$?
        echo "$jid${array:+ (${id}_$task)}: exit $rc" >>"$state/events"
        if [[ -f $state/requeue-$jid ]]; then
            rm -f -- "$state/requeue-$jid"
            restarts=$((restarts + 1))
            continue
        fi
        return "$rc"
    done
}
status=COMPLETED
if [[ -n $array ]]; then
    first=1
    for t in "${tasks[@]}"; do
        if ((first)); then jid=$id; first=0; else jid=$(next_id); fi
        run_one "$t" "$jid" "$@" || status=FAILED
    done
else
    run_one 0 "$id" "$@" || status=FAILED
fi
echo "$status" >"$state/job-$id"
say_id
STUB
    cat >"$bin/scontrol" <<'STUB'
#!/usr/bin/env bash
# Emulated scontrol: `requeue ID` marks the job so that sbatch (emulated) runs it again.
state=${FAKE_SLURM_STATE:?}
echo "scontrol $*" >>"$state/events"
if [[ ${1:-} == requeue && ${2:-} =~ ^[0-9]+$ ]]; then touch "$state/requeue-$2"; fi
exit 0
STUB
    printf '#!/usr/bin/env bash\n# Emulated squeue: jobs run at submission, so the queue is always empty.\nexit 0\n' >"$bin/squeue"
    printf '#!/usr/bin/env bash\n# Emulated scancel: nothing is ever queued.\nexit 0\n' >"$bin/scancel"
    chmod +x "$bin"/*
    export PATH=$bin:$PATH
}

# ---------------------------------------------------------------------------------------
# The tests.

# submit OUT REPS SHARDS [RUN OPTION...]: runs submit.sh from $work; sets array_job, merge_job.
submit() {
    local out=$1 reps=$2 shards=$3 text
    shift 3
    text=$(cd "$work" && bash "$slurm_dir/submit.sh" "$scenario" "$reps" "$shards" "$out" "$@") || fail "submit.sh failed: $text"
    printf '%s\n' "$text" | sed 's/^/  | /'
    array_job=$(sed -n 's/^array_job_id=//p' <<<"$text")
    merge_job=$(sed -n 's/^merge_job_id=//p' <<<"$text")
    [[ $array_job =~ ^[0-9]+$ && $merge_job =~ ^[0-9]+$ ]] || fail "submit.sh printed no job ids"
}

# True while Slurm still knows the job as pending or running (squeue forgets it MinJobAge
# after it ends, and then errors: gone too).
in_queue() { [[ -n $(squeue -h -r -j "$1" -o %i 2>/dev/null) ]]; }

# Pending tasks of a job that Slurm holds back after a requeue (Reason=BeginTime, two
# minutes in Slurm 22.05) are released at once.
release_requeued() {
    local id
    for id in $(squeue -h -r -j "$1" -t PD -o '%i %r' 2>/dev/null | awk '$2 == "BeginTime" {print $1}'); do
        scontrol update JobId="$id" StartTime=now >/dev/null 2>&1 && log "released requeued task $id (Slurm holds requeued jobs back 2 min)"
    done
}

# wait_gone JOB...: until Slurm no longer has the jobs pending or running.
wait_gone() {
    local i j queued
    for ((i = 0; i < wait_limit; i++)); do
        queued=0
        for j in "$@"; do
            release_requeued "$j"
            if in_queue "$j"; then queued=1; fi
        done
        ((queued)) || return 0
        sleep 1
    done
    fail "jobs $* still queued after $wait_limit s"
}

# wait_merge OUT NAME: until the array and the merge have left the queue; then the merged
# files must exist.
wait_merge() {
    local out=$1 name=$2
    wait_gone "$array_job" "$merge_job"
    [[ -s $out/$name.csv && -s $out/$name.json ]] || fail "the merge job $merge_job ended without writing $out/$name.csv and .json"
}

same() {
    local a=$1 b=$2 what=$3
    cmp -- "$a/young-daly.csv" "$b/young-daly.csv" || fail "$what: merged CSV differs from the direct run"
    cmp -- "$a/young-daly.json" "$b/young-daly.json" || fail "$what: merged JSON differs from the direct run"
}

# log_has FILE TEXT: the task log FILE contains TEXT.
log_has() { grep -qF -- "$2" "$1" || fail "$1 lacks '$2'"; }

test_small() {
    local out=$work/out-small n threads
    threads=$(($(nproc) >= 2 ? 2 : 1))
    log "test 1: $small_reps replications in $small_shards shards through submit.sh, $threads CPUs a task"
    CKPTSIM_ARRAY_OPTS="--cpus-per-task=$threads" submit "$out" "$small_reps" "$small_shards"
    wait_merge "$out" young-daly
    same "$out" "$work/direct-small" "test 1"
    n=$(find "$out/logs" -name "ckptsim-${array_job}_*.out" | wc -l)
    ((n == small_shards)) || fail "test 1: $n task logs, not $small_shards"
    log_has "$out/logs/ckptsim-${array_job}_0.out" "$threads thread(s)"
    log "test 1 ok: $small_shards shards merged byte-identical to one run"
}

# A task that fails cancels the merge (afterok, --kill-on-invalid-dep=yes); rerunning the
# failed shard alone (CKPTSIM_SHARDS) and merging by hand recovers, as scenarios/slurm/README.md says.
test_failure() {
    local out=$work/out-fail wrapper=$work/failing-ckptsim real=$CKPTSIM rerun merge
    cat >"$wrapper" <<WRAPPER
#!/usr/bin/env bash
# ckptsim, except that shard 1 of $small_shards fails (written by slurm-test.sh).
for a in "\$@"; do
    if [[ \$a == 1/$small_shards ]]; then
        echo "failing on purpose: shard \$a" >&2
        exit 1
    fi
done
exec "$real" "\$@"
WRAPPER
    chmod +x "$wrapper"
    log "test 3: a failing task cancels the merge; rerunning that shard and merging recovers"
    export CKPTSIM=$wrapper
    submit "$out" "$small_reps" "$small_shards"
    export CKPTSIM=$real
    wait_gone "$array_job" "$merge_job"
    [[ ! -e $out/young-daly.csv ]] || fail "test 3: the merge ran although a task failed"
    [[ -z $(find "$out/logs" -name 'ckptsim-merge-*') ]] || fail "test 3: the merge job started although a task failed"
    log_has "$out/logs/ckptsim-${array_job}_1.out" "failing on purpose"
    rerun=$(cd "$work" && CKPTSIM_SHARDS=$small_shards sbatch --parsable --array=1 --output="$out/logs/%x-%A_%a.out" \
        "$slurm_dir/array.sbatch" "$scenario" "$small_reps" "$out") || fail "test 3: resubmitting shard 1 failed"
    wait_gone "${rerun%%;*}"
    merge=$(cd "$work" && sbatch --parsable --output="$out/logs/%x-%j.out" "$slurm_dir/merge.sbatch" "$scenario" "$small_shards" "$out") ||
        fail "test 3: submitting the merge failed"
    wait_gone "${merge%%;*}"
    [[ -s $out/young-daly.csv ]] || fail "test 3: the merge after the rerun wrote nothing"
    same "$out" "$work/direct-small" "test 3"
    log "test 3 ok: the merge waited out the failure; after the rerun it is byte-identical to one run"
}

# Waits until both shard files exist (each task saved once) and, on a real Slurm, both tasks run.
wait_saved() {
    local out=$1 i t ok
    for ((i = 0; i < wait_limit * 4; i++)); do
        ok=1
        for ((t = 0; t < big_shards; t++)); do [[ -s $out/young-daly.shard-$t-of-$big_shards.json ]] || ok=0; done
        ((ok)) && return 0
        sleep 0.25
    done
    fail "the shards never saved their progress"
}

test_requeue_slurm() {
    local out=$work/out-requeue
    log "test 2: $big_reps replications in $big_shards shards, interrupted and requeued"
    submit "$out" "$big_reps" "$big_shards" --save-every 1
    wait_saved "$out"
    [[ $(squeue -h -j "${array_job}_0,${array_job}_1" -t R -o %i | wc -l) == 2 ]] || fail "test 2: the tasks finished before they could be interrupted"
    log "time-limit warning to task ${array_job}_0: scancel --batch --signal=USR1"
    scancel --batch --signal=USR1 "${array_job}_0"
    log "preemption-style requeue of task ${array_job}_1: scontrol requeue"
    scontrol requeue "${array_job}_1"
    wait_merge "$out" young-daly
    same "$out" "$work/direct-big" "test 2"
    local l0=$out/logs/ckptsim-${array_job}_0.out l1=$out/logs/ckptsim-${array_job}_1.out
    log_has "$l0" "got SIGUSR1"
    log_has "$l0" "interrupted after"
    log_has "$l0" "progress saved; requeued job"
    log_has "$l1" "got SIGTERM"
    log_has "$l1" "interrupted after"
    for f in "$l0" "$l1"; do
        log_has "$f" "(restart count 1)"
        log_has "$f" "done ($((big_reps / big_shards)) replications)"
        [[ $(grep -c 'nothing to resume' "$f") == 1 ]] || fail "$f: the requeued task started over instead of resuming"
    done
    log "test 2 ok: both tasks resumed after requeue, merged byte-identical to one uninterrupted run"
}

# The same interruptions without Slurm: array.sbatch run directly, as Slurm would run it.
test_requeue_emulated() {
    local out=$work/out-requeue dir=$work/emul t pid rc
    log "test 2 (emulated): $big_reps replications in $big_shards shards, interrupted and rerun"
    run_task() { # TASK RESTARTS: starts array.sbatch in the background, sets $pid
        env SLURM_JOB_ID=$((900 + $1)) SLURM_ARRAY_JOB_ID=900 SLURM_ARRAY_TASK_ID="$1" \
            SLURM_ARRAY_TASK_COUNT=$big_shards SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=$((big_shards - 1)) \
            SLURM_RESTART_COUNT="$2" SLURM_SUBMIT_DIR="$work" \
            bash "$slurm_dir/array.sbatch" "$scenario" "$big_reps" "$out" --save-every 1 >>"$dir/task-$1.out" 2>&1 &
        pid=$!
        bg_pids+=("$pid")
    }
    run_task 0 0
    local p0=$pid
    run_task 1 0
    local p1=$pid
    wait_saved "$out"
    if ! kill -0 "$p0" 2>/dev/null || ! kill -0 "$p1" 2>/dev/null; then
        fail "test 2: the tasks finished before they could be interrupted"
    fi
    kill -USR1 "$p0"
    kill -TERM "$p1"
    rc=0
    wait "$p0" || rc=$?
    ((rc == 0)) || fail "test 2: task 0 after SIGUSR1 exited $rc, not 0 (requeued)"
    grep -qF "scontrol requeue 900" "$FAKE_SLURM_STATE/events" || fail "test 2: task 0 did not requeue itself"
    rc=0
    wait "$p1" || rc=$?
    ((rc == 130)) || fail "test 2: task 1 after SIGTERM exited $rc, not 130"
    log "interrupted: task 0 requeued itself, task 1 exited 130; rerunning both"
    run_task 0 1
    p0=$pid
    run_task 1 1
    p1=$pid
    wait "$p0" || fail "test 2: resumed task 0 failed"
    wait "$p1" || fail "test 2: resumed task 1 failed"
    SLURM_JOB_ID=902 SLURM_SUBMIT_DIR=$work bash "$slurm_dir/merge.sbatch" "$scenario" "$big_shards" "$out" --save-every 1 >"$dir/merge.out" 2>&1 ||
        fail "test 2: merge.sbatch failed"
    same "$out" "$work/direct-big" "test 2"
    for t in 0 1; do
        log_has "$dir/task-$t.out" "interrupted after"
        log_has "$dir/task-$t.out" "done ($((big_reps / big_shards)) replications)"
        [[ $(grep -c 'nothing to resume' "$dir/task-$t.out") == 1 ]] || fail "task $t started over instead of resuming"
    done
    log "test 2 ok (emulated): both tasks resumed, merged byte-identical to one uninterrupted run"
}

# ---------------------------------------------------------------------------------------

mkdir -p "$(dirname -- "$work")"
exec 9>"$work.lock"
flock -w 20 9 || fail "another slurm-test.sh holds $work.lock"
cancel_jobs # what a killed earlier run left
stop_recorded "$work/pids"
rm -rf -- "$work"
mkdir -p "$work/log" "$work/pids"
trap cleanup EXIT
trap 'exit 130' INT TERM

if [[ -n ${CKPTSIM:-} ]]; then
    bin=$CKPTSIM
else
    log "building ckptsim (cargo build --release)"
    (cd "$repo" && cargo build --locked --release --quiet)
    target=${CARGO_TARGET_DIR:-$repo/target}
    [[ $target == /* ]] || target=$repo/$target
    bin=$target/release/ckptsim
fi
[[ -x $bin ]] || fail "no ckptsim binary at $bin"
export CKPTSIM=$bin
log "binary: $bin"

log "direct runs for reference: --reps $small_reps and --reps $big_reps"
"$bin" run "$scenario" --reps "$small_reps" --out "$work/direct-small" >/dev/null
"$bin" run "$scenario" --reps "$big_reps" --out "$work/direct-big" >/dev/null

if start_slurm; then
    log "real Slurm is up: $(sinfo -h -o '%P %a %D %T %C') (partition state nodes cpus A/I/O/T)"
    test_small
    test_requeue_slurm
    test_failure
    log "PASS: real Slurm ($(sinfo -V)): job array + afterok merge byte-identical to a direct run; time-limit requeue and scontrol requeue resume exactly; a failed task holds the merge back"
    echo "slurm-test: 3 passed, 0 failed"
else
    log "real Slurm unavailable: $why"
    if ((slurm_up)); then
        dump_logs
        cancel_jobs
        stop_recorded "$work/pids"
        slurm_up=0
    fi
    unset SLURM_CONF
    log "falling back to an emulated sbatch (tasks one after another, --dependency honoured)"
    make_emulation
    test_small
    grep -q "dependency afterok:$array_job satisfied" "$FAKE_SLURM_STATE/events" || fail "the merge did not wait for the array"
    test_requeue_emulated
    test_failure
    log "PASS (emulated, no real Slurm: $why): job array + afterok merge byte-identical to a direct run; interrupted tasks resume exactly; a failed task holds the merge back"
    echo "slurm-test: 3 passed, 0 failed"
fi
