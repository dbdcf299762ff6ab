#!/usr/bin/env bash
# replay_steady.sh — blkreel-replay's timing on a steady trace: 4 KiB random
# reads at IOPS (default 10000) for DURATION seconds (default 5), replayed RUNS times
# (default 3) onto a loop device over a file in /dev/shm, each IO at its own
# time. Prints blkreel-replay's own issue-time error (submit - target) per run.
# The mark to meet: p99 within 100 us at >= 10k IOPS on a quiet machine
# (Buttress, FAST 2004). Root; creates and always detaches its own loop device.
set -euo pipefail
cd "$(dirname "$0")/../.."
iops=${IOPS:-10000} seconds=${DURATION:-5} runs=${RUNS:-3}
make -s tools >/dev/null
mkdir -p build/bench
cc -O2 -D_GNU_SOURCE -Iformats/include tests/bench/steady_trace.c build/release/libblkreel.a \
	-lz -ldeflate -lpthread -lm -o build/bench/steady_trace
work=$(mktemp -d /tmp/blkreel-bench-steady-XXXXXX)
img=$(mktemp /dev/shm/blkreel-bench-steady.XXXXXX)
loop=""
cleanup() { [ -n "$loop" ] && losetup -d "$loop"; rm -f "$img"; rm -rf "$work"; }
trap cleanup EXIT
build/bench/steady_trace "$work/steady.bin" "$iops" "$seconds"
truncate -s 1G "$img"
loop=$(losetup --find --show --direct-io=on "$img")
echo "steady trace: $iops IOPS for $seconds s, 4 KiB random reads; target $loop over $img"
echo "(load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs)"
printf '%-5s %10s %10s %10s %10s %10s %12s\n' run p50 p99 p99.9 max drift "within 100us"
for r in $(seq "$runs"); do
	out=$(bin/blkreel-replay "$work/steady.bin" -d "$loop" --force --no-progress)
	err=$(grep 'issue error' <<<"$out")
	within=$(grep -o '100 us [0-9.]* %' <<<"$out" | awk '{print $3 " %"}')
	drift=$(grep -o 'drift [-+0-9.]* %' <<<"$out" | awk '{print $2 "%"}')
	printf '%-5s %10s %10s %10s %10s %10s %12s\n' "$r" \
		"$(awk '{for(i=1;i<=NF;i++) if($i=="p50") print $(i+1) $(i+2)}' <<<"$err")" \
		"$(awk '{for(i=1;i<=NF;i++) if($i=="p99") print $(i+1) $(i+2)}' <<<"$err")" \
		"$(awk '{for(i=1;i<=NF;i++) if($i=="p99.9") print $(i+1) $(i+2)}' <<<"$err")" \
		"$(awk '{for(i=1;i<=NF;i++) if($i=="max") print $(i+1) $(i+2)}' <<<"$err")" \
		"$drift" "$within"
done
