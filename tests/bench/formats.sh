#!/usr/bin/env bash
# Benchmark the trace library against the classic tools on a large trace:
#   - decoding our compressed file (all cores) vs zcat of the same file, and
#     libdeflate against zlib inflating the same members (member_codec.c)
#   - compressed size and write speed vs gzip -6 (and --fast), and libdeflate
#     against zlib deflating the same payloads at the same level
#   - BASELINE_BIN=DIR (optional): a bin/ built from an older commit, timed
#     beside ours on the same files (e.g. the zlib-based writer and reader);
#     the write is then also timed in WRITE_ROUNDS (default 4) alternating
#     rounds, ours then the baseline, with the ratio of each round
#   - text output vs blkparse
#   - peak memory at 1 M and N events (flat in trace length)
# Usage: tests/bench/formats.sh [EVENTS]   (default 10000000)
# Prints side-by-side tables; numbers vary on a shared machine: read ratios.
set -euo pipefail
cd "$(dirname "$0")/../.."
events=${1:-10000000}
make -s tools >/dev/null
work=$(mktemp -d /tmp/blkreel-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p build/bench
cc -O2 -D_GNU_SOURCE -Iformats/include tests/bench/make_trace.c build/release/libblkreel.a \
	-lz -ldeflate -lpthread -lm -o build/bench/make_trace
cc -O2 -Wall -Wextra tests/bench/member_codec.c -lz -ldeflate -o build/bench/member_codec

echo "Building a ${events}-event trace from samples/ext4-loop (repeated, times shifted)..."
build/bench/make_trace samples/ext4-loop "$events" "$work/big.bin"
build/bench/make_trace samples/ext4-loop 1000000 "$work/small.bin"
raw_bytes=$(stat -c %s "$work/big.bin")
P=bin/blkreel-parse
B=${BASELINE_BIN:+$BASELINE_BIN/blkreel-parse}
[[ -z $B || -x $B ]] || { echo "formats.sh: $B is not executable" >&2; exit 1; }

. tests/bench/lib/measure.sh

echo
echo "== writing the compressed file ($events events, $(( raw_bytes / 1048576 )) MiB raw)"
read -r t_gz m_gz c_gz < <(best 2 sh -c "gzip -6 -c '$work/big.bin' > '$work/gzip6.gz'")
read -r t_br m_br c_br < <(best 2 $P --no-progress "$work/big.bin" -o "$work/big.blktrace.gz")
read -r t_fast m_fast c_fast < <(best 2 $P --no-progress --fast "$work/big.bin" -o "$work/fast.blktrace.gz")
s_gz=$(stat -c %s "$work/gzip6.gz"); s_br=$(stat -c %s "$work/big.blktrace.gz"); s_fast=$(stat -c %s "$work/fast.blktrace.gz")
# one row: label seconds cpu_seconds bytes
wrow() {
	printf '%-38s %8s %8s %6s %11s %12s %11s\n' "$1" "$2" "$3" "$(awk -v c="$3" -v w="$2" 'BEGIN{if (w <= 0) w = 0.01; printf "%.2f", c/w}')" \
		"$(rate "$events" "$2")" "$(awk -v s="$4" -v n="$events" 'BEGIN{printf "%.2f", s/n}')" \
		"$(awk -v a="$4" -v b="$s_gz" 'BEGIN{printf "%.3fx", a/b}')"
}
printf '%-38s %8s %8s %6s %11s %12s %11s\n' "command" "seconds" "CPU s" "cores" "M events/s" "bytes/event" "size/gzip-6"
wrow "gzip -6" "$t_gz" "$c_gz" "$s_gz"
wrow "blkreel-parse -o X.blktrace.gz" "$t_br" "$c_br" "$s_br"
wrow "blkreel-parse --fast -o X.blktrace.gz" "$t_fast" "$c_fast" "$s_fast"
if [[ -n $B ]]; then
	read -r t_base m_base c_base < <(best 2 $B --no-progress "$work/big.bin" -o "$work/base.blktrace.gz")
	s_base=$(stat -c %s "$work/base.blktrace.gz")
	wrow "baseline -o X.blktrace.gz" "$t_base" "$c_base" "$s_base"
	echo "write speed vs the baseline build: $(awk -v a="$t_base" -v b="$t_br" 'BEGIN{printf "%.2fx", a/b}') (best of 2 each), CPU $(awk -v a="$c_base" -v b="$c_br" 'BEGIN{printf "%.2fx", a/b}')"
	rounds=${WRITE_ROUNDS:-4}
	echo "write, $rounds alternating rounds (ours, then the baseline):"
	ratios=()
	for r in $(seq "$rounds"); do
		read -r tw _ cw < <(best 1 $P --no-progress "$work/big.bin" -o "$work/big.blktrace.gz")
		read -r tb _ cb < <(best 1 $B --no-progress "$work/big.bin" -o "$work/base.blktrace.gz")
		ratios+=("$(awk -v a="$tb" -v b="$tw" 'BEGIN{if (b <= 0) b = 0.01; printf "%.2f", a/b}')")
		printf '  round %d: ours %5.2f s (%.2f CPU s)  baseline %5.2f s (%.2f CPU s)  %sx\n' \
			"$r" "$tw" "$cw" "$tb" "$cb" "${ratios[-1]}"
	done
	printf '  ratio range %s-%sx\n' "$(printf '%s\n' "${ratios[@]}" | sort -n | head -1)" \
		"$(printf '%s\n' "${ratios[@]}" | sort -n | tail -1)"
fi
echo "write speed vs gzip -6: $(awk -v a="$t_gz" -v b="$t_br" 'BEGIN{printf "%.2fx", a/b}') (default level), $(awk -v a="$t_gz" -v b="$t_fast" 'BEGIN{printf "%.2fx", a/b}') (--fast)"
echo "size vs gzip -6: $(awk -v a="$s_br" -v b="$s_gz" 'BEGIN{printf "%+.2f %%", (a/b-1)*100}') (goal <= +2 %)"

echo
echo "== decoding the compressed file"
read -r t_zcat m_zcat _ < <(best 3 sh -c "zcat '$work/big.blktrace.gz' > /dev/null")
read -r t_dec m_dec _ < <(best 3 $P --no-progress "$work/big.blktrace.gz" -o /dev/null)
read -r t_dec1 m_dec1 _ < <(best 3 $P --no-progress -j1 "$work/big.blktrace.gz" -o /dev/null)
printf '%-44s %10s %14s %12s\n' "command" "seconds" "M events/s" "peak RSS"
printf '%-44s %10s %14s %12s\n' "zcat X.blktrace.gz > /dev/null" "$t_zcat" "$(rate "$events" "$t_zcat")" "${m_zcat} KiB"
printf '%-44s %10s %14s %12s\n' "blkreel-parse X.blktrace.gz -o /dev/null" "$t_dec" "$(rate "$events" "$t_dec")" "${m_dec} KiB"
printf '%-44s %10s %14s %12s\n' "blkreel-parse -j1 X.blktrace.gz -o /dev/null" "$t_dec1" "$(rate "$events" "$t_dec1")" "${m_dec1} KiB"
if [[ -n $B ]]; then
	read -r t_bdec m_bdec _ < <(best 3 $B --no-progress "$work/big.blktrace.gz" -o /dev/null)
	printf '%-44s %10s %14s %12s\n' "baseline X.blktrace.gz -o /dev/null" "$t_bdec" "$(rate "$events" "$t_bdec")" "${m_bdec} KiB"
	echo "decode speed vs the baseline build: $(awk -v a="$t_bdec" -v b="$t_dec" 'BEGIN{printf "%.2fx", a/b}')"
fi

echo
echo "== the codecs alone on the same members, one core (tests/bench/member_codec.c)"
echo "(sizes vs gzip -6 of the same records; -4 and -5 show what a lower libdeflate level would trade)"
build/bench/member_codec "$work/big.blktrace.gz" 6 "$s_gz" 4,5

echo
echo "== text output (blkparse's default format)"
read -r t_bp m_bp _ < <(best 1 blkparse -q -i - -o /dev/null < "$work/big.bin")
read -r t_txt m_txt _ < <(best 3 sh -c "$P --no-progress -q '$work/big.bin' > /dev/null")
read -r t_txtz m_txtz _ < <(best 3 sh -c "$P --no-progress -q '$work/big.blktrace.gz' > /dev/null")
printf '%-44s %10s %14s %12s\n' "command" "seconds" "M events/s" "peak RSS"
printf '%-44s %10s %14s %12s\n' "blkparse -q -i - < X.bin" "$t_bp" "$(rate "$events" "$t_bp")" "${m_bp} KiB"
printf '%-44s %10s %14s %12s\n' "blkreel-parse -q X.bin" "$t_txt" "$(rate "$events" "$t_txt")" "${m_txt} KiB"
printf '%-44s %10s %14s %12s\n' "blkreel-parse -q X.blktrace.gz" "$t_txtz" "$(rate "$events" "$t_txtz")" "${m_txtz} KiB"
echo "text speed vs blkparse: $(awk -v a="$t_bp" -v b="$t_txt" 'BEGIN{printf "%.1fx", a/b}')"

echo
echo "== memory is flat in trace length (blkreel-parse --info)"
read -r t1 m1 _ < <(best 1 $P --no-progress --info "$work/small.bin")
read -r t2 m2 _ < <(best 1 $P --no-progress --info "$work/big.bin")
printf '%-20s %12s\n' "events" "peak RSS"
printf '%-20s %12s\n' "1000000" "${m1} KiB"
printf '%-20s %12s\n' "$events" "${m2} KiB"
