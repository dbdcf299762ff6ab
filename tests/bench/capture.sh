#!/usr/bin/env bash
# capture.sh — what tracing costs: fio 4 KiB random reads, queue depth 32, libaio, O_DIRECT, on a
# loop device over a file in /dev/shm (RAM-backed), untraced and under each blkreel-capture backend
# and Debian's blktrace (where it works). Modes alternate within each round, each traced run between
# two untraced runs (the machine is shared and noisy); "paired loss" compares each traced run with
# the mean of its two untraced neighbours.
#   tests/bench/capture.sh            (root; ROUNDS=5 SECONDS_PER_RUN=5 by default)
#   MODES="none bpf bpf-shared" tests/bench/capture.sh   (a subset, or the variants below)
# Modes: none; bpf (full: records spooled raw, events made after tracing); bpf-live (the same,
# events made while tracing: the path to stdout, BLKREEL_BPF_SPOOL=events); bpf-ic (-a
# issue,complete); the floors: bpf-floor (the same tracepoints, programs that return at once),
# bpf-clockfloor (programs that only read the clock once per event, as every record needs, and
# store it), bpf-ic-floor and bpf-ic-clockfloor (the same for the lean mode's programs); bpf-shared
# (one ring for all CPUs); bpf-wakeup (a wakeup per record, read on poll); bpf-nonames (no
# pid->comm map); bpf-nosync (no fdatasync of the spool); bpf-tmpfs (the full capture with its
# output and spool on /dev/shm instead of the bench's /var/tmp); perf; tracefs; blktrace;
# bpf-rotate (--rotate 1s: events made and files compressed while tracing); bpf-flight and
# perf-flight (--flight 30s, never triggered: the ring of spools, nothing compressed; bpf's holds
# its raw records); bpf-flight-rule and perf-flight-rule (the same with --trigger-on 'd2c>10s',
# which never fires: what reading the rule on the live stream adds).
# Where the full capture's cost goes (each records less than the one after it; only for measuring):
# bpf-noring (programs do everything but write the record), bpf-discard (records read from the
# rings and thrown away), bpf-walk (walked as the raw spool walks them, nothing spooled),
# bpf-nowalk (spooled raw without the walk: no checks, no names), bpf-decode (decoded into events,
# thrown away), bpf-nomerge (the live path written to the spool as read, no reorder merge: the file
# is out of order), then bpf-live.
# Per traced mode: events/s recorded, drops, and the capture process's own CPU (user + system,
# from /proc/PID/stat while fio runs) per million events; then what it spends after tracing
# stopped (its own count, getrusage: converting raw records, compressing) per million events and
# in wall seconds. The kernel's writeback of the spool is in neither (it runs in kworkers).
# The modes that set a BLKREEL_ variable run the build with the test and bench hooks (make hooks:
# build/release/hooks/blkreel-capture, or $BLKREEL_HOOK_BIN/); the others the release tool, which
# has none of them (capture/hooks.h).
# Holds the tracer lock throughout; creates and always detaches its own loop device.
set -euo pipefail
ROUNDS=${ROUNDS:-5}
RUNTIME=${SECONDS_PER_RUN:-5}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CAP=${BLKREEL_BIN:-$HERE/bin}/blkreel-capture
HOOK_CAP=${BLKREEL_HOOK_BIN:-$HERE/build/release/hooks}/blkreel-capture
[[ $(id -u) -eq 0 ]] || { echo "capture.sh: needs root" >&2; exit 1; }
[[ -x $CAP ]] || { echo "capture.sh: build first (make): $CAP missing" >&2; exit 1; }
command -v fio >/dev/null || { echo "capture.sh: needs fio" >&2; exit 1; }
read -r -a MODES <<<"${MODES:-none bpf bpf-ic bpf-floor perf tracefs blktrace}"

exec 9>/run/lock/blkreel-tracer.lock
flock 9

