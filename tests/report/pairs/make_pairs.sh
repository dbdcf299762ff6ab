#!/usr/bin/env bash
# make_pairs.sh — capture controlled pairs of block traces for judging blkreel-report's diagnosis.
# Each pair is the same fio job captured twice (A, then B) with ONE known difference between the
# two sides (a queue knob, the job's depth, think time, flushes, IO size, the device's speed), so
# the cause that must come first is known; A/A pairs change nothing and must give no diagnosis
# (their two sides run at once on two devices built alike, captured together and split by device).
#   make_pairs.sh [-o DIR] [--quick] [PAIR...]      # every pair when none is named
#   make_pairs.sh --list                            # names, what differs, expected first cause
# Exit 0 ok, 1 failure, 2 usage, 3 this kernel lacks what a pair needs (e.g. the kyber scheduler).
# Writes DIR/PAIR/a.blktrace.gz, DIR/PAIR/b.blktrace.gz and DIR/PAIR/README.txt (default DIR:
# ./pairs-data). B is always the side expected to be slower. --quick shortens every job (the
# Criterion suite tests/report/test_diagnosis_kernel.c uses it).
# Root only. It writes only to loop devices it creates over files it creates (in a temp dir under
# /var/tmp for disk-backed ones, under /dev/shm for RAM-backed ones), and from an EXIT trap, on
# every path, puts back every queue knob it changed, unmounts, detaches and removes them; a pair
# that throttles does it in a blkio cgroup it makes and removes (cgroup v1), never another's.
# It captures with blkreel-capture's tracefs backend (PAIRS_BACKEND=perf|relay for another): the
# perf backend was seen to lose up to 90 % of completions on disk-backed loop devices at high IO
# rates without counting a drop, and a trace with lost completions would judge the diagnosis on
# broken data. So it holds the machine-wide tracer lock (/run/lock/blkreel-tracer.lock) for the
# whole run, and every capture is checked: a side with requests never completed is captured again.
set -euo pipefail
# A pair judges one known difference, so nothing else on the machine may make one side slower:
# the whole run gets the CPU ahead of ordinary work. The script runs at nice -19; each side's job
# (fio and the capture) runs at SCHED_FIFO $RT_PRIO, and so do the kernel threads that do its IO
# (boost_workers.py: loop and block workers, ksoftirqd, jbd2), because a fair task woken beside
# CPU hogs waits up to a scheduler slice whatever its nice: with nice alone, two `yes` hogs made a
# RAM-backed loop's 5 us reads take 60-130 us and A/A pairs come out 0.3-2.8x apart.
if [[ ${BLKREEL_PAIRS_NICED:-} != 1 ]] && (($(id -u) == 0)); then
    BLKREEL_PAIRS_NICED=1 exec nice -n -19 "$0" "$@"
fi

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
BIN=${BLKREEL_BIN:-$ROOT/bin}
CAP=$BIN/blkreel-capture
REPORT=$BIN/blkreel-report
PARSE=$BIN/blkreel-parse
OUT=$PWD/pairs-data
BACKEND=${PAIRS_BACKEND:-tracefs}
QUICK=0
IMG_MIB=256
RT_PRIO=10
# B's think time in the idle pair: long beside a RAM loop's service time and beside the wake-up of
# its idle worker, which adds to B's service time (15-57 us on a loaded host at 100 us of think
# time, which left the pair's verdict to that noise; 72-105 us at 1 ms); one run per side then
# confirms idle (U 5-9x apart, BR_DIAG_RERUN_RATIO). This VM's CPUs have no cpuidle driver and halt
# when idle: the IO after each think waits for the host to run the loop worker's CPU again (B's D2C
# 238 us against A's 28 at 2 ms of think time, and service_time came first, 54 % against idle's 46);
# at 10 ms idle was 62-78 %. tests/report/diagnosis_pairs.h holds the same
IDLE_THINK_US=10000
RUN_S=4             # each side of a time-based job runs this long (1 with --quick)
# The service_time pair's slow device: a cap on writes of B's lower loop. At QD 1 each write then
# takes about 1/SLOW_WRITE_IOPS s at the device: 439-449 us against the unthrottled stack's 48-49.
SLOW_WRITE_IOPS=2000

PAIRS=(concurrency idle flush split io_size merge readahead scheduler service_time amplification aa_randread aa_qd4_writes aa_buffered_read rerun_randread
    sweep_host sweep_disk sweep_fsync sweep_nr_requests)
# A sweep (sweep_*) is the same job captured at each of SWEEP_JOBS fio numjobs, one capture per
# point, into DIR/SWEEP/jN.blktrace.gz: its limit past the knee is known (blkreel/sweep.h).
SWEEP_JOBS=(1 2 4 8 16)

