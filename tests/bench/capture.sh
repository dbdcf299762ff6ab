#!/usr/bin/env bash
# capture.sh — what tracing costs: fio 4 KiB random reads, queue depth 32, libaio, O_DIRECT, on a
# loop device over a file in /dev/shm (RAM-backed), untraced and under each blkreel-capture backend
# and Debian's blktrace (where it works). Rounds alternate (the machine is shared and noisy); the
# table shows the median IOPS of each, its loss against untraced, events captured and drops.
#   tests/bench/capture.sh            (root; ROUNDS=3 SECONDS_PER_RUN=8 by default)
# Holds the machine-wide tracer lock throughout; creates and always detaches its own loop device.
set -euo pipefail
ROUNDS=${ROUNDS:-3}
RUNTIME=${SECONDS_PER_RUN:-8}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CAP=${BLKREEL_BIN:-$HERE/bin}/blkreel-capture
[[ $(id -u) -eq 0 ]] || { echo "capture.sh: needs root" >&2; exit 1; }
[[ -x $CAP ]] || { echo "capture.sh: build first (make): $CAP missing" >&2; exit 1; }
command -v fio >/dev/null || { echo "capture.sh: needs fio" >&2; exit 1; }

exec 9>/run/lock/blkreel-tracer.lock
flock 9

TMP="" LOOP="" SHM="" DEBUGFS_MOUNTED=0
cleanup() {
    set +e
    ((DEBUGFS_MOUNTED)) && umount /sys/kernel/debug
    [[ -n $LOOP ]] && losetup -d "$LOOP"
    [[ -n $SHM ]] && rm -f "$SHM"
    [[ -n $TMP ]] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

TMP=$(mktemp -d /var/tmp/blkreel-bench.XXXXXX)
SHM=$(mktemp /dev/shm/blkreel-bench.XXXXXX)
truncate -s 1G "$SHM"
dd if=/dev/urandom of="$SHM" bs=1M count=1024 conv=notrunc status=none
LOOP=$(losetup --find --show "$SHM")
[[ $LOOP == /dev/loop* ]] || { echo "unexpected loop device $LOOP" >&2; exit 1; }

fio_iops() { # prints read IOPS (terse field 8)
    fio --name=randread --filename="$LOOP" --rw=randread --bs=4k --iodepth=32 --ioengine=libaio \
        --direct=1 --runtime="$RUNTIME" --time_based --minimal 2>/dev/null | awk -F';' '{print $8}'
}

declare -A IOPS EVENTS DROPS NOTE
MODES=(none perf tracefs blktrace)
run_mode() { # run_mode MODE -> appends IOPS
    local m=$1 out=$TMP/$m.err iops
    case $m in
    none) iops=$(fio_iops) ;;
    perf|tracefs)
        "$CAP" --backend "$m" --allow-drops --no-progress -d "$LOOP" -o "$TMP/$m" -- \
            bash -c "$(declare -f fio_iops); LOOP=$LOOP RUNTIME=$RUNTIME fio_iops >$TMP/$m.iops" 2>"$out" || {
            NOTE[$m]="failed: $(tail -1 "$out")"; return; }
        iops=$(cat "$TMP/$m.iops")
        EVENTS[$m]="${EVENTS[$m]:-} $(sed -n 's/.*s: \([0-9]*\) events.*/\1/p' "$out")"
        DROPS[$m]="${DROPS[$m]:-} $(sed -n 's/^blkreel-capture: drops: //p' "$out" | tr ' ' ',')"
        ;;
    blktrace)
        command -v blktrace >/dev/null || { NOTE[$m]="not installed"; return; }
        if ! mountpoint -q /sys/kernel/debug; then # blktrace needs it; put back in cleanup
            mount -t debugfs nodev /sys/kernel/debug && DEBUGFS_MOUNTED=1
        fi
        blktrace -d "$LOOP" -o - >"$TMP/bt.bin" 2>"$out" &
        local bt=$!
        sleep 1
        # Under lockdown blktrace cannot open the relay files but keeps running, tracing nothing.
        if ! kill -0 "$bt" 2>/dev/null || grep -qiE 'failed|not permitted' "$out"; then
            kill -INT "$bt" 2>/dev/null; wait "$bt" || true
            NOTE[$m]="fails here: $(grep -m1 -v '^$' "$out" || echo "exited")"
            return
        fi
        iops=$(fio_iops)
        kill -INT "$bt"; wait "$bt" || true
        ;;
    esac
    IOPS[$m]="${IOPS[$m]:-} $iops"
}

for r in $(seq "$ROUNDS"); do
    for m in "${MODES[@]}"; do
        [[ -n ${NOTE[$m]:-} ]] && continue
        run_mode "$m"
        echo "round $r $m: ${IOPS[$m]:-}${NOTE[$m]:-}" >&2
    done
done

median() { tr ' ' '\n' | { grep -v '^$' || true; } | sort -n | awk '{a[NR]=$1} END {if (NR) printf "%.0f\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); else print ""}'; }
base=$(echo "${IOPS[none]}" | median)
echo
echo "fio randread 4 KiB QD32 libaio O_DIRECT, ${RUNTIME} s x $ROUNDS rounds, $LOOP over /dev/shm, $(nproc) CPUs, kernel $(uname -r)"
echo "IOPS per round: $(for m in "${MODES[@]}"; do [[ -n ${NOTE[$m]:-} ]] || printf '%s:%s ' "$m" "$(echo ${IOPS[$m]} | tr ' ' ',')"; done)"
# The machine is shared: untraced IOPS drift between rounds. "paired loss" compares each traced
# run with the untraced run of the same round, then takes the median over rounds.
paired() { # paired MODE -> median of per-round (1 - traced/untraced), in %
    local -a a b
    read -r -a a <<<"${IOPS[none]}"
    read -r -a b <<<"${IOPS[$1]}"
    for i in "${!b[@]}"; do awk -v x="${a[$i]}" -v y="${b[$i]}" 'BEGIN { printf "%.1f ", (x - y) * 100 / x }'; done | median
}
printf '%-10s %12s %8s %12s %14s  %s\n' mode "IOPS(median)" loss "paired loss" "events/run" "drops per run / note"
for m in "${MODES[@]}"; do
    if [[ -n ${NOTE[$m]:-} ]]; then printf '%-10s %12s %8s %12s %14s  %s\n' "$m" - - - - "${NOTE[$m]}"; continue; fi
    med=$(echo "${IOPS[$m]}" | median)
    loss=$(awk -v a="$base" -v b="$med" 'BEGIN { printf "%.1f%%", (a - b) * 100 / a }')
    pl=$([[ $m == none ]] && echo 0 || paired "$m")
    ev=$(echo "${EVENTS[$m]:-}" | median)
    printf '%-10s %12.0f %8s %11s%% %14s  %s\n' "$m" "$med" "$loss" "$pl" "${ev:--}" "${DROPS[$m]:-}"
done
