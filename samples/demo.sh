#!/usr/bin/env bash
# demo.sh — run by `make demo` once the tools are in bin/: what a bundled trace holds, then the
# main job: blkreel-plot comparing two bundled samples, written to demo.png at the checkout root.
# Samples: the compressed captures samples/{ext4,xfs}-WORKLOAD.blktrace.gz (the same workload on
# two filesystems); without them the real ext4-on-loop capture samples/ext4-loop.blktrace.{0,1}.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PARSE=bin/blkreel-parse
PLOT=bin/blkreel-plot
for t in "$PARSE" "$PLOT"; do
	[[ -x $t ]] || { echo "demo: $t is not built (run make)" >&2; exit 1; }
done

# pick two traces: the same workload on two filesystems (ext4 and xfs, dbench 8 clients first),
# else the real ext4-on-loop capture (against the NVMe sample in ../shared when present)
label() { local b=${1##*/}; echo "${b%%.blktrace*}"; }
args=()
for w in dbench-8c dbench-1c fio-rand-4t fio-seq-4t; do
	a=samples/ext4-$w.blktrace.gz b=samples/xfs-$w.blktrace.gz
	if [[ -f $a && -f $b ]]; then
		case $w in
		dbench-8c) what="dbench, 8 clients" ;;
		dbench-1c) what="dbench, 1 client" ;;
		fio-rand-4t) what="fio random IO, 4 threads" ;;
		*) what="fio sequential IO, 4 threads" ;;
		esac
		args=(-t "$a" -l ext4 -t "$b" -l xfs -T "$what: ext4 vs xfs")
		first=$a
		break
	fi
done
if ((${#args[@]} == 0)); then
	first=samples/ext4-loop
	ls "$first".blktrace.* >/dev/null 2>&1 || { echo "demo: no samples found" >&2; exit 1; }
	args=(-t "$first" -l "ext4 on loop")
	nvme=../shared/realtraces/takeoverjp_blktrace_viewer/sample.blktrace.0
	[[ -f $nvme ]] && args+=(-t "$nvme" -l "NVMe sample (random 4K reads)")
fi

echo "== $PARSE --info $first   (what the trace holds)"
"$PARSE" --info "$first" | head -n 12
echo
echo "== $PLOT $(printf '%q ' "${args[@]}")-o demo.png   (the figure: offsets, throughput, seeks, IOPS, latency, queue depth, stats)"
"$PLOT" -q "${args[@]}" -o demo.png
echo "demo: wrote $(pwd)/demo.png"

# two traces of one workload: why the slower one is slower (the report's diagnosis)
report=bin/blkreel-report
if [[ -x $report && ${args[0]} == -t && ${#args[@]} -ge 8 && ${args[4]} == -t ]]; then
	echo
	echo "== $report -l ${args[3]} ${args[1]} -l ${args[7]} ${args[5]}   (the diagnosis)"
	"$report" --no-progress -l "${args[3]}" "${args[1]}" -l "${args[7]}" "${args[5]}" |
		sed -n '/^== Diagnosis/,/^$/p'
fi