log() { printf '[make_pairs] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }
missing() { log "missing: $*"; exit 3; } # the kernel lacks a feature a pair needs
usage() {
    sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit "${1:-0}"
}

SELECTED=() LIST=0
while (($#)); do
    case $1 in
    -o) (($# >= 2)) || usage 2; OUT=$2; shift 2 ;;
    --quick) QUICK=1; shift ;;
    --list) LIST=1; shift ;;
    -h | --help) usage 0 ;;
    -*) log "unknown option $1"; usage 2 ;;
    *) SELECTED+=("$1"); shift ;;
    esac
done
((${#SELECTED[@]})) || SELECTED=("${PAIRS[@]}")
((QUICK)) && IMG_MIB=128 RUN_S=1
BIG_MIB=$((IMG_MIB * 8)) # RAM-backed devices read or written whole, so that a side lasts about a second
for p in "${SELECTED[@]}"; do
    [[ " ${PAIRS[*]} " == *" $p "* ]] || die "no pair named '$p' (try --list)"
done

# ---- state to put back -------------------------------------------------------------------------
TMP="" SHM="" MNT="" TOUCH_MIB=0 CGROUP=""
LOOPS=()            # loop devices we attached, in order
KNOB_PATHS=()       # sysfs files we wrote, in order, with their first value
KNOB_VALUES=()

restore_knobs() { # newest first, so a knob written twice ends at its first value
    local i
    for ((i = ${#KNOB_PATHS[@]} - 1; i >= 0; i--)); do
        [[ -e ${KNOB_PATHS[i]} ]] || continue
        echo "${KNOB_VALUES[i]}" >"${KNOB_PATHS[i]}" 2>/dev/null ||
            log "warning: could not restore ${KNOB_PATHS[i]} to ${KNOB_VALUES[i]}"
    done
    KNOB_PATHS=() KNOB_VALUES=()
}

detach_all() {
    local i
    if [[ -n $MNT ]] && mountpoint -q "$MNT"; then
        umount "$MNT" || umount -l "$MNT" || log "warning: could not unmount $MNT"
    fi
    MNT=""
    restore_knobs
    # its jobs have ended: the cgroup is empty, and its throttle rules go with it
    if [[ -n $CGROUP && -d $CGROUP ]]; then
        rmdir "$CGROUP" || log "warning: could not remove the cgroup $CGROUP"
    fi
    CGROUP=""
    for ((i = ${#LOOPS[@]} - 1; i >= 0; i--)); do # a loop over another one first
        losetup -d "${LOOPS[i]}" || log "warning: could not detach ${LOOPS[i]}"
    done
    LOOPS=()
}

# The loop devices' IO is done by kernel threads (see boost_workers.py): while a side runs they
# get the workload's priority, and from every path they get their own back.
BOOST_PID="" BOOST_STATE=""
boost_start() { # boost_start DEV...
    BOOST_STATE=$TMP/boost.state
    ((${#RT[@]})) || return 0
    rm -f "$TMP/boost.ready"
    python3 "$HERE/boost_workers.py" --fifo "$RT_PRIO" --state "$BOOST_STATE" --ready "$TMP/boost.ready" "$@" &
    BOOST_PID=$!
    # the side's first IOs must not run before the threads are boosted (10 s at most)
    local waited
    for ((waited = 0; waited < 1000; waited++)); do
        [[ -e $TMP/boost.ready ]] && return 0
        kill -0 "$BOOST_PID" 2>/dev/null || die "boost_workers.py exited before boosting the loop's threads"
        sleep 0.01
    done
    die "boost_workers.py did not finish its first scan in 10 s"
}
boost_stop() {
    if [[ -n $BOOST_PID ]]; then
        kill -TERM "$BOOST_PID" 2>/dev/null || true
        wait "$BOOST_PID" || log "warning: boost_workers.py exit $? while putting kernel threads back"
    fi
    BOOST_PID=""
    # a booster that died without restoring left its record
    if [[ -n $BOOST_STATE && -e $BOOST_STATE ]]; then
        python3 "$HERE/boost_workers.py" --restore "$BOOST_STATE" ||
            log "warning: could not put every kernel thread in $BOOST_STATE back"
    fi
    BOOST_STATE=""
}

cleanup() {
    local rc=$?
    set +e
    trap - INT TERM HUP
    boost_stop
    detach_all
    [[ -n $TMP && -d $TMP ]] && rm -rf -- "$TMP"
    [[ -n $SHM && -d $SHM ]] && rm -rf -- "$SHM"
    ((rc)) && log "failed (exit $rc); knobs restored, loop devices detached, temp files removed"
    exit "$rc"
}

# ---- pairs: each sets DIFF, WORKLOAD, EXPECT, then runs side a / side b ------------------------
FIO_GLOBAL=(--output=/dev/null --size=64M)
FIO_COMMON=("${FIO_GLOBAL[@]}" --name=job)
# Sides run for a fixed time, not a fixed number of IOs: the fast side of a pair would otherwise
# last tens of milliseconds, a few scheduler slices, and its time slices judge nothing.
TIMED=(--time_based --runtime="$RUN_S")

describe() { # describe PAIR — sets DIFF WORKLOAD EXPECT (no kernel work)
    local AT_ONCE="A and B at once, on two devices built alike, in one capture split by device (see capture_sides)"
    case $1 in
    concurrency)
        DIFF="fio iodepth: A 16, B 1 (libaio, O_DIRECT)"
        WORKLOAD="4 KiB random reads over 64 MiB, ${RUN_S} s, disk-backed loop (direct-io=on, file on /var/tmp, read once before tracing)"
        EXPECT="concurrency" ;;
    idle)
        DIFF="fio thinktime: A none, B ${IDLE_THINK_US} us after every IO"
        WORKLOAD="4 KiB random reads, psync, O_DIRECT, ${RUN_S} s, RAM-backed loop (file in /dev/shm)"
        EXPECT="idle" ;;
    flush)
        DIFF="fio fsync: A none, B fsync after every write (a flush request each)"
        WORKLOAD="4 KiB sequential writes, psync, O_DIRECT, ${RUN_S} s, RAM-backed loop"
        EXPECT="flush" ;;
    split)
        DIFF="queue/max_sectors_kb: A 512, B 8 (every 512 KiB IO split into 64)"
        WORKLOAD="512 KiB sequential reads, libaio iodepth 4, O_DIRECT, ${RUN_S} s, disk-backed loop (direct-io=on; on a RAM-backed loop splitting costs nothing measurable)"
        EXPECT="split (io_size acceptable: the stack's request size limit)" ;;
    io_size)
        DIFF="fio bs: A 64 KiB, B 4 KiB"
        WORKLOAD="sequential reads, psync, O_DIRECT, ${RUN_S} s, RAM-backed loop"
        EXPECT="io_size" ;;
    merge)
        DIFF="queue/nomerges: A 0 (merging), B 2 (no merging)"
        WORKLOAD="4 KiB sequential writes, libaio iodepth 32 submitted and reaped in batches of 32 (so they meet in the plug), O_DIRECT, ${RUN_S} s, disk-backed loop (direct-io=on; on a RAM-backed loop one 128 KiB request costs what 32 of 4 KiB do)"
        EXPECT="merge" ;;
    readahead)
        DIFF="queue/read_ahead_kb: A 1024, B 0"
        WORKLOAD="4 KiB sequential buffered reads of the device (page cache dropped first), all $BIG_MIB MiB of a RAM-backed loop"
        EXPECT="readahead" ;;
    scheduler)
        DIFF="queue/scheduler: A none, B bfq (queue/rotational 1 on both sides: bfq serves one process's queue at a time and holds the others' IOs)"
        WORKLOAD="4 processes, 4 KiB sequential reads each in its own quarter of the device, psync, O_DIRECT, ${RUN_S} s, disk-backed loop (direct-io=on, read once before tracing; bfq idles for a sequential reader's next IO and serves one at a time: 2.6x apart beside two CPU hogs, where random readers, for which it does not idle, came out 1.04-1.47x; on a RAM-backed loop, which serves one request at a time anyway, bfq changes nothing measurable, nor does kyber in a short run)"
        EXPECT="scheduler" ;;
    service_time)
        DIFF="the device's speed: each side a loop (direct-io=on) over a RAM-backed loop of its own, and B's lower loop throttled to $SLOW_WRITE_IOPS writes/s for the job's cgroup (cgroup v1 blkio.throttle.write_iops_device), which B's loop worker is charged with: B's requests wait for it between D and C"
        WORKLOAD="4 KiB random writes, psync, O_DIRECT, ${RUN_S} s, both jobs in a blkio cgroup of this script's own (B over a file on the host's disk instead was 2.1-2.5x slower on 2026-12-04, within the 3x that one run per side cannot tell from drift: the shared virtual disk)"
        EXPECT="service_time" ;;
    amplification)
        DIFF="ext4 mount option: A data=ordered, B data=journal (every data block also written to the journal)"
        WORKLOAD="fio 4 KiB sequential buffered writes of $((BIG_MIB / 4)) MiB into one file (rewritten: fio lays it out in an untraced run first), fsync every 64 writes, ext4 with 4 KiB blocks on a $BIG_MIB MiB RAM-backed loop (mkfs and mount before tracing)"
        EXPECT="amplification" ;;
    aa_randread)
        DIFF="nothing (A/A)"
        WORKLOAD="4 KiB random reads, psync, O_DIRECT, ${RUN_S} s, RAM-backed loop; $AT_ONCE"
        EXPECT="none: empty diagnosis" ;;
    aa_qd4_writes)
        DIFF="nothing (A/A)"
        WORKLOAD="4 KiB random writes, libaio iodepth 4, O_DIRECT, ${RUN_S} s, RAM-backed loop (on a disk-backed one, the same job captured twice came out 0.6x to 1.7x apart here: the host's disk is shared); $AT_ONCE"
        EXPECT="none: empty diagnosis" ;;
    rerun_randread)
        DIFF="nothing: the same job captured twice, one run after the other, as a user would (not at once)"
        WORKLOAD="4 KiB random reads, libaio iodepth 8, O_DIRECT, ${RUN_S} s, one RAM-backed loop"
        EXPECT="none confirmed: a timing shift between the runs is listed as unconfirmed at most" ;;
    sweep_host)
        DIFF="fio numjobs ${SWEEP_JOBS[*]}"
        WORKLOAD="256 KiB random writes, libaio at depth 2, O_DIRECT, each block hashed (fio verify=sha3-512 without the read-back: about 5.5 ms of CPU per write here, 6-8x its service), every job on CPU 0 (fio cpus_allowed), ${RUN_S} s per point, RAM-backed loop: one job already hashes the next block while its last write is served, so more jobs only wait for that CPU and the device idles (1->2 jobs -0.05 to +0.01 in elasticity, 3 runs; one job at a time, psync, was 1.1-1.5x slower than two in CI, the knee then moving between 1 and 2)"
        EXPECT="host_bound" ;;
    sweep_disk)
        DIFF="fio numjobs ${SWEEP_JOBS[*]}"
        WORKLOAD="64 KiB random reads over ${IMG_MIB} MiB, psync, O_DIRECT, ${RUN_S} s per point, disk-backed loop (direct-io=on, file on /var/tmp, read once before tracing; with 4 KiB reads 16 jobs did not saturate it)"
        EXPECT="device_saturated" ;;
    sweep_fsync)
        DIFF="fio numjobs ${SWEEP_JOBS[*]}"
        WORKLOAD="4 KiB buffered writes, each job to its own 4 MiB file in ext4 (data=ordered), fsync after every write, ${RUN_S} s per point, disk-backed loop (direct-io=on): every fsync waits on the journal's commit, one at a time"
        EXPECT="serialised" ;;
    sweep_nr_requests)
        DIFF="fio numjobs ${SWEEP_JOBS[*]}"
        WORKLOAD="4 KiB random reads, psync, O_DIRECT, ${RUN_S} s per point, disk-backed loop (direct-io=on) with queue/nr_requests at its least and no scheduler"
        EXPECT="concurrency_capped" ;;
    aa_buffered_read)
        DIFF="nothing (A/A)"
        WORKLOAD="4 KiB sequential buffered reads of the whole device ($BIG_MIB MiB), page cache dropped first, queue/read_ahead_kb 32 on both sides (so it is thousands of requests, not tens), RAM-backed loop; $AT_ONCE"
        EXPECT="none: empty diagnosis" ;;
    esac
}

