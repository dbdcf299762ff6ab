#!/usr/bin/env bash
# replay.sh — how faithfully a trace is replayed: blkreel-replay vs fio --read_iolog (with
# replay_redirect) vs Debian's btreplay, same trace, same target, each replay captured with
# blkreel-capture and compared IO by IO with the original (tests/bench/replay_compare.py).
#   tests/bench/replay.sh            (root; RUNTIME=8 seconds of original workload by default)
# The original: fio on a loop device over a file in /dev/shm — bursts of 4 KiB random reads at
# 10k IOPS (50 ms on, 50 ms idle; rate_ignore_thinktime, so fio does not catch up after each idle
# gap with a ~200k IOPS burst) plus a slower random-write job — captured with blkreel-capture.
# The target: a second loop device over /dev/shm. Timed replays, then as-fast-as-possible runs
# (ours --no-stall, fio replay_no_stall, btreplay -N), each once captured (device order) and
# FAST_RUNS times (default 3) without a capture (IOPS over the tool's wall time). Creates and
# always detaches its own loop devices; holds the machine-wide tracer lock throughout.
# Then every bundled sample (samples/*.blktrace.gz) replayed open loop (--write --force --wrap)
# onto a fresh RAM-backed loop device, uncaptured: issue-error p50/p99 per sample, with the
# sample's largest IO, the in-flight maximum and the load average (the goal, p99 <= 100 us,
# holds only on a quiet host). SAMPLES_ONLY=1 runs only that part.
set -euo pipefail
RUNTIME=${RUNTIME:-8}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${BLKREEL_BIN:-$HERE/bin}
CAP=$BIN/blkreel-capture REPLAY=$BIN/blkreel-replay PARSE=$BIN/blkreel-parse
[[ $(id -u) -eq 0 ]] || { echo "replay.sh: needs root" >&2; exit 1; }
for t in "$CAP" "$REPLAY" "$PARSE"; do [[ -x $t ]] || { echo "replay.sh: build first (make): $t missing" >&2; exit 1; }; done
command -v fio >/dev/null || { echo "replay.sh: needs fio" >&2; exit 1; }

exec 9>/run/lock/blkreel-tracer.lock
flock 9

