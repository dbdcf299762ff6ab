#!/usr/bin/env bash
# Benchmark a sweep report: blkreel-report over a 5-point sweep of EVENTS-event
# traces (-l big:jobs=1 ... -l big:jobs=16), against reading the same five
# traces once each (blkreel-parse --info, and blkreel-report of each trace
# alone), and against Debian's btt run on each (the peer has no sweep: five
# runs are what a user of it does). The traces are samples/ext4-loop repeated
# back to back with shifted times until each holds EVENTS events.
# Goal: the sweep report in under 2x the time of reading the traces once.
# Usage: tests/bench/sweep.sh [EVENTS] [ROUNDS]   (default 4000000 events, 3 rounds)
# Numbers vary on a shared machine: read the ratios, each of paired rounds.
set -euo pipefail
cd "$(dirname "$0")/../.."
events=${1:-4000000}
rounds=${2:-3}
make -s tools >/dev/null
command -v btt >/dev/null || { echo "sweep.sh: btt is not installed (apt-get install blktrace)"; exit 1; }
work=$(mktemp -d /tmp/blkreel-bench-sweep-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p build/bench
cc -O2 -D_GNU_SOURCE -Iformats/include tests/bench/make_trace.c build/release/libblkreel.a \
	-lz -ldeflate -lpthread -lm -o build/bench/make_trace

. tests/bench/lib/measure.sh

echo "Building five ${events}-event traces from samples/ext4-loop (repeated, times shifted)..."
build/bench/make_trace samples/ext4-loop "$events" "$work/big.bin"
bin/blkreel-parse --no-progress "$work/big.bin" -o "$work/big.blktrace.gz"
values=(1 2 4 8 16)
sweep_args=() btt_cmd="" parse_cmd="" alone_cmd=""
for v in "${values[@]}"; do
	cp "$work/big.blktrace.gz" "$work/j$v.blktrace.gz"
	cp "$work/big.bin" "$work/j$v.bin"
	sweep_args+=(-l "big:jobs=$v" "$work/j$v.blktrace.gz")
	parse_cmd+="bin/blkreel-parse --no-progress --info '$work/j$v.blktrace.gz' >/dev/null && "
	alone_cmd+="bin/blkreel-report --no-progress -q '$work/j$v.blktrace.gz' && "
	btt_cmd+="btt -i j$v.bin -o btt$v >/dev/null && "
done
parse_cmd+=true alone_cmd+=true btt_cmd+=true

echo
echo "== a 5-point sweep of ${events}-event traces (load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs)"
printf '%-6s %12s %12s %12s %12s %14s %14s\n' round "parse --info" "report each" "sweep" "btt each" \
	"sweep/parse" "sweep/each"
ratios_parse=() ratios_each=()
for r in $(seq "$rounds"); do
	# the four commands alternate within a round, so each round compares them under one load
	read -r t_parse _ _ < <(best 1 sh -c "$parse_cmd")
	read -r t_each _ _ < <(best 1 sh -c "$alone_cmd")
	read -r t_sweep m_sweep _ < <(best 1 bin/blkreel-report --no-progress -q "${sweep_args[@]}" --json "$work/s.json")
	read -r t_btt _ _ < <(best 1 sh -c "cd '$work' && $btt_cmd")
	rp=$(awk -v a="$t_sweep" -v b="$t_parse" 'BEGIN{ if (b <= 0) b = 0.01; printf "%.2f", a/b }')
	re=$(awk -v a="$t_sweep" -v b="$t_each" 'BEGIN{ if (b <= 0) b = 0.01; printf "%.2f", a/b }')
	ratios_parse+=("$rp") ratios_each+=("$re")
	printf '%-6s %11ss %11ss %11ss %11ss %13sx %13sx\n' "$r" "$t_parse" "$t_each" "$t_sweep" "$t_btt" "$rp" "$re"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END{print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }
range() { printf '%s\n' "$@" | sort -g | awk 'NR==1{lo=$1} {hi=$1} END{print lo "-" hi}'; }
mp=$(median "${ratios_parse[@]}") me=$(median "${ratios_each[@]}")
echo "sweep report peak RSS: ${m_sweep} KiB (last round)"
echo "sweep / reading once (parse --info): median ${mp}x, range $(range "${ratios_parse[@]}")x over $rounds rounds"
echo "sweep / report of each trace alone:  median ${me}x, range $(range "${ratios_each[@]}")x"
echo "goal: sweep in under 2x the time of reading the traces once: $(awk -v m="$mp" 'BEGIN{print (m < 2) ? "met" : "NOT met"}')"
