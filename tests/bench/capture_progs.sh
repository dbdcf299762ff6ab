#!/usr/bin/env bash
# capture_progs.sh — what each of the bpf backend's programs costs per run: kernel.bpf_stats_enabled
# (run_time_ns / run_cnt, which include the stats' own ~20 ns) over one fio run per variant (fio 4 KiB
# random reads, QD32, libaio, O_DIRECT, on a loop device over a file in /dev/shm, as capture.sh).
# Variants alternate within each round, so two builds can be compared under the same machine load:
#   tests/bench/capture_progs.sh                       (root; ROUNDS=3 SECONDS_PER_RUN=4)
#   VARIANTS="full ic floor" tests/bench/capture_progs.sh
#   BASELINE_CAP=/path/to/old/blkreel-capture VARIANTS="full base:full" tests/bench/capture_progs.sh
# A variant is [base:]NAME, NAME one of: full, ic (-a issue,complete), floor (empty programs),
# clockfloor (programs that only read the clock once and store it: BLKREEL_BPF_EMPTY=clock),
# ic-floor, ic-clockfloor (the same two for the lean mode's programs),
# noring, perevent (BLKREEL_BPF_STAGE=0), shared (one ring), direct3 (BLKREEL_BPF_DIRECT_EVERY=3),
# other (traces a second, idle loop device: what the programs cost on the events they drop),
# ring<SIZE> (-b SIZE -n 1: rings of that size per CPU, e.g. ring1M);
# "base:" runs $BASELINE_CAP instead of this tree's binary, "/some/blkreel-capture:" that binary.
# Prints per variant and program: ns per run (the median over rounds, and the range), runs per IO,
# and the sum of ns per IO over the programs that run in fio's own context (all but the completions).
# The variants that set a BLKREEL_ variable run the build with the test and bench hooks (make hooks:
# build/release/hooks/blkreel-capture, or $BLKREEL_HOOK_BIN/); the others the release tool.
# Holds the tracer lock; creates and always detaches its own two loop devices; puts bpf_stats_enabled back.
set -euo pipefail
ROUNDS=${ROUNDS:-3}
RUNTIME=${SECONDS_PER_RUN:-4}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CAP=${BLKREEL_BIN:-$HERE/bin}/blkreel-capture
HOOK_CAP=${BLKREEL_HOOK_BIN:-$HERE/build/release/hooks}/blkreel-capture
BASE=${BASELINE_CAP:-}
read -r -a VARIANTS <<<"${VARIANTS:-full ic floor}"
[[ $(id -u) -eq 0 ]] || { echo "capture_progs.sh: needs root" >&2; exit 1; }
[[ -x $CAP ]] || { echo "capture_progs.sh: build first (make): $CAP missing" >&2; exit 1; }
variant_env() {
    case ${1##*:} in
    floor | ic-floor) echo "BLKREEL_BPF_EMPTY=1" ;;
    clockfloor | ic-clockfloor) echo "BLKREEL_BPF_EMPTY=clock" ;;
    noring) echo "BLKREEL_BPF_NORING=1" ;;
    perevent) echo "BLKREEL_BPF_STAGE=0" ;;
    shared) echo "BLKREEL_BPF_RING=shared" ;;
    direct3) echo "BLKREEL_BPF_DIRECT_EVERY=3" ;;
    full | ic | other | ring*) echo "BLKREEL_BENCH=1" ;;
    *) echo "capture_progs.sh: unknown variant $1" >&2; exit 2 ;;
    esac
}
variant_bin() { # the binary a variant runs
    case $1 in
    base:*) echo "$BASE" ;;
    /*:*) echo "${1%%:*}" ;;
    *) if [[ $(variant_env "$1") == BLKREEL_BENCH=1 ]]; then echo "$CAP"; else echo "$HOOK_CAP"; fi ;;
    esac
}
for v in "${VARIANTS[@]}"; do
    [[ -x $(variant_bin "$v") ]] || { echo "capture_progs.sh: $v: no such executable (BASELINE_CAP? make hooks?)" >&2; exit 2; }
done
for t in fio jq bpftool; do command -v $t >/dev/null || { echo "capture_progs.sh: needs $t" >&2; exit 1; }; done

exec 9>/run/lock/blkreel-tracer.lock
flock 9

TMP="" LOOP="" LOOP2="" SHM="" CAPPID="" STATS_WAS=""
cleanup() {
    set +e
    [[ -n $CAPPID ]] && kill -INT "$CAPPID" 2>/dev/null && wait "$CAPPID"
    [[ -n $STATS_WAS ]] && sysctl -q kernel.bpf_stats_enabled="$STATS_WAS"
    [[ -n $LOOP ]] && losetup -d "$LOOP"
    [[ -n $LOOP2 ]] && losetup -d "$LOOP2"
    [[ -n $SHM ]] && rm -f "$SHM"
    [[ -n $TMP ]] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

TMP=$(mktemp -d /var/tmp/blkreel-progs.XXXXXX)
SHM=$(mktemp /dev/shm/blkreel-progs.XXXXXX)
truncate -s 1G "$SHM"
dd if=/dev/urandom of="$SHM" bs=1M count=1024 conv=notrunc status=none
LOOP=$(losetup --find --show "$SHM")
[[ $LOOP == /dev/loop* ]] || { echo "unexpected loop device $LOOP" >&2; exit 1; }
truncate -s 16M "$TMP/idle.img"
LOOP2=$(losetup --find --show "$TMP/idle.img")
[[ $LOOP2 == /dev/loop* ]] || { echo "unexpected loop device $LOOP2" >&2; exit 1; }
STATS_WAS=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -q kernel.bpf_stats_enabled=1

variant_args() {
    case ${1##*:} in
    ic | ic-*) echo "-a issue,complete" ;;
    ring*) local n=${1##*:}; echo "-b ${n#ring} -n 1" ;;
    esac
}
# name run_time_ns run_cnt, one line per blkr_ program loaded after id $1 (the tracer lock keeps
# other captures of this tree away; bpftool here cannot name a program's process)
last_prog_id() { bpftool -j prog show | jq '[.[].id] | max // 0'; }
prog_stats() {
    bpftool -j prog show | jq -r --argjson after "$1" \
        '.[] | select(.id > $after and (.name | startswith("blkr_"))) | "\(.name) \(.run_time_ns // 0) \(.run_cnt // 0)"' |
        sort
}

declare -A NS CNT IOPSV
for r in $(seq "$ROUNDS"); do
    for v in "${VARIANTS[@]}"; do
        bin=$(variant_bin "$v")
        out=$TMP/cap.err dev=$LOOP
        [[ ${v##*:} == other ]] && dev=$LOOP2
        first=$(last_prog_id)
        # shellcheck disable=SC2046
        env $(variant_env "$v") "$bin" --backend bpf $(variant_args "$v") --allow-drops --no-progress \
            -d "$dev" -o "$TMP/cap" 2>"$out" &
        CAPPID=$!
        for _ in $(seq 100); do grep -q "tracing $(basename "$dev")" "$out" && break; kill -0 "$CAPPID" 2>/dev/null || break; sleep 0.05; done
        kill -0 "$CAPPID" 2>/dev/null || { cat "$out" >&2; exit 1; }
        prog_stats "$first" >"$TMP/s0"
        iops=$(fio --name=randread --filename="$LOOP" --rw=randread --bs=4k --iodepth=32 --ioengine=libaio \
            --direct=1 --runtime="$RUNTIME" --time_based --minimal 2>/dev/null | awk -F';' '{print $8}')
        prog_stats "$first" >"$TMP/s1"
        kill -INT "$CAPPID"; wait "$CAPPID" || true; CAPPID=""
        rm -f "$TMP"/cap.blktrace*
        ios=$((iops * RUNTIME))
        IOPSV[$v]="${IOPSV[$v]:-} $iops"
        while read -r name t0 c0 t1 c1; do
            dc=$((c1 - c0)); dt=$((t1 - t0))
            ((dc > 0)) || continue
            NS[$v/$name]="${NS[$v/$name]:-} $(awk -v t="$dt" -v c="$dc" 'BEGIN{printf "%.1f", t / c}')"
            CNT[$v/$name]="${CNT[$v/$name]:-} $(awk -v c="$dc" -v n="$ios" 'BEGIN{printf "%.2f", c / n}')"
        done < <(join "$TMP/s0" "$TMP/s1")
        echo "round $r $v: $iops IOPS" >&2
    done
done

median() { tr ' ' '\n' | { grep -v '^$' || true; } | sort -g | awk '{a[NR]=$1} END {if (NR) printf "%s\n", (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2); else print "-"}'; }
range() { tr ' ' '\n' | { grep -v '^$' || true; } | sort -g | awk 'NR==1{lo=$1} {hi=$1} END {if (NR) printf "%s..%s", lo, hi}'; }
echo
echo "per-program cost, bpf_stats (ns per run incl. ~20 ns of the stats), fio randread 4 KiB QD32, ${RUNTIME} s x $ROUNDS rounds, $(nproc) CPUs, kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %-14s %9s %16s %9s\n' variant program "ns(med)" "ns range" "runs/IO"
for v in "${VARIANTS[@]}"; do
    fio_ns=0
    for key in $(printf '%s\n' "${!NS[@]}" | grep "^$v/" | sort); do
        name=${key#"$v/"}
        med=$(echo "${NS[$key]}" | median) per=$(echo "${CNT[$key]}" | median)
        printf '%-14s %-14s %9s %16s %9s\n' "$v" "$name" "$med" "$(echo "${NS[$key]}" | range)" "$per"
        # completions run in the loop worker / interrupt, the rest in the submitting thread
        [[ $name == *complete* || $name == *bdone* ]] ||
            fio_ns=$(awk -v a="$fio_ns" -v m="$med" -v p="$per" 'BEGIN{printf "%.0f", a + m * p}')
    done
    printf '%-14s %-14s %9s %16s %9s   IOPS %s\n' "$v" "(fio's share)" "$fio_ns" "ns per IO" "" "$(echo ${IOPSV[$v]} | tr ' ' ',')"
done