if ((LIST)); then
    for p in "${SELECTED[@]}"; do
        describe "$p"
        printf '%-17s %s -> %s\n' "$p" "$DIFF" "$EXPECT"
    done
    exit 0
fi

[[ $(id -u) -eq 0 ]] || die "must run as root"
[[ -x $CAP && -x $REPORT && -x $PARSE ]] || die "build first (make tools): $CAP, $REPORT or $PARSE is missing"
for c in losetup fio dd blockdev mkfs.ext4 mount umount mountpoint python3; do
    command -v "$c" >/dev/null || die "missing $c"
done
RT=(chrt -f "$RT_PRIO")
if ! chrt -f "$RT_PRIO" true 2>/dev/null; then # e.g. a cgroup with no real-time budget
    log "warning: cannot run at SCHED_FIFO here; sides run at nice -19 only, and under CPU load may not come out as built"
    RT=()
fi
exec 9>/run/lock/blkreel-tracer.lock
flock -w 600 9 || die "the tracer lock /run/lock/blkreel-tracer.lock stayed taken for 10 minutes"
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
TMP=$(mktemp -d /var/tmp/blkreel-pairs.XXXXXX)
SHM=$(mktemp -d /dev/shm/blkreel-pairs.XXXXXX)
mkdir -p "$OUT"

