#!/usr/bin/env bash
# Run Criterion test binaries and count their results.
#   run-suites.sh [--only kernel|cpu] VARIANT BIN...
#                               run them; write build/VARIANT/check[-kernel|-cpu].counts
#   run-suites.sh --kernel BIN  exit 0 when BIN is a kernel suite
#   run-suites.sh --total       sum the counts of every variant and lane run
# Kernel suites are the binaries built with tests/common/kernel_suite.h (they
# carry its marker string): each runs one test at a time and holds the
# machine-wide kernel-suite lock itself, however it is started. They run in
# one lane, one after another, in the order given; the other (CPU-only)
# suites run meanwhile in a second lane, one after another, each with every
# core, at nice 19 when a kernel lane runs beside them, so the kernel tests
# keep the CPU they time. --only runs one lane (make check overlaps the
# release kernel lane with the ASan build and CPU lanes; see GNUmakefile).
# Each suite writes a TAP report (so skips are counted too) and a log, both
# in build/VARIANT/reports/; its output is printed whole when it ends, with
# its wall time, which also goes to build/VARIANT/reports/times.txt.
set -u
is_kernel() { grep -qa BLKREEL_KERNEL_SUITE "$1"; }
case "${1:-}" in
--total)
	p=0 f=0 s=0
	for c in build/*/check*.counts; do
		[ -f "$c" ] || continue
		read -r cp cf cs <"$c"
		p=$((p + cp)) f=$((f + cf)) s=$((s + cs))
	done
	# where the time went (make check is held to 15 minutes on 2 cores in CI)
	cat build/*/reports/times.txt 2>/dev/null | sort -k3 -rn | head -n 6 |
		awk '{ printf "%s%s %s %s s", (NR > 1 ? ", " : "slowest suites: "), $1, $2, $3 } END { if (NR) print "" }'
	echo "check: $p passed, $f failed, $s skipped"
	[ "$f" = 0 ]
	exit ;;
--kernel)
	is_kernel "$2"
	exit ;;
esac
only=
if [ "${1:-}" = --only ]; then only=$2; shift 2; fi
variant=$1; shift
out=build/$variant/reports
mkdir -p "$out"
jobs=$(nproc)

# run_suite BIN: run it, print its output whole, append "NAME SECONDS RC" to the lane's file
run_suite() {
	local bin=$1 lane=$2 name base t0 rc
	name=${bin#build/$variant/tests/}
	base=$out/${name//\//_}
	t0=$(date +%s.%N)
	"$bin" --jobs "$jobs" --timeout 300 --short-filename --tap="$base.tap" >"$base.log" 2>&1
	rc=$?
	local secs
	secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	{
		echo "== [$variant] $name ($lane lane, ${secs} s)"
		grep -v '^\[----\]   $' "$base.log" | tail -n 40
	} | flock "$out/.print" cat
	echo "$name $secs $rc" >>"$out/lane-$lane$tag"
	echo "$variant $name $secs" >>"$out/times.txt"
}

kern=() cpu=()
for bin in "$@"; do
	if is_kernel "$bin"; then kern+=("$bin"); else cpu+=("$bin"); fi
done
case "$only" in
kernel) cpu=() ;;
cpu) kern=() ;;
'') ;;
*) echo "run-suites.sh: --only kernel or --only cpu, not '$only'" >&2; exit 2 ;;
esac
# each lane's results; only the lanes run here (make check runs a variant's
# two lanes as two concurrent runs of this script)
# SUITES_TAG=NAME: a run of some suites apart from the lane's others (make
# check runs the timing-sensitive ones alone): its own lane and counts files
tag=${SUITES_TAG:+-$SUITES_TAG}
lanes=()
[ "$only" != cpu ] && lanes+=("$out/lane-kernel$tag")
[ "$only" != kernel ] && lanes+=("$out/lane-cpu$tag")
rm -f "${lanes[@]}"
touch "${lanes[@]}"
if [ ${#cpu[@]} -gt 0 ]; then
	(
		[ ${#kern[@]} -gt 0 ] && renice -n 19 -p "$BASHPID" >/dev/null
		for bin in "${cpu[@]}"; do run_suite "$bin" cpu; done
	) &
	cpu_lane=$!
fi
for bin in "${kern[@]}"; do run_suite "$bin" kernel; done
[ ${#cpu[@]} -gt 0 ] && wait "$cpu_lane"

pass=0 fail=0 skip=0 status=0
while read -r name secs rc; do
	tap=$out/${name//\//_}.tap
	p=$(grep -c '^ok - .*(' "$tap" 2>/dev/null) || true
	s=$(grep -c '^ok - .*# SKIP' "$tap" 2>/dev/null) || true
	f=$(grep -c '^not ok' "$tap" 2>/dev/null) || true
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; echo "!! $name exited $rc without a failing test (crash?)"; fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	[ "$f" = 0 ] || status=1
done < <(cat "${lanes[@]}")
counts=build/$variant/check${only:+-$only}$tag.counts
echo "$pass $fail $skip" >"$counts"
echo "[$variant${only:+ $only}${SUITES_TAG:+ $SUITES_TAG}] $pass passed, $fail failed, $skip skipped"
exit $status
