#!/usr/bin/env bash
# rerun_spread.sh — how far apart the same job comes out when captured twice in a row on this
# host: the bound a single-pair diagnosis (two captures, one run per side) must clear before a
# cause that rests only on a timing shift (service time, idle) counts as confirmed.
#   tests/bench/rerun_spread.sh               (root; ROUNDS=6 captures per job, RUN_S=3 s each)
#   HOGS=1 tests/bench/rerun_spread.sh        (every other capture beside two `yes` hogs)
# For each job, ROUNDS captures one after the other, as a user would make them (no pinning, no
# priority), then blkreel-report on every consecutive pair. Per pair it prints the ratio of mean
# data D2C (R), of device utilisation (U) and of MB/s, each as max/min (>= 1), and the first cause
# the report gave; per job the largest of each. Writes only to loop devices it creates over files
# it creates (/dev/shm, and /var/tmp for the disk-backed one); holds the machine-wide tracer lock.
set -euo pipefail
ROUNDS=${ROUNDS:-6}
RUN_S=${RUN_S:-3}
HOGS=${HOGS:-0}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${BLKREEL_BIN:-$HERE/bin}
CAP=$BIN/blkreel-capture REPORT=$BIN/blkreel-report
[[ $(id -u) -eq 0 ]] || { echo "rerun_spread.sh: needs root" >&2; exit 1; }
for t in "$CAP" "$REPORT"; do [[ -x $t ]] || { echo "rerun_spread.sh: build first (make): $t missing" >&2; exit 1; }; done
command -v fio >/dev/null || { echo "rerun_spread.sh: needs fio" >&2; exit 1; }
command -v python3 >/dev/null || { echo "rerun_spread.sh: needs python3" >&2; exit 1; }

exec 9>/run/lock/blkreel-tracer.lock
flock 9

W="" DISKW="" LOOPS=() HOG_PIDS=()
hogs_stop() {
    local p
    for p in "${HOG_PIDS[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
    HOG_PIDS=()
}
cleanup() {
    set +e
    hogs_stop
    local l
    for l in "${LOOPS[@]}"; do losetup -d "$l"; done
    [[ -n $W ]] && rm -rf "$W"
    [[ -n $DISKW ]] && rm -rf "$DISKW"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

W=$(mktemp -d /dev/shm/blkreel-rerun.XXXXXX)
DISKW=$(mktemp -d /var/tmp/blkreel-rerun.XXXXXX)
dd if=/dev/zero of="$W/ram.img" bs=1M count=256 status=none
dd if=/dev/zero of="$DISKW/disk.img" bs=1M count=256 conv=fsync status=none
RAM=$(losetup --find --show "$W/ram.img"); LOOPS+=("$RAM")
DISK=$(losetup --find --show --direct-io=on "$DISKW/disk.img"); LOOPS+=("$DISK")
[[ $RAM == /dev/loop* && $DISK == /dev/loop* ]] || { echo "unexpected loop devices $RAM $DISK" >&2; exit 1; }

JOBS=(ram_randread_qd8 ram_randwrite_qd4 ram_randread_qd1 disk_randread_qd1)
job_args() { # job_args NAME — the device and fio arguments of a job
    case $1 in
    ram_randread_qd8) echo "$RAM --rw=randread --ioengine=libaio --iodepth=8" ;;
    ram_randwrite_qd4) echo "$RAM --rw=randwrite --ioengine=libaio --iodepth=4" ;;
    ram_randread_qd1) echo "$RAM --rw=randread --ioengine=psync" ;;
    disk_randread_qd1) echo "$DISK --rw=randread --ioengine=psync" ;;
    esac
}

echo "rerun_spread: $ROUNDS captures per job, ${RUN_S} s each, hogs=$HOGS, $(date -u +%FT%TZ), commit $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo '?')"
printf '%-18s %5s %7s %7s %7s  %s\n' job pair R U MB/s "first cause (single-pair report)"
for job in "${JOBS[@]}"; do
    read -r dev rest <<<"$(job_args "$job")"
    read -ra args <<<"$rest"
    fio=(fio --output=/dev/null --name=j --filename="$dev" --bs=4k --direct=1 --time_based --runtime="$RUN_S" "${args[@]}")
    "${fio[@]}" # once untraced: what a first run pays is paid by no capture
    for ((i = 1; i <= ROUNDS; i++)); do
        if ((HOGS && i % 2)); then yes >/dev/null & HOG_PIDS+=($!); yes >/dev/null & HOG_PIDS+=($!); fi
        "$CAP" -q --allow-drops -d "$dev" -o "$W/$job-$i" -- "${fio[@]}" >/dev/null 2>"$W/cap.err" ||
            { echo "capture of $job round $i failed: $(tail -n 2 "$W/cap.err")" >&2; exit 1; }
        hogs_stop
    done
    for ((i = 2; i <= ROUNDS; i++)); do
        "$REPORT" -l a "$W/$job-$((i - 1)).blktrace.gz" -l b "$W/$job-$i.blktrace.gz" --json "$W/r.json" >/dev/null
        python3 - "$W/r.json" "$job" "$((i - 1))-$i" >>"$W/$job.rows" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
idn = r["diagnosis_detail"]["identity"]
b, w = idn["better"], idn["worse"]
def ratio(x, y): return max(x, y) / min(x, y) if min(x, y) > 0 else float("inf")
rr, uu, xx = ratio(b["R_ns"], w["R_ns"]), ratio(b["U"], w["U"]), ratio(b["mbps"], w["mbps"])
d = r["diagnosis"]
first = "%s %.2f" % (d[0]["cause"], d[0]["share"]) if d else "-"
print("%-18s %5s %7.2f %7.2f %7.2f  %s" % (sys.argv[2], sys.argv[3], rr, uu, xx, first))
PY
    done
    cat "$W/$job.rows"
    awk -v j="$job" '{ if ($3 > r) r = $3; if ($4 > u) u = $4; if ($5 > x) x = $5 }
        END { printf "%-18s %5s %7.2f %7.2f %7.2f  (largest)\n", j, "max", r, u, x }' "$W/$job.rows"
done
