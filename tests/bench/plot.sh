#!/usr/bin/env bash
# plot.sh — blkreel-plot against seekwatcher and iowatcher on the same traces:
# wall time, CPU time and peak memory (GNU time), side by side.
#   traces: the bundled real captures (samples/ext4-loop, samples/*-fio-rand-4t and
#   ext4-dbench-8c), a real NVMe sample (../shared/realtraces, when present) and a
#   synthetic trace of BENCH_EVENTS events (default 10 M) made by tests/bench/gen_trace.c.
#   Then: a WARM_EVENTS-event synthetic trace (default 5 M), WARM_ROUNDS (default 3) alternating rounds of
#   blkreel-plot (compressed file and per-CPU set) against iowatcher cold (running blkparse
#   first) and warm (reusing the dump its cold run left); and the PNG writer alone on the
#   default and the 5 M figure (tests/bench/png_encode.c: libpng's level, strategy and filter
#   candidates, CPU ms and bytes; PNG_ROUNDS rounds, default 11).
#   seekwatcher: set SEEKWATCHER=/path/to/cmd/seekwatcher (a built checkout of
#   its public repository; needs python3-matplotlib, cython3) or have it on
#   PATH. iowatcher: Debian's blktrace package.
# BENCH_DIR (default a fresh temp dir) holds the traces and outputs. BASELINE_PLOT=OLD
# (an earlier build's blkreel-plot) adds alternating rounds of OLD against this build
# (BASELINE_ROUNDS, default 4) on the 10 M and 5 M synthetic traces.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$PWD
PLOT=$ROOT/bin/blkreel-plot
EVENTS=${BENCH_EVENTS:-10000000}
[[ -x $PLOT ]] || { echo "plot.sh: $PLOT is not built (run make)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "plot.sh: needs GNU time (apt-get install time)" >&2; exit 1; }
DIR=${BENCH_DIR:-$(mktemp -d /tmp/blkreel-plot-bench.XXXXXX)}
mkdir -p "$DIR"
cd "$DIR"

# ---- traces -------------------------------------------------------------------
cp "$ROOT"/samples/ext4-loop.blktrace.* .
traces=(ext4-loop)
nvme=$ROOT/../shared/realtraces/takeoverjp_blktrace_viewer/sample.blktrace.0
if [[ -f $nvme ]]; then
	cp "$nvme" nvme-sample.blktrace.0
	traces+=(nvme-sample)
fi
# real captures from samples/ (blkreel-capture): ours reads the compressed file, the peers a
# per-CPU set converted from it (what blktrace would have written)
declare -A ours iow_ok sw_wall
for name in ext4-fio-rand-4t btrfs-fio-rand-4t ext4-dbench-8c; do
	gz=$ROOT/samples/$name.blktrace.gz
	[[ -f $gz ]] || continue
	"$ROOT"/bin/blkreel-parse -q "$gz" --split="$name"
	ours[$name]=$gz
	traces+=("$name")
done
if [[ ! -f synth.blktrace.0 ]]; then
	lib=$ROOT/build/release/libblkreel.a
	[[ -f $lib ]] || { echo "plot.sh: $lib missing (run make)" >&2; exit 1; }
	cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$ROOT"/formats/include "$ROOT"/tests/bench/gen_trace.c \
		"$lib" -lz -ldeflate -luring -lpthread -lm -o gen_trace
	echo "generating a synthetic trace of $EVENTS events..." >&2
	./gen_trace synth "$EVENTS" 60
fi
traces+=(synth)

SW=${SEEKWATCHER:-$(command -v seekwatcher || true)}
if [[ -n ${SEEKWATCHER:-} ]]; then
	# a source checkout built in place: its modules sit beside cmd/
	export PYTHONPATH=$(cd "$(dirname "$SEEKWATCHER")/.." && pwd)${PYTHONPATH:+:$PYTHONPATH}
fi
IOW=$(command -v iowatcher || true)

# measure CMD... -> "wall_s cpu_s peak_MB" (or "failed - -"). The machine may be shared, so
# CPU time (user + system) is shown beside wall time.
measure() {
	if /usr/bin/time -o time.out -f '%e %U %S %M' "$@" >/dev/null 2>cmd.err; then
		read -r s u sy kb <time.out
		printf '%s %s %s' "$s" "$(awk -v a="$u" -v b="$sy" 'BEGIN { printf "%.2f", a + b }')" "$((kb / 1024))"
	else
		echo "failed - -"
		echo "  note: $(basename "$1") failed on $t: $(grep -v '^$' cmd.err | tail -1)" >>notes.txt
	fi
}
: >notes.txt
echo "started $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"

hdr="wall s / cpu s / MB"
echo "speedups compare the peers with blkreel-plot on the same per-CPU set (column 2)"
printf '%-17s %9s | %-24s | %-24s | %-24s | %-24s | %-24s\n' trace events \
	"blkreel-plot PNG" "blkreel-plot PNG, set" "blkreel-plot SVG" "iowatcher SVG" "seekwatcher PNG"
printf '%-17s %9s | %-24s | %-24s | %-24s | %-24s | %-24s\n' "" "" "$hdr" "$hdr" "$hdr" "$hdr" "$hdr"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a+0 > 0 && b+0 > 0) printf "%.1fx", b / a; else printf "-" }'; }
for t in "${traces[@]}"; do
	input=${ours[$t]:-$t}
	[[ $t == synth ]] && input=synth.blktrace.gz
	nev=$(( $(cat "$t".blktrace.* 2>/dev/null | wc -c) / 48 ))
	[[ $t == synth ]] && nev=$EVENTS
	read -r ps pc pm <<<"$(measure "$PLOT" -q -t "$input" -o "$t-blkreel.png")"
	# the same per-CPU set the peers read (for the bundled/converted traces)
	read -r rs rc rm <<<"$(measure "$PLOT" -q -t "$t" -o "$t-blkreel-set.png")"
	read -r vs vc vm <<<"$(measure "$PLOT" -q -t "$input" -o "$t-blkreel.svg")"
	is=- ic=- im=-
	if [[ -n $IOW ]]; then
		rm -f "$t.dump"  # iowatcher runs blkparse first; count that, as a user would
		read -r is ic im <<<"$(measure "$IOW" -t "$t" -o "$t-iowatcher.svg")"
		[[ $is != failed ]] && iow_ok[$t]=1
	fi
	ss=- sc=- sm=-
	if [[ -n $SW ]]; then
		read -r ss sc sm <<<"$(measure /usr/bin/python3 "$SW" -t "$t" -o "$t-seekwatcher.png")"
		[[ $ss != failed ]] && sw_wall[$t]=$ss
	fi
	printf '%-17s %9s | %6s / %6s / %6s | %6s / %6s / %6s | %6s / %6s / %6s | %6s / %6s / %6s | %6s / %6s / %6s\n' \
		"$t" "$nev" "$ps" "$pc" "$pm" "$rs" "$rc" "$rm" "$vs" "$vc" "$vm" "$is" "$ic" "$im" "$ss" "$sc" "$sm"
	printf '%-17s %9s | %-24s | %-24s | %-24s | %-24s | %-24s\n' "" "speedup" "" "" "" \
		"$(ratio "$rs" "$is") wall, $(ratio "$rc" "$ic") cpu" "$(ratio "$rs" "$ss") wall, $(ratio "$rc" "$sc") cpu"
