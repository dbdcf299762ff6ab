#!/usr/bin/env bash
# Nightly fuzzing: `make fuzz` builds every target in tests/fuzz (the parsers,
# and the consumers of the readers: shared statistics, analysis, the plot's
# data path, the replay's plan) with libFuzzer + ASan + UBSan and runs each
# for SECONDS, growing its corpus under build/fuzz/ from one night to the
# next. Prints one line per target (runs, corpus size, result) and exits 1
# when any target found a crash; the reproducer (crash-*, leak-*, oom-*,
# timeout-*) is named in the target's log. Not run by CI: too long, and its
# outcome depends on how long it ran.
# Usage: tests/bench/fuzz_nightly.sh [SECONDS]   (default 300 per target)
#        FUZZ_ONLY="stats plan" tests/bench/fuzz_nightly.sh 60
set -uo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-300}
case "$seconds" in ''|*[!0-9]*) echo "fuzz_nightly.sh: SECONDS must be a whole number" >&2; exit 2 ;; esac
started=$(date -u +%FT%TZ)
mkdir -p build/fuzz
stamp=build/fuzz/.nightly-start
touch "$stamp"
make --no-print-directory fuzz FUZZ_SECONDS="$seconds" >build/fuzz-nightly.log 2>&1
status=$?
echo "== make fuzz, $seconds s per target, started $started (load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs)"
printf '%-22s %12s %10s %8s  %s\n' target runs exec/s corpus result
for log in build/fuzz/fuzz_*.log; do
	[ -f "$log" ] || continue
	n=$(basename "$log" .log)
	case "$n" in *.*) continue ;; esac
	[ "$log" -nt "$stamp" ] || continue # not run this time
	runs=$(grep -o 'Done [0-9]* runs' "$log" | awk '{print $2}' | tail -n 1)
	rate=$(grep -o 'exec/s: [0-9]*' "$log" | tail -n 1 | awk '{print $2}')
	corpus=$(find "build/fuzz/corpus-$n" -type f 2>/dev/null | wc -l)
	if [ -n "$runs" ]; then
		result=ok
	elif grep -q 'ERROR: \|==ERROR\|runtime error' "$log"; then
		result="FOUND: $(grep -m1 -o 'Test unit written to [^ ]*' "$log" || grep -m1 'ERROR' "$log")"
	else
		result="did not finish (see $log)"
	fi
	printf '%-22s %12s %10s %8s  %s\n' "$n" "${runs:--}" "${rate:--}" "$corpus" "$result"
done
if [ "$status" != 0 ]; then
	echo "make fuzz failed; its output is in build/fuzz-nightly.log:"
	tail -n 20 build/fuzz-nightly.log
	exit 1
fi
