#!/usr/bin/env bash
# capture-ftrace-sample.sh — capture a small, real block trace of an ext4 filesystem on a
# loop device with the ftrace "blk" tracer (blktrace's relay files are refused under kernel
# lockdown; the ftrace tracer is not). Must run as root. Writes the per-CPU set
#   samples/NAME.blktrace.0 .. samples/NAME.blktrace.<ncpu-1>   (raw blk_io_trace v7 records)
#   samples/NAME.pids                                           (pid -> comm of the workload)
# next to this script. NAME defaults to ext4-loop; override with SAMPLE_NAME=...
#
# It only ever writes to a loop device it created over a file it created, and it puts back
# everything it changed (device trace/enable, current_tracer, options/bin, options/context-info,
# the mount, the loop device, the temp dir) from an EXIT trap, on every path. It holds the
# machine-wide tracer lock for the whole run: the blk tracer is one per machine.
set -euo pipefail

NAME=${SAMPLE_NAME:-ext4-loop}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
T=/sys/kernel/tracing
FILE_MIB=256

log() { printf '[capture] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ $(id -u) -eq 0 ]] || die "must run as root"
for c in losetup mkfs.ext4 mount umount dd fallocate flock mountpoint; do
    command -v "$c" >/dev/null || die "missing $c"
done

# ---- the machine-wide tracer lock (shared with tests and experiments) -----------------------
exec 9>/run/lock/blkreel-tracer.lock
log "waiting for /run/lock/blkreel-tracer.lock"
flock 9
log "holding the tracer lock"

# ---- state we must put back -----------------------------------------------------------------
TMP="" LOOP="" MNT="" DEVENABLE="" READERS=()
SAVED_TRACER="" SAVED_BIN="" SAVED_CTX="" TRACING_TOUCHED=0

cleanup() {
    local rc=$?
    set +e
    trap - INT TERM HUP
    if ((${#READERS[@]})); then
        kill "${READERS[@]}" 2>/dev/null
        wait "${READERS[@]}" 2>/dev/null
    fi
    if [[ -n $DEVENABLE && -e $DEVENABLE ]]; then
        echo 0 >"$DEVENABLE" 2>/dev/null || log "warning: could not write 0 to $DEVENABLE"
    fi
    if ((TRACING_TOUCHED)); then
        echo "${SAVED_TRACER:-nop}" >"$T/current_tracer" || log "warning: could not restore current_tracer"
        [[ -n $SAVED_BIN ]] && { echo "$SAVED_BIN" >"$T/options/bin" || log "warning: could not restore options/bin"; }
        [[ -n $SAVED_CTX ]] && { echo "$SAVED_CTX" >"$T/options/context-info" || log "warning: could not restore options/context-info"; }
    fi
    if [[ -n $MNT ]] && mountpoint -q "$MNT"; then
        umount "$MNT" || umount -l "$MNT" || log "warning: could not unmount $MNT"
    fi
    if [[ -n $LOOP ]]; then
        losetup -d "$LOOP" || log "warning: could not detach $LOOP"
    fi
    if [[ -n $TMP && -d $TMP ]]; then
        rm -rf -- "$TMP"
    fi
    if ((rc)); then log "failed (exit $rc); machine state restored"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---- tracefs ---------------------------------------------------------------------------------
if ! mountpoint -q "$T"; then
    mount -t tracefs nodev "$T"
    log "tracefs was not mounted: mounted it at $T (left mounted afterwards)"
fi
[[ -w $T/current_tracer ]] || die "$T/current_tracer not writable"
grep -qw blk "$T/available_tracers" || die "kernel has no blk tracer (CONFIG_BLK_DEV_IO_TRACE)"
[[ $(cat "$T/current_tracer") == nop ]] || die "current_tracer is $(cat "$T/current_tracer"), not nop: someone is tracing without the lock"
# Anything else in the ring buffer would be emitted in its own binary layout and corrupt the
# blk_io_trace stream: refuse to run if trace events are enabled.
if [[ -s $T/set_event ]] && grep -q . "$T/set_event"; then
    die "trace events are enabled in $T/set_event; they would mix into the binary stream"
fi

# ---- scratch filesystem on a loop device we create ------------------------------------------
TMP=$(mktemp -d /var/tmp/blkreel-capture.XXXXXX)
truncate -s "${FILE_MIB}M" "$TMP/disk.img"
LOOP=$(losetup --find --show "$TMP/disk.img")
[[ $LOOP == /dev/loop* ]] || die "unexpected loop device '$LOOP'"
DEV=${LOOP#/dev/}
log "created $LOOP over $TMP/disk.img (${FILE_MIB} MiB, sparse)"
mkfs.ext4 -q -F -L blkreel "$LOOP"
MNT=$TMP/mnt
mkdir "$MNT"
mount -t ext4 "$LOOP" "$MNT"
DISCARD_MAX=$(cat "/sys/block/$DEV/queue/discard_max_bytes" 2>/dev/null || echo 0)
log "mounted $LOOP on $MNT (scheduler: $(cat /sys/block/$DEV/queue/scheduler 2>/dev/null), discard_max_bytes: $DISCARD_MAX)"

# ---- start tracing ---------------------------------------------------------------------------
DEVENABLE=/sys/block/$DEV/trace/enable
SAVED_TRACER=$(cat "$T/current_tracer")
SAVED_BIN=$(cat "$T/options/bin")
SAVED_CTX=$(cat "$T/options/context-info")
TRACING_TOUCHED=1
[[ $(cat "$T/tracing_on") == 1 ]] || die "tracing_on is 0"

echo 1 >"$DEVENABLE"
echo blk >"$T/current_tracer" # switching the tracer also empties the ring buffers
echo 1 >"$T/options/bin"
echo 0 >"$T/options/context-info"

OUT=$TMP/out
mkdir "$OUT"
CPUS=()
for d in "$T"/per_cpu/cpu*; do CPUS+=("${d##*/cpu}"); done
mapfile -t CPUS < <(printf '%s\n' "${CPUS[@]}" | sort -n)
for k in "${CPUS[@]}"; do
    cat "$T/per_cpu/cpu$k/trace_pipe" >"$OUT/$NAME.blktrace.$k" &
    READERS+=($!)
done
log "blk tracer on $DEV; ${#CPUS[@]} per-CPU readers: ${READERS[*]}"
sleep 0.5

# ---- the workload ----------------------------------------------------------------------------
# Each step runs in its own process; its pid and comm go to NAME.pids, since raw ftrace output
# carries pids but no process-name records.
PIDS=$OUT/$NAME.pids
echo "# pid comm step  (workload processes of this capture; step - = other pid seen in the trace, comm from ps)" >"$PIDS"
run() { # run STEP CMD... — in a subshell that logs its pid, then execs CMD
    local step=$1; shift
    (echo "$BASHPID ${1##*/} $step" >>"$PIDS"; exec "$@")
}

log "1: buffered writes + fsync (dd conv=fsync, 4 MiB in 64 KiB writes)"
run buffered-fsync dd if=/dev/zero of="$MNT/buffered.bin" bs=64k count=64 conv=fsync status=none

log "2: many small files (cp -a of /usr/include/linux, about 750 files) + sync -f"
run small-files cp -a /usr/include/linux "$MNT/include-linux"
run sync-f sync -f "$MNT"

log "3: three concurrent O_DIRECT writers, 4 KiB at known file offsets"
run prealloc fallocate -l 4M "$MNT/direct.bin"
run direct-w0 dd if=/dev/zero of="$MNT/direct.bin" bs=4k count=96 seek=0 oflag=direct conv=notrunc status=none &
w0=$!
run direct-w1 dd if=/dev/zero of="$MNT/direct.bin" bs=4k count=96 seek=256 oflag=direct conv=notrunc status=none &
w1=$!
run direct-w2 dd if=/dev/zero of="$MNT/direct.bin" bs=16k count=24 seek=128 oflag=direct conv=notrunc status=none &
w2=$!
wait "$w0" "$w1" "$w2"

log "4: O_DIRECT reads of the raw device at known LBAs (sectors 2048, 16384, 262144, 409600) and 1 MiB in 128 KiB reads"
for blk4k in 256 2048 32768 51200; do # 4 KiB blocks -> sector = blk4k*8
    run "raw-read-4k@$((blk4k * 8))" dd if="$LOOP" of=/dev/null bs=4k count=1 skip="$blk4k" iflag=direct status=none
done
run raw-read-128k dd if="$LOOP" of=/dev/null bs=128k count=8 skip=400 iflag=direct status=none

log "5: sequential buffered read with readahead (8 MiB written, fsynced, its page cache dropped)"
run seq-write dd if=/dev/zero of="$MNT/seq.bin" bs=1M count=8 conv=fsync status=none
run drop-cache dd if="$MNT/seq.bin" iflag=nocache count=0 status=none
run seq-read cat "$MNT/seq.bin" >/dev/null

log "6: O_DIRECT reads of the direct file, then delete files and discard"
run direct-read dd if="$MNT/direct.bin" of=/dev/null bs=32k count=32 iflag=direct status=none
rm -rf "$MNT/include-linux" "$MNT/buffered.bin"
run sync-rm sync -f "$MNT"
if ((DISCARD_MAX > 0)) && command -v fstrim >/dev/null; then
    run fstrim fstrim -v "$MNT" >&2
else
    log "   $DEV does not support discard (or no fstrim): skipped"
fi

ps -eo pid=,comm= >"$TMP/ps.before-umount" # jbd2/loopN-8 exits at unmount
log "7: unmount (journal commit and superblock write: flush/FUA)"
run umount umount "$MNT"

# ---- stop, drain, collect -------------------------------------------------------------------
sleep 0.5
for _ in $(seq 50); do # wait until the readers have consumed every per-CPU buffer
    left=0
    for k in "${CPUS[@]}"; do
        e=$(awk '/^entries:/ {print $2}' "$T/per_cpu/cpu$k/stats")
        left=$((left + e))
    done
    ((left == 0)) && break
    sleep 0.2
done
((left == 0)) || log "warning: $left entries still unread in the ring buffer"
STATS=$(for k in "${CPUS[@]}"; do
    printf 'cpu%s: %s\n' "$k" "$(grep -E '^(overrun|dropped events|read events):' "$T/per_cpu/cpu$k/stats" | tr '\n' ' ')"
done)
kill "${READERS[@]}" 2>/dev/null || true
wait "${READERS[@]}" 2>/dev/null || true
READERS=()
echo 0 >"$DEVENABLE"
echo "$SAVED_TRACER" >"$T/current_tracer"
echo "$SAVED_BIN" >"$T/options/bin"
echo "$SAVED_CTX" >"$T/options/context-info"
TRACING_TOUCHED=0
log "tracing stopped and restored; ring buffer stats:"
printf '%s\n' "$STATS" >&2
if grep -Eq 'overrun: [1-9]|dropped events: [1-9]' <<<"$STATS"; then
    die "events were lost (overrun/dropped): not keeping this capture"
fi

# ---- name the other pids seen in the trace (kernel threads: jbd2, kworkers, ksoftirqd) ------
# blk_io_trace v7: magic seq time sector bytes action pid@32 device cpu error pdu_len@46, 48 bytes
ps -eo pid=,comm= >"$TMP/ps.after"
perl -e 'for my $f (@ARGV) { open(my $fh, "<:raw", $f) or die "$f: $!";
           while (read($fh, my $h, 48) == 48) { my ($pid) = unpack("x32 L<", $h);
             my ($pl) = unpack("x46 S<", $h); read($fh, my $pdu, $pl) if $pl; $seen{$pid}++ } }
         print "$_\n" for sort { $a <=> $b } keys %seen' "$OUT/$NAME".blktrace.* >"$TMP/pids.seen"
while read -r pid; do
    grep -q "^$pid " "$PIDS" && continue
    comm=$(awk -v p="$pid" '$1 == p { print $2; exit }' "$TMP/ps.before-umount" "$TMP/ps.after")
    echo "$pid ${comm:-?} -" >>"$PIDS"
done <"$TMP/pids.seen"

# ---- install the set next to this script (only on success) ----------------------------------
total=0
for k in "${CPUS[@]}"; do total=$((total + $(stat -c %s "$OUT/$NAME.blktrace.$k"))); done
((total > 0)) || die "the capture is empty"
rm -f -- "$HERE/$NAME".blktrace.* "$HERE/$NAME.pids"
cp -- "$OUT/$NAME".blktrace.* "$OUT/$NAME.pids" "$HERE/"
log "wrote $HERE/$NAME.blktrace.{$(IFS=,; echo "${CPUS[*]}")} ($total bytes) and $NAME.pids"
ls -l "$HERE/$NAME".blktrace.* >&2