attach() { # attach ram|disk [MiB] | attach over DEV — sets L (device), Q (its queue dir) and MIB (its size)
    local img
    MIB=${2:-$IMG_MIB}
    case $1 in
    over) # a loop over one of our own loop devices, as if it were a file
        [[ " ${LOOPS[*]} " == *" $2 "* ]] || die "attach over $2: not a loop device of this run"
        MIB=$(($(blockdev --getsize64 "$2") >> 20))
        L=$(losetup --find --show --direct-io=on "$2") ;;
    ram)
        img=$SHM/ram-$MIB-${#LOOPS[@]}.img # a second device of a pair gets its own file
        # every page allocated now: a first write into a tmpfs hole costs several times a rewrite
        [[ -e $img ]] || dd if=/dev/zero of="$img" bs=1M count="$MIB" status=none
        L=$(losetup --find --show "$img") ;;
    disk)
        img=$TMP/disk.img
        if [[ ! -e $img ]]; then # real blocks, not a hole, so reads reach the disk
            dd if=/dev/zero of="$img" bs=1M count="$IMG_MIB" conv=fsync status=none
        fi
        L=$(losetup --find --show --direct-io=on "$img") ;;
    esac
    [[ $L == /dev/loop* ]] || die "unexpected loop device '$L'"
    LOOPS+=("$L")
    Q=/sys/block/${L#/dev/}/queue
    refresh_tags
}

