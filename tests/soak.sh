#!/usr/bin/env bash
# Run the whole suite many times in a row, half of the runs beside a CPU hog,
# and log every run's counts and failing tests (issue 14: a test that fails
# even once is a bug).
#   tests/soak.sh [-v VARIANT] [-n RUNS] [-H every|odd|even|none] [-x PATTERN]... [-o LOGDIR] [-k K]
#   -H odd : the hog (two `yes >/dev/null`) runs beside odd-numbered runs (default)
#   -x PAT : leave out suites whose path contains PAT (repeatable)
#   -k K   : the kernel suites of K runs share one lock hold (default 1)
# Kernel suites (tests/run-suites.sh --kernel: built with kernel_suite.h) run
# under $SOAK_LOCK (default: flock ${TMPDIR:-/tmp}/blkreel-kernel.lock,
# so that soaks on one machine take turns); the CPU-only
# suites of the same runs go before it, without the lock.
# Each run's stdout, failing TAP reports and a one-line summary go to LOGDIR.
set -u
variant=release runs=20 hog=odd logdir=build/soak batch=1
excludes=()
while getopts "v:n:H:x:o:k:" o; do
	case $o in
	v) variant=$OPTARG ;;
	n) runs=$OPTARG ;;
	H) hog=$OPTARG ;;
	x) excludes+=("$OPTARG") ;;
	o) logdir=$OPTARG ;;
	k) batch=$OPTARG ;;
	*) echo "usage: $0 [-v VARIANT] [-n RUNS] [-H every|odd|even|none] [-x PATTERN]... [-o LOGDIR] [-k RUNS_PER_LOCK]" >&2; exit 2 ;;
	esac
done
lock=${SOAK_LOCK:-flock ${TMPDIR:-/tmp}/blkreel-kernel.lock}
cd "$(dirname "$0")/.." || exit 1
if [ "$variant" = asan ]; then bindir=$PWD/build/asan/bin; else bindir=$PWD/bin; fi
export BLKREEL_BIN=$bindir BLKREEL_ROOT=$PWD

cpu=() kern=()
for bin in build/"$variant"/tests/*/test_*; do
	[ -x "$bin" ] || continue
	skip=0
	for x in "${excludes[@]}"; do case $bin in *"$x"*) skip=1 ;; esac; done
	[ $skip = 1 ] && continue
	if tests/run-suites.sh --kernel "$bin"; then kern+=("$bin"); else cpu+=("$bin"); fi
done
[ ${#cpu[@]} -gt 0 ] || [ ${#kern[@]} -gt 0 ] || { echo "soak: no test binaries in build/$variant (make tests VARIANT=$variant)" >&2; exit 1; }
mkdir -p "$logdir"
summary=$logdir/summary.log

# one part of a run: optional hog, the runner, then its TAP reports kept if anything failed
run_part() { # HOG TAG BIN...
	local with_hog=$1 tag=$2; shift 2
	local h1= h2= rc
	if [ "$with_hog" = 1 ]; then
		yes >/dev/null & h1=$!
		yes >/dev/null & h2=$!
		trap 'kill $h1 $h2 2>/dev/null' EXIT INT TERM
	fi
	local t0=$(date +%s)
	tests/run-suites.sh "$variant" "$@" >"$logdir/$tag.out" 2>&1
	rc=$?
	echo $(($(date +%s) - t0)) >"$logdir/$tag.secs"
	if [ -n "$h1" ]; then kill "$h1" "$h2" 2>/dev/null; wait "$h1" "$h2" 2>/dev/null; trap - EXIT INT TERM; fi
	cp "build/$variant/check.counts" "$logdir/$tag.counts"
	if grep -q '^not ok' build/"$variant"/reports/*.tap 2>/dev/null || [ $rc != 0 ]; then
		mkdir -p "$logdir/$tag.tap"
		for t in build/"$variant"/reports/*.tap; do
			grep -q '^not ok' "$t" && cp "$t" "$logdir/$tag.tap/"
		done
	fi
	grep -h '^not ok' build/"$variant"/reports/*.tap 2>/dev/null | sed 's/^not ok [0-9]* - //; s/ .*//' >"$logdir/$tag.failed"
	grep -h '^!! ' "$logdir/$tag.out" >>"$logdir/$tag.failed"
	return $rc
}
export -f run_part
export variant logdir

hog_of() { case $hog in every) echo 1 ;; odd) echo $(($1 % 2)) ;; even) echo $((($1 + 1) % 2)) ;; *) echo 0 ;; esac; }
# the kernel parts of a batch of runs, one after another, in one lock hold
kernel_batch() { # FIRST LAST BIN...
	local first=$1 last=$2 j; shift 2
	for ((j = first; j <= last; j++)); do
		rm -f build/"$variant"/reports/*.tap
		run_part "$(hog_of "$j")" "$variant-$j-kernel" "$@"
	done
}
export -f hog_of kernel_batch
export hog

for ((i = 1; i <= runs; i += batch)); do
	last=$((i + batch - 1))
	[ $last -le "$runs" ] || last=$runs
	for ((j = i; j <= last; j++)); do
		rm -f build/"$variant"/reports/*.tap
		[ ${#cpu[@]} -gt 0 ] && run_part "$(hog_of "$j")" "$variant-$j-cpu" "${cpu[@]}"
	done
	t1=$(date +%s)
	[ ${#kern[@]} -gt 0 ] && $lock bash -c 'kernel_batch "$@"' _ "$i" "$last" "${kern[@]}"
	t2=$(date +%s)
	held=0
	for ((j = i; j <= last; j++)); do held=$((held + $(cat "$logdir/$variant-$j-kernel.secs" 2>/dev/null || echo 0))); done
	for ((j = i; j <= last; j++)); do
		tag=$variant-$j
		read -r cp cf cs <"$logdir/$tag-cpu.counts" 2>/dev/null || cp=0 cf=0 cs=0
		read -r kp kf ks <"$logdir/$tag-kernel.counts" 2>/dev/null || kp=0 kf=0 ks=0
		failed=$(cat "$logdir/$tag-cpu.failed" "$logdir/$tag-kernel.failed" 2>/dev/null | tr '\n' ' ')
		echo "$(date -u +%H:%M:%S) run $j variant=$variant hog=$(hog_of "$j") passed=$((cp + kp)) failed=$((cf + kf))" \
			"skipped=$((cs + ks)) cpu=$(cat "$logdir/$tag-cpu.secs" 2>/dev/null)s" \
			"kernel=$(cat "$logdir/$tag-kernel.secs" 2>/dev/null)s lock-wait(batch)=$((t2 - t1 - held))s failing: ${failed:-none}" |
			tee -a "$summary"
	done
done
