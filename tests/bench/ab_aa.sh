#!/usr/bin/env bash
# ab_aa.sh — what blkreel-replay --ab says when there is nothing to find, run after run: the same
# target against itself (A/A), and two targets built alike (two RAM-backed loops made the same
# way), RUNS runs of ROUNDS rounds each; then what it can find: B's reads held by a blkio throttle
# at THROTTLE_PCT % of the rate its trace needs (open loop: B's replay lasts up to 100/THROTTLE_PCT
# times as long), RUNS runs of SENS_ROUNDS rounds. The A/A kinds replay TRACE (default the bundled
# ext4-fio-rand-4t: 16,000 reads in 1.2 s from 4 fio threads); the throttled kind HELD_TRACE
# (default a steady 2500 reads/s for 1 s, tests/bench/steady_trace.c: a bursty trace against an
# IOPS throttle measures the throttle's bursts, 0.28x on that sample at 85 %). Not run by default,
# the queue kind: two loops over files on the disk (direct IO), alike but for B's nr_requests 4
# (A keeps the default), TRACE replayed --no-stall (as fast as they take it, at the trace's depth)
# for ROUNDS rounds: the report's worked example in replay/README.md.
#   tests/bench/ab_aa.sh                  (root; RUNS=10 ROUNDS=3 SENS_ROUNDS=5 THROTTLE_PCT=85)
#   TRACE=FILE HELD_TRACE=FILE tests/bench/ab_aa.sh
#   KINDS="same alike" tests/bench/ab_aa.sh   (some of the kinds: same alike held queue)
#   KINDS=queue RUNS=3 SHOW=1 tests/bench/ab_aa.sh   (SHOW=1: each run's report.txt diagnosis too)
# Per run it prints whether the report found a significant difference, its first cause, B/A in
# MB/s with the rounds' Welch t, the detection floor in MB/s (the least difference these rounds
# could have shown), and B/A in mean service time R with its t; per kind, how many of the runs
# claimed something. A/A must claim nothing.
# The trace's reads only (no --write), folded onto 256 MiB loops (--wrap). Writes only to loop
# devices it creates over files it creates in /dev/shm (the queue kind: in a folder of its own
# under /var/tmp), to their queues' nr_requests (put back before they are detached) and to a blkio
# cgroup of its own; holds the machine-wide tracer lock (blkreel-replay --ab captures).
set -euo pipefail
RUNS=${RUNS:-10}
KINDS=${KINDS:-same alike held}
ROUNDS=${ROUNDS:-3}
SENS_ROUNDS=${SENS_ROUNDS:-5}
THROTTLE_PCT=${THROTTLE_PCT:-85}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${BLKREEL_BIN:-$HERE/bin}
REPLAY=$BIN/blkreel-replay PARSE=$BIN/blkreel-parse
TRACE=${TRACE:-$HERE/samples/ext4-fio-rand-4t.blktrace.gz}
CGROOT=/sys/fs/cgroup/blkio
die() { echo "ab_aa.sh: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "needs root"
for t in "$REPLAY" "$PARSE"; do [[ -x $t ]] || die "build first (make): $t missing"; done
[[ -r $TRACE ]] || die "cannot read $TRACE"
command -v python3 >/dev/null || die "needs python3"
if [[ -z ${HELD_TRACE:-} ]]; then
    mkdir -p "$HERE/build/bench"
    make -s -C "$HERE" tools >/dev/null
    cc -O2 -D_GNU_SOURCE -I"$HERE/formats/include" "$HERE/tests/bench/steady_trace.c" "$HERE/build/release/libblkreel.a" \
        -lz -ldeflate -lpthread -lm -o "$HERE/build/bench/steady_trace"
fi
[[ -w $CGROOT/cgroup.procs ]] || die "needs cgroup v1 blkio ($CGROOT) for the throttled pair"
exec 9>/run/lock/blkreel-tracer.lock
flock 9

W="" CG="" LOOPS=() DISK_DIR="" KNOB="" KNOB_OLD=""
cleanup() {
    set +e
    [[ -n $CG && -d $CG ]] && rmdir "$CG"
    [[ -n $KNOB ]] && echo "$KNOB_OLD" >"$KNOB"
    local l
    for l in "${LOOPS[@]}"; do losetup -d "$l"; done
    [[ -n $W ]] && rm -rf "$W"
    [[ -n $DISK_DIR ]] && rm -rf "$DISK_DIR"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

W=$(mktemp -d /dev/shm/blkreel-abaa.XXXXXX)
for i in 0 1; do
    dd if=/dev/zero of="$W/ram$i.img" bs=1M count=256 status=none
    LOOPS+=("$(losetup --find --show "$W/ram$i.img")")
done
X=${LOOPS[0]} Y=${LOOPS[1]}
[[ $X == /dev/loop* && $Y == /dev/loop* ]] || die "unexpected loop devices $X $Y"
if [[ " $KINDS " == *" queue "* ]]; then
    DISK_DIR=$(mktemp -d /var/tmp/blkreel-abaa.XXXXXX)
    for i in 0 1; do
        dd if=/dev/zero of="$DISK_DIR/disk$i.img" bs=1M count=256 conv=fsync status=none
        LOOPS+=("$(losetup --find --show --direct-io=on "$DISK_DIR/disk$i.img")")
    done
    DX=${LOOPS[2]} DY=${LOOPS[3]}
    [[ $DX == /dev/loop* && $DY == /dev/loop* ]] || die "unexpected loop devices $DX $DY"
    KNOB=/sys/block/${DY#/dev/}/queue/nr_requests
    KNOB_OLD=$(cat "$KNOB")
    echo 4 >"$KNOB"
fi

if [[ -z ${HELD_TRACE:-} ]]; then
    HELD_TRACE=$W/steady.blktrace
    "$HERE/build/bench/steady_trace" "$HELD_TRACE" 2500 1
fi
# the rate the held trace asks for: its reads issued (D) over its span
RATE=$("$PARSE" --info "$HELD_TRACE" | python3 -c '
import re, sys
t = sys.stdin.read()
span = float(re.search(r"^span: ([0-9.]+) (m?s)", t, re.M).group(1)) / (1000 if re.search(r"^span: [0-9.]+ ms", t, re.M) else 1)
reads = int(re.search(r"^    reads +\d+ \([^)]*\) +(\d+)", t, re.M).group(1))  # issued (D)
print(int(reads / span))')
HELD=$((RATE * THROTTLE_PCT / 100))
CG=$CGROOT/blkreel-abaa-$$
mkdir "$CG"
echo "$(($(stat -L -c '0x%t' "$Y"))):$(($(stat -L -c '0x%T' "$Y"))) $HELD" >"$CG/blkio.throttle.read_iops_device"

summary() { # summary DIR — one line of report.json
    python3 - "$1/report.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
g = d["diagnosis"]
m, r = d["metrics"]["mbps"], d["metrics"]["r_us"]
first = g["causes"][0]["cause"] if g["causes"] else "-"
print("%-5s %-14s %6.3f %7.1f %6.1f%% %6.3f %7.1f" % ("yes" if g["significant"] else "no", first, m["ratio_b_a"],
                                                    m["t"], 100 * d["detection_floor_mbps"], r["ratio_b_a"], r["t"]))
EOF
}

printf 'A/A: %s; held: %s, %s reads/s, B throttled at %s reads/s (%s %%)\n' \
    "${TRACE##*/}" "${HELD_TRACE##*/}" "$RATE" "$HELD" "$THROTTLE_PCT"
printf '%-12s %4s %6s  %-5s %-14s %6s %7s %7s %6s %7s\n' kind run rounds claim first "MB/s B/A" t floor "R B/A" "R t"
declare -A CLAIMS
CLAIMS=([same]=0 [alike]=0 [held]=0 [queue]=0)
for kind in $KINDS; do
    [[ -v CLAIMS[$kind] ]] || die "no kind named '$kind' (same, alike, held, queue)"
    for ((r = 1; r <= RUNS; r++)); do
        out=$W/$kind-$r rounds=$ROUNDS pre=() trace=$TRACE opts=()
        case $kind in
        same) a=$X b=$X ;;
        alike) a=$X b=$Y ;;
        held) a=$X b=$Y rounds=$SENS_ROUNDS trace=$HELD_TRACE
            # shellcheck disable=SC2016 # the inner shell's $$ and $@
            pre=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG") ;;
        queue) a=$DX b=$DY opts=(--no-stall -l default -l nr_requests_4) ;;
        esac
        if ! "${pre[@]}" "$REPLAY" --no-progress "$trace" --wrap "${opts[@]}" --ab "$a" "$b" --rounds "$rounds" \
            -o "$out" >"$W/out" 2>"$W/err"; then
            printf '%-12s %4d %6d  failed: %s\n' "$kind" "$r" "$rounds" "$(tail -n 1 "$W/err")"
            continue
        fi
        line=$(summary "$out")
        [[ $line == yes* ]] && CLAIMS[$kind]=$((CLAIMS[$kind] + 1))
        printf '%-12s %4d %6d  %s\n' "$kind" "$r" "$rounds" "$line"
        if [[ ${SHOW:-0} == 1 ]]; then # the report's own words, from its top to its detection floor
            sed -n '/^Per metric/q; p' "$out/report.txt" | sed 's/^/    /'
        fi
        rm -rf "$out"
    done
done
declare -A WHAT=([same]="same target" [alike]="two alike" [held]="B held at $THROTTLE_PCT %"
    [queue]="B at nr_requests 4")
said=()
for kind in $KINDS; do said+=("${WHAT[$kind]} ${CLAIMS[$kind]} of $RUNS"); done
printf '\nclaimed a difference: %s\n' "$(IFS=,; echo "${said[*]}" | sed 's/,/, /g')"