done
# Small traces finish within GNU time's 10 ms steps: medians over repeated runs from hyperfine
# (iowatcher reuses the blkparse dump its first run above left, its fastest case).
if command -v hyperfine >/dev/null; then
	echo
	echo "small traces, hyperfine median of ${HYPERFINE_RUNS:-20} runs (per-CPU set, PNG vs iowatcher SVG):"
	# the floor: starting the tool at all (dynamic linking of cairo and its libraries)
	hyperfine -N -w 3 -r "${HYPERFINE_RUNS:-20}" --export-json hf.json "$PLOT --help" >/dev/null 2>&1 &&
		python3 -c 'import json,sys; print("  %-17s blkreel-plot %.1f ms" % ("--help alone", json.load(open(sys.argv[1]))["results"][0]["median"] * 1e3))' hf.json
	for t in "${traces[@]}"; do
		[[ $t == synth ]] && continue
		cmds=("$PLOT -q -t $t -o $t-hf.png")
		[[ -n ${iow_ok[$t]:-} ]] && cmds+=("$IOW -t $t -o $t-hf.svg")
		hyperfine -N -w 3 -r "${HYPERFINE_RUNS:-20}" --export-json hf.json "${cmds[@]}" >/dev/null 2>&1 ||
			{ echo "  $t: hyperfine failed"; continue; }
		python3 - "$t" hf.json "${sw_wall[$t]:-}" <<'PY'
import json, sys
r = json.load(open(sys.argv[2]))["results"]
ms = ["%s %.1f ms" % (x["command"].split()[0].rsplit("/", 1)[-1], x["median"] * 1e3) for x in r]
if sys.argv[3]:  # seekwatcher's one GNU-time run above, against our median
    ms.append("seekwatcher %.2f s = %.0fx ours" % (float(sys.argv[3]), float(sys.argv[3]) / r[0]["median"]))
print("  %-17s %s" % (sys.argv[1], ", ".join(ms)))
PY
	done
fi
# ---- 5 M events: iowatcher cold and warm ----------------------------------------
WARM=${WARM_EVENTS:-5000000}
if [[ ! -f synth5.blktrace.0 ]]; then
	echo "generating a synthetic trace of $WARM events..." >&2
	./gen_trace synth5 "$WARM" 30
