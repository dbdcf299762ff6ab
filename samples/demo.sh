#!/usr/bin/env bash
# demo.sh — run by `make demo` once the tools are in bin/: what a bundled trace holds, then the
# main job: blkreel-plot comparing two bundled samples, written to demo.png at the checkout root.
# Samples: the compressed captures samples/*.blktrace.gz (same workload on two filesystems) when
# present; until then the real ext4-on-loop capture samples/ext4-loop.blktrace.{0,1} against
# the NVMe sample in ../shared/realtraces, or alone.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PARSE=bin/blkreel-parse
PLOT=bin/blkreel-plot
for t in "$PARSE" "$PLOT"; do
	[[ -x $t ]] || { echo "demo: $t is not built (run make)" >&2; exit 1; }
done

# pick two traces: the first two compressed samples (ext4 and xfs first), else what exists
mapfile -t gz < <(ls samples/*.blktrace.gz 2>/dev/null | sort -t/ -k2,2 | awk '/ext4/ {print; next} {rest[NR]=$0} END {for (i in rest) print rest[i]}')
args=()
label() { local b=${1##*/}; echo "${b%%.blktrace*}"; }
if ((${#gz[@]} >= 2)); then
	args=(-t "${gz[0]}" -l "$(label "${gz[0]}")" -t "${gz[1]}" -l "$(label "${gz[1]}")")
	first=${gz[0]}
else
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