TMP="" SHMOUT="" LOOP="" SHM="" DEBUGFS_MOUNTED=0 CAPPID=""
cleanup() {
    set +e
    [[ -n $CAPPID ]] && kill -INT "$CAPPID" 2>/dev/null && wait "$CAPPID"
    ((DEBUGFS_MOUNTED)) && umount /sys/kernel/debug
    [[ -n $LOOP ]] && losetup -d "$LOOP"
    [[ -n $SHM ]] && rm -f "$SHM"
    [[ -n $TMP ]] && rm -rf "$TMP"
    [[ -n $SHMOUT ]] && rm -rf "$SHMOUT"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

TMP=$(mktemp -d /var/tmp/blkreel-bench.XXXXXX)
SHMOUT=$(mktemp -d /dev/shm/blkreel-bench-out.XXXXXX) # bpf-tmpfs's output
SHM=$(mktemp /dev/shm/blkreel-bench.XXXXXX)
truncate -s 1G "$SHM"
dd if=/dev/urandom of="$SHM" bs=1M count=1024 conv=notrunc status=none
LOOP=$(losetup --find --show "$SHM")
[[ $LOOP == /dev/loop* ]] || { echo "unexpected loop device $LOOP" >&2; exit 1; }
TICK=$(getconf CLK_TCK)

fio_iops() { # prints read IOPS (terse field 8)
    fio --name=randread --filename="$LOOP" --rw=randread --bs=4k --iodepth=32 --ioengine=libaio \
        --direct=1 --runtime="$RUNTIME" --time_based --minimal 2>/dev/null | awk -F';' '{print $8}'
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

declare -A IOPS EVENTS DROPS NOTE CPUPM RATE AFTERPM FINISH
capture_args() { # capture_args MODE -> "ENV... --backend B [-a ...]"
    case $1 in
    bpf) echo "--backend bpf" ;;
    bpf-rotate) echo "--backend bpf --rotate 1s" ;;
    bpf-flight) echo "--backend bpf --flight 30s" ;;
    bpf-flight-rule) echo "--backend bpf --flight 30s --trigger-on d2c>10s" ;;
    perf-flight) echo "--backend perf --flight 30s" ;;
    perf-flight-rule) echo "--backend perf --flight 30s --trigger-on d2c>10s" ;;
    bpf-ic | bpf-ic-*) echo "--backend bpf -a issue,complete" ;;
    bpf-*) echo "--backend bpf" ;;
    *) echo "--backend $1" ;;
    esac
}
capture_env() {
    case $1 in
    bpf-floor | bpf-ic-floor) echo "BLKREEL_BPF_EMPTY=1" ;;
    bpf-clockfloor | bpf-ic-clockfloor) echo "BLKREEL_BPF_EMPTY=clock" ;;
    bpf-walk) echo "BLKREEL_BPF_USER=walk" ;;
    bpf-nowalk) echo "BLKREEL_BPF_USER=nowalk" ;;
    bpf-shared) echo "BLKREEL_BPF_RING=shared" ;;
    bpf-wakeup) echo "BLKREEL_BPF_WAKEUP=1" ;;
    bpf-nonames) echo "BLKREEL_BPF_NAMES=0" ;;
    bpf-noring) echo "BLKREEL_BPF_NORING=1" ;;
    bpf-discard) echo "BLKREEL_BPF_USER=discard" ;;
    bpf-decode) echo "BLKREEL_BPF_USER=decode" ;;
    bpf-nomerge) echo "BLKREEL_BPF_SPOOL=events BLKREEL_CAPTURE_NOMERGE=1" ;;
    bpf-live) echo "BLKREEL_BPF_SPOOL=events" ;;
    bpf-nosync) echo "BLKREEL_SPOOL_SYNC=0" ;;
    bpf-perevent) echo "BLKREEL_BPF_STAGE=0" ;;
    bpf-paircost) echo "BLKREEL_BPF_PAIRCOST=1" ;;
    *) echo "BLKREEL_BENCH=1" ;;
    esac
}
capture_bin() { # the release tool, or the hooks build for a mode that sets a hook variable
    if [[ $(capture_env "$1") == BLKREEL_BENCH=1 ]]; then echo "$CAP"; else echo "$HOOK_CAP"; fi
}
for m in "${MODES[@]}"; do
    [[ $m == none || -x $(capture_bin "$m") ]] ||
        { echo "capture.sh: mode $m needs the hooks build (make hooks): $HOOK_CAP missing" >&2; exit 1; }
