#!/usr/bin/env bash
# capture_soak.sh — many short captures per backend, each file compared IO by IO with what its
# capture said: a completion missing from the file (a D with no C of the same device, sector and
# size) must be one the completion check counted (the drops record's unrecorded=N), never a
# silent one. Root, not in CI (it takes about N x 4 s per backend).
#   tests/bench/capture_soak.sh                 (N=100 captures per backend)
#   N=15 BACKENDS="bpf perf" tests/bench/capture_soak.sh
# Jobs vary with the capture's index: fio libaio O_DIRECT, 4 KiB (captures 0-11, 24-35, ...) or
# 64 KiB, queue depth 1, 4, 16 or 32, random reads, random writes or a 70/30 mix, for 2 s;
# every third capture traces two loop devices at once (one fio job per device); every other capture runs beside two `yes` hogs.
# Table per backend: captures, events, missing completions, unrecorded, silent (missing beyond
# unrecorded: the goal is 0), drops, late, exit codes. Holds the tracer lock throughout; creates
# and always detaches its own loop devices over files in /dev/shm.
set -euo pipefail
N=${N:-100}
read -r -a BACKENDS <<<"${BACKENDS:-bpf perf tracefs}"
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${BLKREEL_BIN:-$HERE/bin}
CAP=$BIN/blkreel-capture PARSE=$BIN/blkreel-parse
[[ $(id -u) -eq 0 ]] || { echo "capture_soak.sh: needs root" >&2; exit 1; }
[[ -x $CAP && -x $PARSE ]] || { echo "capture_soak.sh: build first (make)" >&2; exit 1; }
command -v fio >/dev/null || { echo "capture_soak.sh: needs fio" >&2; exit 1; }

exec 9>/run/lock/blkreel-tracer.lock
flock 9

TMP="" LOOPS=() SHMS=() HOGS=()
stop_hogs() {
    local p
    for p in "${HOGS[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
    HOGS=()
    return 0
}
cleanup() {
    set +e
    stop_hogs
    local l f
    for l in "${LOOPS[@]}"; do losetup -d "$l"; done
    for f in "${SHMS[@]}"; do rm -f "$f"; done
    [[ -n $TMP ]] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

TMP=$(mktemp -d /var/tmp/blkreel-soak.XXXXXX)
for i in 0 1; do
    f=$(mktemp /dev/shm/blkreel-soak.XXXXXX)
    SHMS+=("$f")
    truncate -s 256M "$f"
    l=$(losetup --find --show "$f")
    [[ $l == /dev/loop* ]] || { echo "unexpected loop device $l" >&2; exit 1; }
    LOOPS+=("$l")
done

QDS=(1 4 16 32)
RWS=(randread randwrite randrw)
BSS=(4k 64k)

# missing FILE: completions missing IO by IO (D minus C per device, sector and size, never below 0)
missing() {
    "$PARSE" "$1" | awk '$6 == "D" || $6 == "C" {
        k = $1 " " $8 " " $10
        n[k] += ($6 == "D") ? 1 : -1
    } END { m = 0; for (k in n) if (n[k] > 0) m += n[k]; print m }'
}

printf '%-8s %4s %9s %5s %4s %5s %4s %6s %5s %s\n' backend runs events D-C lost unrec drops late silent exits
for be in "${BACKENDS[@]}"; do
    events=0 miss=0 unrec=0 drops=0 late=0 silent=0 runs=0
    declare -A exits=()
    for ((k = 0; k < N; k++)); do
        qd=${QDS[k % 4]} rw=${RWS[(k / 4) % 3]} bs=${BSS[(k / 12) % 2]}
        ndev=1
        ((k % 3 == 2)) && ndev=2
        if ((k % 2)); then
            yes >/dev/null &
            HOGS+=($!)
            yes >/dev/null &
            HOGS+=($!)
        fi
        jobs=()
        for ((d = 0; d < ndev; d++)); do
            jobs+=(--name="j$d" --filename="${LOOPS[d]}" --rw="$rw" --rwmixread=70 --bs="$bs" --iodepth="$qd"
                --ioengine=libaio --direct=1 --runtime=2 --time_based)
        done
        devs=()
        for ((d = 0; d < ndev; d++)); do devs+=(-d "${LOOPS[d]}"); done
        out=$TMP/c.blktrace.gz
        rm -f "$out"
        rc=0
        "$CAP" --backend "$be" -o "$out" "${devs[@]}" -- fio "${jobs[@]}" --output=/dev/null \
            >/dev/null 2>"$TMP/err" || rc=$?
        stop_hogs
        exits[$rc]=$((${exits[$rc]:-0} + 1))
        runs=$((runs + 1))
        [[ -s $out ]] || { echo "$be #$k: no file (exit $rc): $(tail -n 2 "$TMP/err")" >&2; continue; }
        ev=$(sed -n 's/.* backend, [0-9.]* s: \([0-9]*\) events.*/\1/p' "$TMP/err")
        lt=$(sed -n 's/.*, \([0-9]*\) late beyond.*/\1/p' "$TMP/err")
        dr=$(sed -n 's/^blkreel-capture: drops: //p' "$TMP/err" |
            awk '{ s = 0; for (i = 1; i <= NF; i++) if ($i ~ /^cpu[0-9]+=|^bad=/) { split($i, a, "="); s += a[2] } print s }')
        ur=$(sed -n 's/^blkreel-capture: drops: .* unrecorded=\([0-9]*\).*/\1/p' "$TMP/err")
        m=$(missing "$out")
        ev=${ev:-0} lt=${lt:-0} dr=${dr:-0} ur=${ur:-0}
        # unrecorded counts every completion the device made that no C record shows, dropped
        # records included: a missing completion beyond it is a silent loss
        s=$((m - ur))
        ((s > 0)) || s=0
        ((s == 0)) || echo "$be #$k (qd $qd $rw $bs, $ndev dev, hogs $((k % 2))): $m missing, unrecorded $ur, drops $dr" >&2
        events=$((events + ev)) miss=$((miss + m)) unrec=$((unrec + ur)) drops=$((drops + dr))
        late=$((late + lt)) silent=$((silent + s))
        [[ $ur == 0 ]] || lost=$((${lost:-0} + 1))
    done
    codes=""
    for c in "${!exits[@]}"; do codes+="$c:${exits[$c]} "; done
    printf '%-8s %4d %9d %5d %4d %5d %4d %6d %5d %s\n' "$be" "$runs" "$events" "$miss" "${lost:-0}" "$unrec" \
        "$drops" "$late" "$silent" "$codes"
    unset exits lost
done
echo "(D-C: completions missing from the files, IO by IO; lost: captures with unrecorded > 0;"
echo " unrec: completions the check counted; silent: missing beyond unrecorded, want 0;"
echo " exits: exit status:count)"
