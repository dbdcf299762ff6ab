#!/usr/bin/env bash
# outputs_same.sh OLD_BIN NEW_BIN [TRACE_DIR] — run one fixed set of plot, report and
# parse jobs with two builds (each a bin/ folder holding blkreel-plot, blkreel-report and
# blkreel-parse) and compare every file they write, byte for byte. For speed changes that
# must not change output. TRACE_DIR may hold synth5.blktrace.{0,gz} (tests/bench/plot.sh
# makes them); without it the synthetic jobs are left out. REALTRACES (default ../shared/realtraces
# beside the checkout) adds the real captures there.
# A PNG whose bytes differ counts as the same when it decodes (ffmpeg, every frame of a movie)
# to the same pixels and its other chunks (IHDR, text, acTL, fcTL but for its sequence
# number) are the same: a change of the PNG encoder or its settings changes only the
# deflated data; those files are listed as "same pixels".
# Prints one line per differing file and "N files, all identical" (exit 0) or exit 1.
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: $0 OLD_BIN NEW_BIN [TRACE_DIR]" >&2; exit 2; }
OLD=$(cd "$1" && pwd) NEW=$(cd "$2" && pwd)
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
TR=${3:+$(cd "$3" && pwd)}
REAL=${REALTRACES:-$ROOT/../shared/realtraces} # the shared real traces, when present
WORK=$(mktemp -d /tmp/outputs-same.XXXXXX)
[[ -n ${KEEP:-} ]] || trap 'rm -rf "$WORK"' EXIT  # KEEP=1 keeps the outputs
mkdir "$WORK/in"
cp "$ROOT"/samples/*.blktrace.* "$WORK/in/"
[[ -d $REAL ]] && cp "$REAL"/takeoverjp_blktrace_viewer/sample.blktrace.0 "$REAL"/OxDeadmeat_blktrace_merge/nvme0n1.blktrace.txt \
	"$REAL"/schoebel_blkreplay/linux-mysql.load.gz "$REAL"/CMU-SAFARI_MQSim/*.trace "$REAL"/axboe_fio/t0038.iolog "$WORK/in/"
if [[ -n $TR ]]; then ln -s "$TR"/synth5.blktrace.0 "$TR"/synth5.blktrace.gz "$WORK/in/"; fi

# jobs: one per line, run in the input folder with $B the build's bin/ and outputs in $O
jobs() {
	local gz
	for gz in "$WORK"/in/*-*.blktrace.gz; do
		local n=$(basename "$gz" .blktrace.gz)
		echo "\$B/blkreel-plot -q -t $n.blktrace.gz -o \$O/$n.png --csv=\$O/$n.csv"
		echo "\$B/blkreel-report -q $n.blktrace.gz --json=\$O/$n.json --markdown=\$O/$n.md > \$O/$n.txt"
		echo "\$B/blkreel-parse --info $n.blktrace.gz > \$O/$n.info"
	done
	echo "\$B/blkreel-plot -q -t ext4-loop -o \$O/loop.png --csv=\$O/loop.csv"
	echo "\$B/blkreel-plot -q -t ext4-loop -o \$O/loop.svg"
	echo "\$B/blkreel-plot -q -t ext4-loop -P -o \$O/loop-P.png"
	echo "\$B/blkreel-plot -q -t ext4-loop -x 50ms:120ms -z 0:2000 -o \$O/loop-zoom.png --csv=\$O/loop-zoom.csv"
	echo "\$B/blkreel-plot -q -t ext4-loop -r 50ms -b 10ms --panels=io,lat,qd -o \$O/loop-rb.png"
	echo "\$B/blkreel-plot -q -t ext4-fio-rand-4t.blktrace.gz -t xfs-fio-rand-4t.blktrace.gz -o \$O/cmp.png --csv=\$O/cmp.csv"
	echo "\$B/blkreel-plot -q --stack -t ext4-dbench-8c.blktrace.gz -t btrfs-dbench-8c.blktrace.gz -o \$O/stack.png"
	echo "\$B/blkreel-plot -q -t ext4-fio-seq-4t.blktrace.gz --movie=\$O/movie.png --movie-frames=12 -o \$O/movie-fig.png"
	echo "\$B/blkreel-report -q -l a ext4-fio-rand-4t.blktrace.gz -l b btrfs-fio-rand-4t.blktrace.gz --json=\$O/two.json > \$O/two.txt"
	echo "\$B/blkreel-report -q ext4-dbench-1c.blktrace.gz --per-io=\$O/perio.tsv"
	echo "\$B/blkreel-parse --info ext4-loop > \$O/loop.info"
	if [[ -d $REAL ]]; then
		local f
		for f in sample.blktrace.0 nvme0n1.blktrace.txt linux-mysql.load.gz tpcc-small.trace wsrch-small.trace t0038.iolog; do
			echo "\$B/blkreel-plot -q -t $f -F 1400x4400 -o \$O/real-$f.png --csv=\$O/real-$f.csv"
			echo "\$B/blkreel-report -q $f --json=\$O/real-$f.json > \$O/real-$f.txt"
			echo "\$B/blkreel-parse --info $f > \$O/real-$f.info"
		done
		echo "\$B/blkreel-plot -q -t sample.blktrace.0 --dev=259,0 -o \$O/real-dev.png"
	fi
	if [[ -n $TR ]]; then
		echo "\$B/blkreel-plot -q -t synth5.blktrace.gz -o \$O/s5gz.png --csv=\$O/s5gz.csv"
		echo "\$B/blkreel-plot -q -t synth5 -o \$O/s5set.png --csv=\$O/s5set.csv"
		echo "\$B/blkreel-plot -q -t synth5 -o \$O/s5set.svg"
		echo "\$B/blkreel-plot -q -t synth5 -P -x 5:9 -o \$O/s5zoom.png"
		echo "\$B/blkreel-report -q synth5.blktrace.gz --json=\$O/s5.json > \$O/s5.txt"
		echo "\$B/blkreel-parse --info synth5.blktrace.gz > \$O/s5gz.info"
		echo "\$B/blkreel-parse --info synth5 > \$O/s5set.info"
	fi
}
jobs >"$WORK/jobs"
for side in old new; do
	B=$OLD
	[[ $side == new ]] && B=$NEW
	O=out # relative, so the command line each figure records is the same for both builds
	mkdir -p "$WORK/in/$O"
	(cd "$WORK/in" && while read -r job; do
		(export B O; eval "$job") 2>>"$O/stderr.txt" || echo "exit $?: ${job//\$B\//}" >>"$O/stderr.txt"
	done <"$WORK/jobs")
	mv "$WORK/in/$O" "$WORK/$side"
done
# png_meta FILE: its chunks but the image data, one a line (fcTL without its sequence number)
png_meta() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
at = 8
while at + 12 <= len(d):
    n, = struct.unpack(">I", d[at:at + 4])
    t, body = d[at + 4:at + 8], d[at + 8:at + 8 + n]
    if t not in (b"IDAT", b"fdAT"):
        print(t.decode("latin-1"), (body[4:] if t == b"fcTL" else body).hex())
    at += 12 + n
PY
}
png_pixels() { ffmpeg -v error -i "$1" -f rawvideo -pix_fmt rgb24 - | cksum; }
n=0 bad=0 pix=0
for f in "$WORK"/old/*; do
	n=$((n + 1))
	g=$WORK/new/$(basename "$f")
	cmp -s "$f" "$g" && continue
	if [[ $f == *.png && -f $g ]] && [[ $(png_meta "$f") == "$(png_meta "$g")" ]] &&
		[[ $(png_pixels "$f") == "$(png_pixels "$g")" ]]; then
		echo "same pixels: $(basename "$f") ($(stat -c %s "$f") -> $(stat -c %s "$g") bytes)"
		pix=$((pix + 1))
		continue
	fi
	echo "differs: $(basename "$f")"
	bad=$((bad + 1))
done
for g in "$WORK"/new/*; do [[ -e $WORK/old/$(basename "$g") ]] || { echo "only new: $(basename "$g")"; bad=$((bad + 1)); }; done
if ((bad)); then echo "$n files, $bad differ"; exit 1; fi
if ((pix)); then echo "$n files, all identical ($pix PNGs by their pixels)"; exit 0; fi
echo "$n files, all identical"
