#!/usr/bin/env bash
# capture-all.sh — remake the workload samples with blkreel-capture: dbench (1 and 8 clients) and
# tiobench-like fio runs (sequential and random, read and write, 1 and 4 threads) on ext4 and on xfs,
# and a dbench sweep (1, 2, 4, 8, 16 clients) into samples/sweeps/dbench/,
# (and btrfs when mkfs.btrfs is installed), each on its own loop device over a sparse file in a
# temp dir. Writes samples/<fs>-<workload>.blktrace.gz (each kept under 4 MiB; the script fails
# if one is not) and prints a table for samples/README.md. Root only.
#   samples/capture-all.sh                 # every sample
#   ONLY='ext4-fio-*' samples/capture-all.sh   # a subset (shell pattern on the sample name)
#   ONLY='sweeps/dbench/*' samples/capture-all.sh
# It only writes to loop devices it created, holds the machine-wide tracer lock throughout, and
# unmounts, detaches and removes everything from an EXIT trap on every path.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CAP=${BLKREEL_BIN:-$ROOT/bin}/blkreel-capture
ONLY=${ONLY:-*}
MAX_BYTES=$((4 * 1024 * 1024))
DISK_MIB=1024

log() { printf '[capture-all] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

[[ $(id -u) -eq 0 ]] || die "must run as root"
[[ -x $CAP ]] || die "build first (make): $CAP is missing"
for c in losetup mkfs.ext4 mkfs.xfs mount umount fio dbench flock; do
    command -v "$c" >/dev/null || die "missing $c (apt-get install fio dbench xfsprogs)"
done
FILESYSTEMS=(ext4 xfs)
command -v mkfs.btrfs >/dev/null && FILESYSTEMS+=(btrfs)

exec 9>/run/lock/blkreel-tracer.lock
log "waiting for the tracer lock"
flock 9

TMP="" LOOP="" MNT=""
cleanup() {
    local rc=$?
    set +e
    trap - INT TERM HUP
    [[ -n $MNT ]] && mountpoint -q "$MNT" && { umount "$MNT" || umount -l "$MNT"; }
    [[ -n $LOOP ]] && losetup -d "$LOOP"
    [[ -n $TMP && -d $TMP ]] && rm -rf -- "$TMP"
    ((rc)) && log "failed (exit $rc); loop device, mount and temp dir removed"
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
TMP=$(mktemp -d /var/tmp/blkreel-samples.XXXXXX)

new_fs() { # new_fs FS — fresh loop device + filesystem, mounted at $MNT
    local fs=$1
    truncate -s "${DISK_MIB}M" "$TMP/$fs.img"
    LOOP=$(losetup --find --show "$TMP/$fs.img")
    [[ $LOOP == /dev/loop* ]] || die "unexpected loop device '$LOOP'"
    case $fs in
    ext4) mkfs.ext4 -q -F "$LOOP" ;;
    xfs) mkfs.xfs -q -f "$LOOP" ;;
    btrfs) mkfs.btrfs -q -f "$LOOP" ;;
    esac
    MNT=$TMP/mnt
    mkdir -p "$MNT"
    mount -t "$fs" "$LOOP" "$MNT"
}

drop_fs() {
    umount "$MNT"
    losetup -d "$LOOP"
    LOOP=""
    rm -f "$TMP"/*.img
}

# tiobench's defaults, scaled to a few seconds here: 4 KiB blocks, buffered IO, a file per thread,
# sequential write then read, then 4000 random writes and reads per thread.
fio_job() { # fio_job seq|rand THREADS — sets FIO_CMD
    local kind=$1 threads=$2
    local size=$((64 / threads))M
    local common=(--directory="$MNT" --bs=4k --numjobs="$threads" --size="$size" --group_reporting
                  --output=/dev/null --fallocate=none)
    if [[ $kind == seq ]]; then
        FIO_CMD=(fio --name=seqwrite --rw=write --end_fsync=1 "${common[@]}"
                 --name=seqread --stonewall --rw=read --invalidate=1 "${common[@]}")
    else
        FIO_CMD=(fio --name=randwrite --rw=randwrite --number_ios=4000 --end_fsync=1 "${common[@]}"
                 --name=randread --stonewall --rw=randread --number_ios=4000 --invalidate=1 "${common[@]}")
    fi
}

declare -a TABLE
capture() { # capture NAME CMD...
    local name=$1; shift
    (($#)) || die "$name: no command"
    [[ $name == $ONLY ]] || return 0
    log "$name: $*"
    local out=$TMP/${name//\//-}
    "$CAP" -q -l 9 -d "$LOOP" -o "$out" -- "$@" >/dev/null
    local size events
    size=$(stat -c %s "$out.blktrace.gz")
    ((size < MAX_BYTES)) || die "$name is $size bytes (limit $MAX_BYTES): shorten the workload"
    events=$(zcat "$out.blktrace.gz" | blkparse -i - 2>/dev/null | grep -c '^ *[0-9]*,[0-9]' || true)
    mkdir -p "$(dirname "$HERE/$name")"
    mv -f "$out.blktrace.gz" "$HERE/$name.blktrace.gz"
    TABLE+=("| \`$name.blktrace.gz\` | $size | $events | \`$*\` |")
    rm -rf "${MNT:?}"/* && sync
}

for fs in "${FILESYSTEMS[@]}"; do
    new_fs "$fs"
    log "$fs on $LOOP"
    capture "$fs-dbench-1c" dbench -D "$MNT" -t 3 1
    capture "$fs-dbench-8c" dbench -D "$MNT" -t 3 8
    # a sweep of clients, captured together (blkreel-report's sweep report, blkreel-plot --sweep), 1 s a
    # point to keep the ten files small
    for c in 1 2 4 8 16; do
        capture "sweeps/dbench/$fs-${c}c" dbench -D "$MNT" -t 1 "$c"
    done
    for kind in seq rand; do
        for t in 1 4; do
            fio_job "$kind" "$t"
            capture "$fs-fio-$kind-${t}t" "${FIO_CMD[@]}"
        done
    done
    drop_fs
done

total=$(cat "$HERE"/*-dbench-*.blktrace.gz "$HERE"/*-fio-*.blktrace.gz "$HERE"/sweeps/*/*.blktrace.gz 2>/dev/null | wc -c)
log "samples in $HERE: $total bytes in total"
((total < 20 * 1024 * 1024)) || die "samples total $total bytes, over 20 MiB"
printf '%s\n' "| file | bytes | events | command (MNT = the mounted loop device) |" "| --- | --- | --- | --- |"
printf '%s\n' "${TABLE[@]}" | sed "s#$MNT#MNT#g"