# A loop device's driver tags were seen (6.18, debugfs hctx0/tags) at a depth of 4 while its
# nr_requests read 128: the nr_requests sweep used to put back its least value, and detaching the
# device reset nr_requests but not the tags (least_nr_requests now remembers the first value).
# fio then got 4 requests issued at once, whatever its depth. Whatever left a device so, writing
# nr_requests sizes the tags again, but not when the value is unchanged: down, then back.
refresh_tags() {
    local n
    n=$(<"$Q/nr_requests")
    { echo $((n / 2)) >"$Q/nr_requests" && echo "$n" >"$Q/nr_requests"; } ||
        die "$Q/nr_requests could not be rewritten"
}

knob() { # knob DEV NAME VALUE — write a queue knob of our own loop device, remembering its value
    local path=/sys/block/${1#/dev/}/queue/$2 old
    [[ -w $path ]] || die "$path is not writable here"
    old=$(<"$path")
    [[ $2 == scheduler ]] && { old=${old#*[}; old=${old%%]*}; }
    KNOB_PATHS+=("$path") KNOB_VALUES+=("$old")
    echo "$3" >"$path" || die "cannot write $3 to $path"
}

warm() { # warm DEV — read what the jobs read once, so both sides find the host's cache alike
    dd if="$1" of=/dev/null bs=1M count="$IMG_MIB" iflag=direct status=none
}

touch_memory() { # touch_memory MiB — fault in, then free, that much memory in a tmpfs file
    # The host backs this guest's memory lazily: a page the guest never touched costs a host
    # fault on first use. A side that fills 1 GiB of page cache could get such pages partway
    # through (its 64 KiB reads on a RAM-backed loop went from 24 to ~100 us beyond some offset
    # in one side of about half the A/A captures) and the other side not. Pages just freed are
    # handed out first, so both sides then get pages that are backed already.
    dd if=/dev/zero of="$SHM/touch" bs=1M count="$1" status=none
    rm -f "$SHM/touch"
}

side() { # side PAIR a|b DEV CMD... — capture CMD on DEV into OUT/PAIR/SIDE.blktrace.gz
    local pair=$1 s=$2 dev=$3; shift 3
    capture_sides "$pair" "$s=$dev" -- "$@"
}

# capture_sides PAIR SIDE=DEV... -- CMD... — capture CMD on the devices (one capture; with more
# than one device, split by device) into OUT/PAIR/SIDE.blktrace.gz each.
# An A/A pair's two sides run this way at once, on two devices built alike. Run one after the
# other, the host's drift between two seconds (another guest, a loop worker's CPU) made the same
# job 0.4x-2.5x apart in CI, and no trace can tell that from a real difference; at once, whatever
# the machine does hits both sides alike, and what is left between them is the noise the
# diagnosis must not report.
capture_sides() {
    local pair=$1 names=() devs=(); shift
    while [[ $1 != -- ]]; do names+=("${1%%=*}"); devs+=("${1#*=}"); shift; done
    shift
    local tag dev traced=() try lost=-1 rc i
    tag=$(IFS=+; echo "${names[*]}")
    mkdir -p "$OUT/$pair"
    ((TOUCH_MIB)) && touch_memory "$TOUCH_MIB"
    for dev in "${devs[@]}"; do blockdev --flushbufs "$dev"; traced+=(-d "$dev"); done
    log "$pair/$tag on ${devs[*]}: $*"
    boost_start "${devs[@]}"
    # The same job once untraced first: whatever a first run pays (tmpfs or host allocation,
    # caches, the loop worker) is paid by neither side, or A/A pairs differ by 2x here.
    "${RT[@]}" "$@" >/dev/null
    for dev in "${devs[@]}"; do blockdev --flushbufs "$dev"; done
    for try in 1 2 3; do
        rc=0
        "${RT[@]}" "$CAP" -q --backend "$BACKEND" "${traced[@]}" -o "$TMP/$pair-$tag" -- "$@" >/dev/null \
            2>"$TMP/cap.err" || rc=$?
        if ((rc)); then # events dropped (a slow reader, e.g. an ASan build) or the job failed
            log "$pair/$tag: blkreel-capture exit $rc (try $try of 3): $(tail -n 2 "$TMP/cap.err" | tr '\n' ' ')"
            continue
        fi
        if ((${#devs[@]} > 1)); then # one side's capture is already named for it
            for i in "${!devs[@]}"; do
                "$PARSE" --no-progress --dev "$(maj_min "${devs[i]}")" "$TMP/$pair-$tag.blktrace.gz" \
                    -o "$TMP/$pair-${names[i]}.blktrace.gz" ||
                    die "$pair: blkreel-parse could not split the capture by device"
            done
        fi
        # lost completions that no backend counted as drops (see the top of this file)
        lost=0
        for i in "${!names[@]}"; do
            lost=$((lost + $(never_completed "$TMP/$pair-${names[i]}.blktrace.gz")))
        done
        ((lost == 0)) && break
        log "$pair/$tag: $lost requests issued but never completed in the trace (try $try of 3)"
    done
    boost_stop
    ((rc == 0 && lost == 0)) || die "$pair/$tag: no complete capture in 3 tries"
    for i in "${!names[@]}"; do
        mv -f "$TMP/$pair-${names[i]}.blktrace.gz" "$OUT/$pair/${names[i]}.blktrace.gz"
    done
}

maj_min() { # maj_min DEV — its MAJ,MIN
    local hex
    hex=$(stat -L -c '%t %T' "$1")
    printf '%d,%d' "0x${hex% *}" "0x${hex#* }"
}

never_completed() { # never_completed TRACE — requests issued and not completed, by blkreel-report
    "$REPORT" "$1" --json "$TMP/check.json" >/dev/null
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["traces"][0]["pairing"]["never_completed"])' "$TMP/check.json"
}

# in_cgroup — make a blkio cgroup of this run's own (CGROUP; detach_all removes it) and set IN_CGROUP
# to the words that run a command inside it. Exit 3 when the kernel has no cgroup v1 blkio.
in_cgroup() {
    local root=/sys/fs/cgroup/blkio
    [[ -w $root/cgroup.procs && -e $root/blkio.throttle.write_iops_device ]] ||
        missing "cgroup v1 blkio with blk-throttle ($root)"
    CGROUP=$root/blkreel-pairs-$$
    mkdir "$CGROUP" || die "cannot make the cgroup $CGROUP"
    # shellcheck disable=SC2016 # $$ and $@ are the inner shell's
    IN_CGROUP=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CGROUP")
}
throttle_writes() { # throttle_writes DEV IOPS — cap the writes our cgroup sends to DEV
    local mm
    mm=$(maj_min "$1")
    echo "${mm/,/:} $2" >"$CGROUP/blkio.throttle.write_iops_device" ||
        die "cannot throttle $1 in $CGROUP"
}

fio_on() { # fio_on DEV ARGS... — the fio command line for a job on DEV
    FIO=(fio "${FIO_COMMON[@]}" --filename="$1" "${@:2}")
}
fio_both() { # fio_both DEV_A DEV_B ARGS... — one fio running the job on both devices at once
    FIO=(fio "${FIO_GLOBAL[@]}" "${@:3}" --name=a --filename="$1" --name=b --filename="$2")
}

run_pair() {
    local p=$1 LA LB
    case $p in
    concurrency)
        attach disk; LA=$L
        warm "$LA"
        fio_on "$LA" --rw=randread --bs=4k --direct=1 --ioengine=libaio "${TIMED[@]}"
        side "$p" a "$LA" "${FIO[@]}" --iodepth=16
        side "$p" b "$LA" "${FIO[@]}" --iodepth=1 ;;
    idle)
        attach ram; LA=$L
        fio_on "$LA" --rw=randread --bs=4k --direct=1 --ioengine=psync "${TIMED[@]}"
        side "$p" a "$LA" "${FIO[@]}"
        side "$p" b "$LA" "${FIO[@]}" --thinktime="$IDLE_THINK_US" ;;
    flush)
        attach ram; LA=$L
        fio_on "$LA" --rw=write --bs=4k --direct=1 --ioengine=psync "${TIMED[@]}"
        side "$p" a "$LA" "${FIO[@]}"
        side "$p" b "$LA" "${FIO[@]}" --fsync=1 ;;
    split)
        attach disk; LA=$L
        warm "$LA"
        fio_on "$LA" --rw=read --bs=512k --direct=1 --ioengine=libaio --iodepth=4 --size="${IMG_MIB}M" \
            "${TIMED[@]}"
        knob "$LA" max_sectors_kb 512
        side "$p" a "$LA" "${FIO[@]}"
        knob "$LA" max_sectors_kb 8
        side "$p" b "$LA" "${FIO[@]}" ;;
    io_size)
        attach ram; LA=$L
        fio_on "$LA" --rw=read --direct=1 --ioengine=psync --size="${IMG_MIB}M" "${TIMED[@]}"
        side "$p" a "$LA" "${FIO[@]}" --bs=64k
        side "$p" b "$LA" "${FIO[@]}" --bs=4k ;;
    merge)
        attach disk; LA=$L
        fio_on "$LA" --rw=write --bs=4k --direct=1 --ioengine=libaio --iodepth=32 \
            --iodepth_batch_submit=32 --iodepth_batch_complete_min=32 --size="${IMG_MIB}M" \
            "${TIMED[@]}"
        knob "$LA" nomerges 0
        side "$p" a "$LA" "${FIO[@]}"
        knob "$LA" nomerges 2
        side "$p" b "$LA" "${FIO[@]}" ;;
    readahead)
        attach ram "$BIG_MIB"; LA=$L
        TOUCH_MIB=$((2 * BIG_MIB))
        fio_on "$LA" --rw=read --bs=4k --direct=0 --ioengine=psync --invalidate=1 --size="${MIB}M"
        knob "$LA" read_ahead_kb 1024
        side "$p" a "$LA" "${FIO[@]}"
        knob "$LA" read_ahead_kb 0
        side "$p" b "$LA" "${FIO[@]}" ;;
    scheduler)
        attach disk; LA=$L
        grep -qw bfq "$Q/scheduler" || missing "no bfq scheduler for $LA"
        warm "$LA"
        knob "$LA" rotational 1
        fio_on "$LA" --rw=read --bs=4k --direct=1 --ioengine=psync --numjobs=4 \
            --offset_increment=$((IMG_MIB / 4))M --size=$((IMG_MIB / 4))M "${TIMED[@]}"
        knob "$LA" scheduler none
        side "$p" a "$LA" "${FIO[@]}"
        knob "$LA" scheduler bfq
        side "$p" b "$LA" "${FIO[@]}" ;;
    service_time)
        local lower_b
        attach ram; attach over "$L"; LA=$L
        attach ram; lower_b=$L; attach over "$L"; LB=$L
        in_cgroup
        throttle_writes "$lower_b" "$SLOW_WRITE_IOPS"
        fio_on "$LA" --rw=randwrite --bs=4k --direct=1 --ioengine=psync "${TIMED[@]}"
        side "$p" a "$LA" "${IN_CGROUP[@]}" "${FIO[@]}"
        fio_on "$LB" --rw=randwrite --bs=4k --direct=1 --ioengine=psync "${TIMED[@]}"
        side "$p" b "$LB" "${IN_CGROUP[@]}" "${FIO[@]}" ;;
    amplification)
        attach ram "$BIG_MIB"; LA=$L
        mkfs.ext4 -q -F -b 4096 "$LA"
        MNT=$TMP/mnt
        mkdir -p "$MNT"
        local opt s
        for s in a b; do
            [[ $s == a ]] && opt=data=ordered || opt=data=journal
            mount -t ext4 -o "$opt" "$LA" "$MNT"
            side "$p" "$s" "$LA" fio --output=/dev/null --name=job --directory="$MNT" --rw=write \
                --bs=4k --size="$((BIG_MIB / 4))M" --fsync=64 --end_fsync=1 --fallocate=none
            umount "$MNT"
        done
        MNT="" ;;
    aa_randread)
        attach ram; LA=$L
        attach ram; LB=$L
        fio_both "$LA" "$LB" --rw=randread --bs=4k --direct=1 --ioengine=psync "${TIMED[@]}"
        capture_sides "$p" "a=$LA" "b=$LB" -- "${FIO[@]}" ;;
    aa_qd4_writes)
        attach ram; LA=$L
        attach ram; LB=$L
        fio_both "$LA" "$LB" --rw=randwrite --bs=4k --direct=1 --ioengine=libaio --iodepth=4 \
            "${TIMED[@]}"
        capture_sides "$p" "a=$LA" "b=$LB" -- "${FIO[@]}" ;;
    rerun_randread)
        attach ram; LA=$L
        fio_on "$LA" --rw=randread --bs=4k --direct=1 --ioengine=libaio --iodepth=8 "${TIMED[@]}"
        side "$p" a "$LA" "${FIO[@]}"
        side "$p" b "$LA" "${FIO[@]}" ;;
    aa_buffered_read)
        attach ram "$BIG_MIB"; LA=$L
        attach ram "$BIG_MIB"; LB=$L
        TOUCH_MIB=$((4 * BIG_MIB))
        fio_both "$LA" "$LB" --rw=read --bs=4k --direct=0 --ioengine=psync --invalidate=1 --size="${MIB}M"
        knob "$LA" read_ahead_kb 32
        knob "$LB" read_ahead_kb 32
        capture_sides "$p" "a=$LA" "b=$LB" -- "${FIO[@]}" ;;
    sweep_host)
        attach ram; LA=$L
        fio_on "$LA" --rw=randwrite --bs=256k --direct=1 --ioengine=libaio --iodepth=2 --verify=sha3-512 --do_verify=0 --verify_state_save=0 \
            --cpus_allowed=0 --size="${IMG_MIB}M" "${TIMED[@]}"
        # the jobs at SCHED_FIFO like every side's, on CPU 0 alone: other work cannot take a
        # share of that CPU (beside two hogs, jobs at nice -19 took more of it the more they
        # were, and the knee moved between 1 and 2 jobs), and CPU 1 stays for the rest
        sweep "$p" "$LA" "${FIO[@]}" ;;
    sweep_disk)
        attach disk; LA=$L
        warm "$LA"
        fio_on "$LA" --rw=randread --bs=64k --direct=1 --ioengine=psync --size="${IMG_MIB}M" "${TIMED[@]}"
        sweep "$p" "$LA" "${FIO[@]}" ;;
    sweep_fsync)
        attach disk; LA=$L
        fsync_sweep "$p" "$LA" ;;
    sweep_nr_requests)
        attach disk; LA=$L
        warm "$LA"
        knob "$LA" scheduler none
        least_nr_requests "$LA"
        fio_on "$LA" --rw=randread --bs=4k --direct=1 --ioengine=psync --size="${IMG_MIB}M" "${TIMED[@]}"
        sweep "$p" "$LA" "${FIO[@]}" ;;
    esac
    TOUCH_MIB=0
    detach_all
}