done
run_traced() { # run_traced MODE: the capture in the background, fio beside it
    local m=$1; local out=$TMP/$m.err iops t0 t1 ev dir=$TMP
    [[ $m == bpf-tmpfs ]] && dir=$SHMOUT
    # shellcheck disable=SC2046
    env $(capture_env "$m") "$(capture_bin "$m")" $(capture_args "$m") --allow-drops --no-progress -d "$LOOP" -o "$dir/$m" 2>"$out" &
    CAPPID=$!
    for _ in $(seq 100); do grep -qs "tracing $(basename "$LOOP")" "$out" && break; kill -0 "$CAPPID" 2>/dev/null || break; sleep 0.05; done
    if ! kill -0 "$CAPPID" 2>/dev/null; then wait "$CAPPID" || true; CAPPID=""; NOTE[$m]="failed: $(tail -1 "$out")"; return; fi
    t0=$(cpu_ticks "$CAPPID")
    iops=$(fio_iops)
    t1=$(cpu_ticks "$CAPPID")
    kill -INT "$CAPPID"; wait "$CAPPID" || true; CAPPID=""
    ev=$(sed -n 's/.*s: \([0-9]*\) events.*/\1/p' "$out")
    IOPS[$m]="${IOPS[$m]:-} $iops"
    EVENTS[$m]="${EVENTS[$m]:-} $ev"
    RATE[$m]="${RATE[$m]:-} $(awk -v e="$ev" -v t="$RUNTIME" 'BEGIN{printf "%.0f", e / t}')"
    CPUPM[$m]="${CPUPM[$m]:-} $(awk -v a="$t0" -v b="$t1" -v k="$TICK" -v e="$ev" 'BEGIN{ if (e > 0) printf "%.3f", (b - a) / k / e * 1e6; else print "-" }')"
    DROPS[$m]="${DROPS[$m]:-} $(sed -n 's/^blkreel-capture: drops: //p' "$out" | sed 's/ - .*//' | tr ' ' ',')"
    # "own CPU A s while tracing, B s after it (C s to finish the file...)"
    AFTERPM[$m]="${AFTERPM[$m]:-} $(sed -n 's/.*while tracing, \([0-9.]*\) s after it.*/\1/p' "$out" | awk -v e="$ev" '{ if (e > 0) printf "%.3f", $1 / e * 1e6; else print "-" }')"
    FINISH[$m]="${FINISH[$m]:-} $(sed -n 's/.*s after it (\([0-9.]*\) s to finish.*/\1/p' "$out")"
    rm -f "$dir/$m".blktrace*
}
run_mode() {
    local m=$1; local out=$TMP/$m.err
    case $m in
    none) IOPS[$m]="${IOPS[$m]:-} $(fio_iops)" ;;
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
            NOTE[$m]="fails here: $(grep -m1 -v '^$' "$out" | tr -s ' \t' ' ' || echo "exited")"
            return
        fi
        IOPS[$m]="${IOPS[$m]:-} $(fio_iops)"
        kill -INT "$bt"; wait "$bt" || true
        ;;
    *) run_traced "$m" ;;
    esac
}

# Each traced run sits between two untraced runs; its loss is against their mean (the host's own
# speed drifts by 2x within a minute here, so a round-wide baseline is not good enough).
declare -A LOSS
for r in $(seq "$ROUNDS"); do
    run_mode none
    read -r -a nn <<<"${IOPS[none]}"; before=${nn[-1]}
    for m in "${MODES[@]}"; do
        [[ $m == none || -n ${NOTE[$m]:-} ]] && continue
        run_mode "$m"
        [[ -n ${NOTE[$m]:-} ]] && { echo "round $r $m: ${NOTE[$m]}" >&2; continue; }
        run_mode none
        read -r -a nn <<<"${IOPS[none]}"; after=${nn[-1]}
        read -r -a tt <<<"${IOPS[$m]}"
        LOSS[$m]="${LOSS[$m]:-} $(awk -v a="$before" -v b="$after" -v y="${tt[-1]}" 'BEGIN { printf "%.1f", (1 - 2 * y / (a + b)) * 100 }')"
        echo "round $r $m: ${tt[-1]} between untraced $before and $after" >&2
        before=$after
    done
done

median() { tr ' ' '\n' | { grep -v '^$\|^-$' || true; } | sort -g | awk '{a[NR]=$1} END {if (NR) printf "%s\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); else print ""}'; }
range() { tr ' ' '\n' | { grep -v '^$\|^-$' || true; } | sort -g | awk 'NR==1{lo=$1} {hi=$1} END {if (NR) printf "%s..%s", lo, hi}'; }
base=$(echo "${IOPS[none]:-}" | median)
echo
echo "fio randread 4 KiB QD32 libaio O_DIRECT, ${RUNTIME} s x $ROUNDS rounds, $LOOP over /dev/shm, $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "IOPS per round: $(for m in "${MODES[@]}"; do [[ -n ${NOTE[$m]:-} ]] || printf '%s:%s ' "$m" "$(echo ${IOPS[$m]} | tr ' ' ',')"; done)"
paired() { echo "${LOSS[$1]:-}"; } # paired MODE -> its losses (1 - traced/untraced beside it), in %
printf '%-18s %10s %12s %14s %12s %10s %10s %8s  %s\n' mode "IOPS(med)" "paired loss" "loss range" "events/s" "CPU s/M ev" "after s/M" "finish s" "drops per run / note"
for m in "${MODES[@]}"; do
    if [[ -n ${NOTE[$m]:-} ]]; then printf '%-18s %10s %12s %14s %12s %10s %10s %8s  %s\n' "$m" - - - - - - - "${NOTE[$m]}"; continue; fi
    med=$(echo "${IOPS[$m]}" | median)
    if [[ $m == none ]]; then pl=0 pr=-; else pl=$(paired "$m" | median)% pr=$(paired "$m" | range); fi
    printf '%-18s %10.0f %12s %14s %12s %10s %10s %8s  %s\n' "$m" "$med" "$pl" "$pr" "$(echo "${RATE[$m]:-}" | median)" \
        "$(echo "${CPUPM[$m]:-}" | median)" "$(echo "${AFTERPM[$m]:-}" | median)" "$(echo "${FINISH[$m]:-}" | median)" \
        "$(echo ${DROPS[$m]:-} | tr ' ' ' ')"
done
