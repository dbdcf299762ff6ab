#!/usr/bin/env bash
# Benchmark blkreel-report against Debian's btt on the same large real trace:
# a capture (samples/ext4-loop) repeated back to back with shifted times
# until it holds EVENTS events. Times and peak memory with GNU time; our
# memory at 1 M and EVENTS events shows it does not grow with trace length.
# Usage: tests/bench/report.sh [EVENTS]   (default 4000000)
# Numbers vary on a shared machine: read the ratios.
set -euo pipefail
cd "$(dirname "$0")/../.."
events=${1:-4000000}
make -s tools >/dev/null
command -v btt >/dev/null || { echo "report.sh: btt is not installed (apt-get install blktrace)"; exit 1; }
work=$(mktemp -d /tmp/blkreel-bench-report-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p build/bench
cc -O2 -D_GNU_SOURCE -Iformats/include tests/bench/make_trace.c build/release/libblkreel.a \
	-lz -ldeflate -lpthread -lm -o build/bench/make_trace

echo "Building a ${events}-event trace from samples/ext4-loop (repeated, times shifted)..."
build/bench/make_trace samples/ext4-loop "$events" "$work/big.bin"
build/bench/make_trace samples/ext4-loop 1000000 "$work/small.bin"
bin/blkreel-parse --no-progress "$work/big.bin" -o "$work/big.blktrace.gz"
R=bin/blkreel-report

. tests/bench/lib/measure.sh

echo
echo "== btt vs blkreel-report on $events events ($(( $(stat -c %s "$work/big.bin") / 1048576 )) MiB raw)"
# btt writes its tables next to -o; run it in the work dir
echo "(load average now: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs; wall times need idle CPUs)"
read -r t_btt m_btt c_btt < <(best 3 sh -c "cd '$work' && btt -i big.bin -o btt")
read -r t_us m_us c_us < <(best 3 $R --no-progress -q "$work/big.bin" --json "$work/r.json")
read -r t_gz m_gz c_gz < <(best 3 $R --no-progress -q "$work/big.blktrace.gz" --json "$work/r.json")
read -r t_gz1 m_gz1 c_gz1 < <(best 3 $R --no-progress -q -j1 "$work/big.blktrace.gz" --json "$work/r.json")
printf '%-40s %9s %9s %12s %12s %9s\n' "command" "seconds" "CPU s" "M events/s" "peak RSS" "vs btt"
printf '%-40s %9s %9s %12s %12s %9s\n' "btt -i X.bin" "$t_btt" "$c_btt" "$(rate "$events" "$t_btt")" "${m_btt} KiB" "1.0x"
for row in "blkreel-report X.bin|$t_us|$m_us|$c_us" "blkreel-report X.blktrace.gz|$t_gz|$m_gz|$c_gz" \
	   "blkreel-report -j1 X.blktrace.gz|$t_gz1|$m_gz1|$c_gz1"; do
	IFS='|' read -r name t m c <<<"$row"
	printf '%-40s %9s %9s %12s %12s %9s\n' "$name" "$t" "$c" "$(rate "$events" "$t")" "${m} KiB" \
		"$(awk -v a="$t_btt" -v b="$t" 'BEGIN{ if (b <= 0) b = 0.01; printf "%.1fx", a/b}')"
done
echo "goal: >= 3x faster than btt (wall, X.bin): $(awk -v a="$t_btt" -v b="$t_us" 'BEGIN{ if (b <= 0) b = 0.01; printf "%.1fx, %s", a/b, (a/b >= 3) ? "met" : "NOT met"}');" \
	"CPU time: btt ${c_btt} s, ours ${c_us} s ($(awk -v a="$c_btt" -v b="$c_us" 'BEGIN{ if (b <= 0) b = 0.01; printf "%.1fx", a/b}'))"

echo
echo "== memory is flat in trace length (blkreel-report)"
read -r t1 m1 c1 < <(best 1 $R --no-progress -q "$work/small.bin")
read -r t2 m2 c2 < <(best 1 $R --no-progress -q "$work/big.bin")
read -r tb1 mb1 cb1 < <(best 1 sh -c "cd '$work' && btt -i small.bin -o btt1")
printf '%-12s %16s %16s\n' "events" "blkreel-report" "btt"
printf '%-12s %16s %16s\n' "1000000" "${m1} KiB" "${mb1} KiB"
printf '%-12s %16s %16s\n' "$events" "${m2} KiB" "${m_btt} KiB"