sweep() { # sweep SWEEP DEV CMD... — capture CMD --numjobs=N for each N of SWEEP_JOBS, as jN
    local name=$1 dev=$2 n; shift 2
    for n in "${SWEEP_JOBS[@]}"; do
        side "$name" "j$n" "$dev" "$@" --numjobs="$n" --group_reporting
    done
}

fsync_sweep() { # fsync_sweep SWEEP DEV — ext4 on DEV, each job's 4 KiB writes to its own file, fsync after each
    local name=$1 dev=$2
    mkfs.ext4 -q -F -b 4096 "$dev"
    MNT=$TMP/mnt
    mkdir -p "$MNT"
    mount -t ext4 "$dev" "$MNT"
    sweep "$name" "$dev" fio "${FIO_GLOBAL[@]/--size=64M/--size=4M}" --name=job --directory="$MNT" --rw=write \
        --bs=4k --ioengine=psync --fsync=1 --fallocate=none "${TIMED[@]}"
    umount "$MNT"
    MNT=""
}

least_nr_requests() { # least_nr_requests DEV — its nr_requests at the least its queue takes, put back with the knobs
    # the value is remembered before the first try: remembering the tried one put back the least,
    # and detaching then reset nr_requests but left the driver tags at that depth (6.18)
    local path=/sys/block/${1#/dev/}/queue/nr_requests n
    KNOB_PATHS+=("$path") KNOB_VALUES+=("$(<"$path")")
    for n in 1 2 4 8; do
        echo "$n" >"$path" 2>/dev/null && return 0
    done
    die "$path takes none of 1, 2, 4, 8"
}

mbps() { # mbps JSON INDEX — throughput of one trace in blkreel-report's JSON
    python3 -c 'import json,sys; print("%.1f" % json.load(open(sys.argv[1]))["traces"][int(sys.argv[2])]["mbps"])' "$1" "$2"
}

for p in "${SELECTED[@]}"; do
    describe "$p"
    run_pair "$p"
    if [[ $p == sweep_* ]]; then
        args=()
        for n in "${SWEEP_JOBS[@]}"; do args+=(-l "${p#sweep_}:numjobs=$n" "$OUT/$p/j$n.blktrace.gz"); done
        "$REPORT" "${args[@]}" --json "$TMP/r.json" >/dev/null
        points=$(python3 -c 'import json,sys; print(" ".join("%.1f" % t["mbps"] for t in json.load(open(sys.argv[1]))["traces"]))' "$TMP/r.json")
        {
            echo "sweep:     $p"
            echo "varies:    $DIFF"
            echo "workload:  $WORKLOAD"
            echo "limit:     $EXPECT"
            echo "measured:  MB/s at numjobs ${SWEEP_JOBS[*]}: $points (blkreel-report's mbps)"
            echo "made by:   tests/report/pairs/make_pairs.sh$( ((QUICK)) && echo ' --quick') $p ($(date -u +%FT%TZ), kernel $(uname -r))"
        } >"$OUT/$p/README.txt"
        log "$p: MB/s $points"
        continue
    fi
    "$REPORT" -l a "$OUT/$p/a.blktrace.gz" -l b "$OUT/$p/b.blktrace.gz" --json "$TMP/r.json" >/dev/null
    ma=$(mbps "$TMP/r.json" 0) mb=$(mbps "$TMP/r.json" 1)
    ratio=$(python3 -c 'import sys; a,b=map(float,sys.argv[1:]); print("%.2f" % (a / b if b else float("inf")))' "$ma" "$mb")
    {
        echo "pair:      $p"
        echo "differs:   $DIFF"
        echo "workload:  $WORKLOAD"
        echo "first:     $EXPECT"
        echo "measured:  A $ma MB/s, B $mb MB/s (A/B $ratio, blkreel-report's mbps)"
        echo "made by:   tests/report/pairs/make_pairs.sh$( ((QUICK)) && echo ' --quick') $p ($(date -u +%FT%TZ), kernel $(uname -r))"
    } >"$OUT/$p/README.txt"
    log "$p: A $ma MB/s, B $mb MB/s, A/B $ratio"
done