W="" SRC="" DST=""
cleanup() {
    set +e
    [[ -n $SRC ]] && losetup -d "$SRC"
    [[ -n $DST ]] && losetup -d "$DST"
    [[ -n $W && -z ${KEEP:-} ]] && rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

W=$(mktemp -d /dev/shm/blkreel-bench-replay.XXXXXX)
truncate -s 1G "$W/src.img" "$W/dst.img"
SRC=$(losetup --find --show "$W/src.img")
DST=$(losetup --find --show "$W/dst.img")
[[ $SRC == /dev/loop* && $DST == /dev/loop* ]] || { echo "unexpected loop devices $SRC $DST" >&2; exit 1; }
S=${SRC#/dev/} D=${DST#/dev/}

# ---- every bundled sample, open loop, onto a RAM-backed loop -------------------------------
# one fresh image per sample (a first write into a tmpfs hole costs more than a rewrite, so
# each sample starts alike); --wrap folds samples traced on larger devices into the 1 GiB
samples() {
    local f name img dev rc
    echo "bundled samples, open loop onto a RAM-backed loop (uncaptured; load average $(cut -d' ' -f1-3 /proc/loadavg)):"
    printf '  %-24s %10s %10s %10s %8s %8s\n' sample "p50 (us)" "p99 (us)" "max (us)" "IOs" "in flt"
    for f in "$HERE"/samples/*.blktrace.gz; do
        name=$(basename "$f" .blktrace.gz)
        img=$W/sample.img
        rm -f "$img"
        truncate -s 1G "$img"
        dev=$(losetup --find --show "$img")
        [[ $dev == /dev/loop* ]] || { echo "unexpected loop device $dev" >&2; exit 1; }
        SAMPLE_DEV=$dev
        rc=0
        "$REPLAY" --no-progress -q "$f" -d "$dev" --write --force --wrap \
            --report "$W/sample.json" 2>"$W/sample.err" || rc=$?
        losetup -d "$dev"
        SAMPLE_DEV=""
        if [[ $rc != 0 ]]; then
            printf '  %-24s failed: %s\n' "$name" "$(tail -1 "$W/sample.err")"
            continue
        fi
        python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); e=d["issue_error_ns"]
print("  %-24s %10.1f %10.1f %10.1f %8d %8d" % (sys.argv[2], e["p50"]/1e3, e["p99"]/1e3, e["max"]/1e3,
      sum(d["issued"].values()), d["inflight"]["max"]))' \
            "$W/sample.json" "$name"
    done
    rm -f "$W/sample.img"
}
SAMPLE_DEV=""
trap 'cleanup; [[ -n $SAMPLE_DEV ]] && losetup -d "$SAMPLE_DEV"' EXIT
samples
[[ -n ${SAMPLES_ONLY:-} ]] && exit 0

echo "original on $SRC, replays on $DST (files in $W)"

# ---- the original: bursts and idle gaps, captured ----------------------------------------
cat >"$W/orig.fio" <<JOB
[global]
filename=$SRC
direct=1
ioengine=libaio
runtime=$RUNTIME
time_based
size=1g
[bursts]
rw=randread
bs=4k
iodepth=4
rate_iops=10000
thinktime=50000
thinktime_blocks=500
rate_ignore_thinktime=1
[writer]
rw=randwrite
bs=4k
iodepth=2
rate_iops=1000
JOB
"$CAP" -q --no-progress -d "$SRC" -o "$W/orig" -- fio --minimal "$W/orig.fio" >/dev/null
"$PARSE" "$W/orig.blktrace.gz" -o "$W/orig.bin"                 # one stream, for fio
mkdir -p "$W/bt" "$W/rec"
"$PARSE" "$W/orig.blktrace.gz" --split "$W/bt/$S" >/dev/null    # per-CPU set, for btrecord

# outcome ERRFILE TIMEFILE: how a failed run ended. Debian's btreplay replays, then aborts in
# its final free() ("aborted": its IOs happened all the same); "hung": killed by its timeout.
outcome() {
    if grep -q 'munmap_chunk(): invalid pointer' "$1"; then echo aborted
    elif grep -qE 'signal 9|status 137' "$1" "$2" 2>/dev/null; then echo hung
    else echo failed
    fi
}

timed() { # timed NAME CMD... : run under capture and /usr/bin/time
    local n=$1; shift
    /usr/bin/time -f "%e %U %S" -o "$W/$n.time" \
        "$CAP" -q --no-progress -d "$DST" -o "$W/$n" -- "$@" >"$W/$n.out" 2>"$W/$n.err" && return
    case $(outcome "$W/$n.err" "$W/$n.time") in
    aborted) if [[ -s $W/$n.blktrace.gz ]]; then
                 echo "aborted at exit: munmap_chunk(): invalid pointer" >"$W/$n.note"
             else
                 echo "$n: aborted, nothing captured" >"$W/$n.fail"
             fi ;;
    hung) echo "$n: hung; killed by its timeout after $(tail -1 "$W/$n.time" | cut -d' ' -f1) s" >"$W/$n.fail" ;;
    *) echo "$n: failed: $(tail -2 "$W/$n.err" | tr '\n' ' ')" >"$W/$n.fail" ;;
    esac
}

# uncaptured NAME CMD... : FAST_RUNS runs without a capture, one line per run into NAME.runs:
# wall seconds (to the microsecond: GNU time's 10 ms steps are a twentieth of such a run), or
# "hung" / "failed" (btreplay's abort at exit counts as a finished run)
uncaptured() {
    local n=$1 r t0 t1 rc; shift
    : >"$W/$n.runs"
    for ((r = 0; r < ${FAST_RUNS:-3}; r++)); do
        t0=$EPOCHREALTIME
        # in a subshell that is not replaced by the command (the exit after it), so the
        # subshell reports btreplay's "Aborted", into /dev/null
        ("$@" >/dev/null 2>"$W/$n.uerr"; exit $?) 2>/dev/null && rc=0 || rc=$?
        t1=$EPOCHREALTIME
        if [[ $rc == 0 || $(outcome "$W/$n.uerr" /dev/null) == aborted ]]; then
            awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", b - a }' >>"$W/$n.runs"
        elif [[ $rc == 137 ]]; then
            echo hung >>"$W/$n.runs"
        else
            echo failed >>"$W/$n.runs"
        fi
    done
}

# ---- timed replays -------------------------------------------------------------------------
timed ours "$REPLAY" --no-progress -q "$W/orig.blktrace.gz" -d "$DST" --write --report "$W/ours.json"
timed ours_closed "$REPLAY" --no-progress -q "$W/orig.blktrace.gz" -d "$DST" --write --closed --report "$W/ours_closed.json"
timed fio fio --name=replay --read_iolog="$W/orig.bin" --replay_redirect="$DST" --ioengine=libaio \
    --iodepth=32 --direct=1 --minimal
if command -v btrecord >/dev/null && command -v btreplay >/dev/null; then
    if btrecord -d "$W/bt" -D "$W/rec" "$S" >"$W/btrecord.out" 2>&1; then
        echo "$S $D" >"$W/map"
        timed btreplay timeout -s KILL $((RUNTIME * 3 + 30)) btreplay -d "$W/rec" -M "$W/map" -W "$S"
    else
        echo "btrecord failed: $(tail -1 "$W/btrecord.out")" >"$W/btreplay.fail"
    fi
else
    echo "btreplay not installed" >"$W/btreplay.fail"
fi

# ---- as fast as possible -------------------------------------------------------------------
fast_ours=("$REPLAY" --no-progress -q "$W/orig.blktrace.gz" -d "$DST" --write --no-stall --max-inflight 32)
fast_fio=(fio --name=replay --read_iolog="$W/orig.bin" --replay_redirect="$DST" --ioengine=libaio
    --iodepth=32 --direct=1 --replay_no_stall=1 --minimal)
fast_bt=(timeout -s KILL 20 btreplay -d "$W/rec" -M "$W/map" -W -N "$S")
timed ours_fast "${fast_ours[@]}"
uncaptured ours_fast "${fast_ours[@]}"
# the replay phase alone, from our own report (the wall time above also reads the trace twice)
"${fast_ours[@]}" --report "$W/ours_fast.json" >/dev/null 2>&1 &&
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); n=sum(d["issued"].values()); print("blkreel-replay own report (no stall): replay phase %.0f IOPS (%d IOs in %.3f s, start to last completion)" % (n / d["wall_s"], n, d["wall_s"]))' "$W/ours_fast.json" >"$W/ours_fast.phase" ||
    echo "blkreel-replay own report (no stall): n/a" >"$W/ours_fast.phase"
timed fio_fast "${fast_fio[@]}"
uncaptured fio_fast "${fast_fio[@]}"
if [[ -e $W/btreplay.fail ]]; then
    cp "$W/btreplay.fail" "$W/btreplay_fast.fail"
else
    timed btreplay_fast "${fast_bt[@]}"
    uncaptured btreplay_fast "${fast_bt[@]}"
fi

# what the target can do at all: fio's own io_uring engine, random 4 KiB reads, 2 jobs at depth 32
ceiling=$(fio --name=ceiling --filename="$DST" --rw=randread --bs=4k --direct=1 --ioengine=io_uring \
    --iodepth=32 --numjobs=2 --group_reporting --runtime=2 --time_based --output-format=json 2>/dev/null |
    python3 -c 'import json,sys; print("%.0f" % json.load(sys.stdin)["jobs"][0]["read"]["iops"])' || echo "?")
echo "target ceiling: $ceiling IOPS (fio io_uring randread 4 KiB, 2 jobs x depth 32, uncaptured)"
cat "$W/ours_fast.phase"
echo "blkreel-replay's own report (timed): $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); e=d["issue_error_ns"]; print("issue error p50 %.1f us, p90 %.1f us, p99 %.1f us, max %.1f ms; drift %+.4f %%; in flight max %d" % (e["p50"]/1e3, e["p90"]/1e3, e["p99"]/1e3, e["max"]/1e6, d["drift_pct"], d["inflight"]["max"]))' "$W/ours.json" 2>/dev/null || echo n/a)"
python3 "$HERE/tests/bench/replay_compare.py" --parse "$PARSE" --dir "$W" \
    --orig orig --timed ours ours_closed fio btreplay --fast ours_fast fio_fast btreplay_fast
