#!/usr/bin/env bash
# Run Criterion test binaries one after another and count their results.
#   run-suites.sh VARIANT BIN...   run them; write build/VARIANT/check.counts
#   run-suites.sh --total          sum the counts of every variant run
# Suites that touch the kernel's machine-wide tracer (tests/capture, and any
# suite whose name contains "kernel") run with one job; the others use every
# core. Each suite writes a TAP report so skips are counted too.
set -u
if [ "${1:-}" = "--total" ]; then
	p=0 f=0 s=0
	for c in build/*/check.counts; do
		[ -f "$c" ] || continue
		read -r cp cf cs <"$c"
		p=$((p + cp)) f=$((f + cf)) s=$((s + cs))
	done
	echo "check: $p passed, $f failed, $s skipped"
	[ "$f" = 0 ]
	exit
fi
variant=$1; shift
out=build/$variant/reports
mkdir -p "$out"
pass=0 fail=0 skip=0 status=0
for bin in "$@"; do
	name=${bin#build/$variant/tests/}
	jobs=$(nproc)
	case "$name" in capture/*|*kernel*) jobs=1 ;; esac
	tap=$out/${name//\//_}.tap
	echo "== [$variant] $name"
	"$bin" --jobs "$jobs" --timeout 300 --short-filename --tap="$tap" 2>&1 | grep -v '^\[----\]   $' | tail -n 40
	rc=${PIPESTATUS[0]}
	p=$(grep -c '^ok - .*(' "$tap" 2>/dev/null) || true
	s=$(grep -c '^ok - .*# SKIP' "$tap" 2>/dev/null) || true
	f=$(grep -c '^not ok' "$tap" 2>/dev/null) || true
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; echo "!! $name exited $rc without a failing test (crash?)"; fi
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	[ "$f" = 0 ] || status=1
done
echo "$pass $fail $skip" >"build/$variant/check.counts"
echo "[$variant] $pass passed, $fail failed, $skip skipped"
exit $status