fi
echo
WARM_ROUNDS=${WARM_ROUNDS:-3}
echo "$WARM synthetic events, $WARM_ROUNDS rounds alternating (wall s / cpu s / MB per round), from $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg):"
declare -a r_gz r_set r_cold r_warm
for ((round = 1; round <= WARM_ROUNDS; round++)); do
	r_gz+=("$(measure "$PLOT" -q -t synth5.blktrace.gz -o synth5-blkreel.png)")
	r_set+=("$(measure "$PLOT" -q -t synth5 -o synth5-blkreel-set.png)")
	if [[ -n $IOW ]]; then
		rm -f synth5.dump
		r_cold+=("$(measure "$IOW" -t synth5 -o synth5-iowatcher.svg)")
		r_warm+=("$(measure "$IOW" -t synth5 -o synth5-iowatcher.svg)")
	fi
done
walls() { local x; for x in "$@"; do printf '%s ' "${x%% *}"; done; }
printf '  %-34s %s\n' "blkreel-plot PNG, compressed file" "$(printf '%s | ' "${r_gz[@]}")"
printf '  %-34s %s\n' "blkreel-plot PNG, per-CPU set" "$(printf '%s | ' "${r_set[@]}")"
if [[ -n $IOW ]]; then
	printf '  %-34s %s\n' "iowatcher SVG, cold (blkparse)" "$(printf '%s | ' "${r_cold[@]}")"
	printf '  %-34s %s\n' "iowatcher SVG, warm (its dump)" "$(printf '%s | ' "${r_warm[@]}")"
	# per round: iowatcher warm / ours, paired
	cpus() { local x y; for x in "$@"; do y=${x#* }; printf '%s ' "${y%% *}"; done; }
	python3 - "$(walls "${r_warm[@]}")" "$(walls "${r_gz[@]}")" "$(walls "${r_set[@]}")" "$(walls "${r_cold[@]}")" \
		"$(cpus "${r_warm[@]}")" "$(cpus "${r_gz[@]}")" "$(cpus "${r_set[@]}")" "$(cpus "${r_cold[@]}")" <<'PY'
import sys
w, gz, st, cold, cw, cgz, cst, ccold = ([float(x) for x in a.split()] for a in sys.argv[1:9])
def rng(num, den):  # per round num / den; rounds under GNU time's 10 ms step say "-"
    v = [a / b for a, b in zip(num, den) if a > 0 and b > 0]
    return "%.1f-%.1fx" % (min(v), max(v)) if v else "-"
print("  iowatcher warm / blkreel-plot, paired rounds: compressed file %s, per-CPU set %s (goal >= 2x)"
      % (rng(w, gz), rng(w, st)))
print("  the same in CPU time: compressed file %s, per-CPU set %s" % (rng(cw, cgz), rng(cw, cst)))
print("  iowatcher cold / blkreel-plot compressed file: %s wall, %s CPU" % (rng(cold, gz), rng(ccold, cgz)))
PY
fi

# ---- against an earlier build (BASELINE_PLOT=path/to/old/blkreel-plot) --------------------
if [[ -n ${BASELINE_PLOT:-} ]]; then
	[[ -x $BASELINE_PLOT ]] || { echo "plot.sh: BASELINE_PLOT=$BASELINE_PLOT is not executable" >&2; exit 1; }
	echo
	echo "against BASELINE_PLOT=$BASELINE_PLOT, ${BASELINE_ROUNDS:-4} rounds alternating (wall s / cpu s / MB per round), from $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg):"
	for input in synth.blktrace.gz synth5.blktrace.gz synth5; do
		before=() after=()
		for ((round = 1; round <= ${BASELINE_ROUNDS:-4}; round++)); do
			before+=("$(measure "$BASELINE_PLOT" -q -t "$input" -o baseline.png)")
			after+=("$(measure "$PLOT" -q -t "$input" -o current.png)")
		done
		printf '  %-20s before: %s\n' "$input" "$(printf '%s | ' "${before[@]}")"
		printf '  %-20s after:  %s\n' "" "$(printf '%s | ' "${after[@]}")"
	done
fi

# ---- the PNG writer alone: libpng's deflate settings on the default and the 5 M figure -----
cc -O2 -std=gnu11 -D_GNU_SOURCE -I"$ROOT"/plot/plot -I"$ROOT"/formats/include $(pkg-config --cflags cairo libpng) \
	"$ROOT"/tests/bench/png_encode.c "$ROOT"/plot/plot/png_write.c \
	"$ROOT"/build/release/libblkreel.a $(pkg-config --libs cairo libpng) -lz -o png_encode
echo
echo "PNG writing (libpng), each setting on the default figure (ext4-loop, per-CPU set) and the $WARM-event one:"
./png_encode -r "${PNG_ROUNDS:-11}" ext4-loop-blkreel-set.png synth5-blkreel.png

cat notes.txt
echo "ended $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "outputs in $DIR"
