#!/usr/bin/env bash
# flight_soak.sh — a flight recorder left running, as on a production host: blkreel-capture
# --flight 30s --flight-after 5s beside fio (4 KiB random reads, queue depth 4, at most RATE IOPS)
# for MINUTES minutes, triggered from another shell (blkreel-capture --trigger) once a minute.
# Prints a line a minute: the capture's peak and current memory (VmHWM, VmRSS), what its ring of
# spool files takes on disk and its status line; then each file written, its span and its size.
# What it shows: memory and disk stay flat however long the capture runs; each trigger's file
# holds the window. Root, not in CI.
#   tests/bench/flight_soak.sh                       (MINUTES=10 RATE=20000 BACKEND=perf)
#   MINUTES=3 BACKEND=bpf tests/bench/flight_soak.sh
# Holds the tracer lock throughout; creates and always detaches its own loop device over a file
# in /var/tmp, and removes its files.
set -euo pipefail
MINUTES=${MINUTES:-10}
RATE=${RATE:-20000}
BACKEND=${BACKEND:-perf}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BIN=${BLKREEL_BIN:-$HERE/bin}
CAP=$BIN/blkreel-capture PARSE=$BIN/blkreel-parse
[[ $(id -u) -eq 0 ]] || { echo "flight_soak.sh: needs root" >&2; exit 1; }
[[ -x $CAP && -x $PARSE ]] || { echo "flight_soak.sh: build first (make)" >&2; exit 1; }
command -v fio >/dev/null || { echo "flight_soak.sh: needs fio" >&2; exit 1; }

exec 9>/run/lock/blkreel-tracer.lock
flock 9

TMP="" LOOP="" CAPPID="" FIOPID=""
cleanup() {
    set +e
    [[ -n $FIOPID ]] && kill "$FIOPID" 2>/dev/null && wait "$FIOPID"
    [[ -n $CAPPID ]] && kill -INT "$CAPPID" 2>/dev/null && wait "$CAPPID"
    [[ -n $LOOP ]] && losetup -d "$LOOP"
    [[ -n $TMP ]] && rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

TMP=$(mktemp -d /var/tmp/blkreel-flight.XXXXXX)
truncate -s 256M "$TMP/img"
LOOP=$(losetup --find --show "$TMP/img")
[[ $LOOP == /dev/loop* ]] || { echo "unexpected loop device $LOOP" >&2; exit 1; }
SECS=$((MINUTES * 60))

echo "flight_soak: $(date -u '+%F %T') UTC, commit $(git -C "$HERE" rev-parse --short HEAD 2>/dev/null || echo '?'), $BACKEND backend, $MINUTES min, fio at most $RATE IOPS, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$CAP" --backend "$BACKEND" -d "$LOOP" -o "$TMP/f" --flight 30s --flight-after 5s --status-file "$TMP/status" \
    -w $((SECS + 20)) --no-progress --allow-drops 2>"$TMP/cap.err" &
CAPPID=$!
for _ in $(seq 100); do grep -qs "tracing $(basename "$LOOP")" "$TMP/cap.err" && break; sleep 0.05; done
fio --name=r --filename="$LOOP" --rw=randread --direct=1 --bs=4k --iodepth=4 --ioengine=libaio --size=200M \
    --runtime=$((SECS + 10)) --time_based --rate_iops="$RATE" --output=/dev/null &
FIOPID=$!
printf '%-6s %-10s %-10s %-9s %s\n' minute "VmHWM KiB" "VmRSS KiB" "ring MiB" status
for m in $(seq 1 "$MINUTES"); do
    sleep 60
    "$CAP" --trigger -o "$TMP/f" >/dev/null
    ring=$(du -sk "$TMP"/f.ring.* 2>/dev/null | awk '{s += $1} END {printf "%.0f", s / 1024}')
    hwm=$(awk '/VmHWM/ {print $2}' "/proc/$CAPPID/status")
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$CAPPID/status")
    printf '%-6s %-10s %-10s %-9s %s\n' "$m" "$hwm" "$rss" "$ring" "$(sed 's/^blkreel-capture status: //' "$TMP/status")"
done
sleep 8 # the last trigger's after-window and its file
wait "$FIOPID" || true; FIOPID=""
kill -INT "$CAPPID"; rc=0; wait "$CAPPID" || rc=$?; CAPPID=""
echo "capture exit $rc; $(grep -c 'blkreel-capture: wrote' "$TMP/cap.err") files written; ring files left: $(ls "$TMP" | grep -c '\.ring\.' || true)"
printf '%-28s %-10s %-9s %s\n' file span_s MiB events
for f in "$TMP"/f.flight-*.blktrace.gz; do
    info=$("$PARSE" --info "$f")
    span=$(sed -n 's/^span: \([0-9.]*\) s.*/\1/p' <<<"$info")
    events=$(sed -n 's/^events: \([0-9]*\).*/\1/p' <<<"$info")
    printf '%-28s %-10s %-9s %s\n' "$(basename "$f")" "$span" "$(du -k "$f" | awk '{printf "%.1f", $1 / 1024}')" "$events"
done
