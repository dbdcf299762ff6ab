#!/usr/bin/env bash
# Import speed of the foreign text readers (issue 6): lines parsed per
# second on one core, for a synthetic trace of each format and for the
# largest shared real trace. The text readers are single-threaded; output
# goes to a blk_io_trace stream on /dev/null so parsing is what is timed.
# Usage: tests/bench/import.sh [LINES]   (default 3000000)
# Goal: >= 2 M lines/s per format. Numbers vary on a shared machine; the
# CPU column (user+sys) is the one to compare with the goal.
#
# Measured 2026-11-29 on the shared 2-core build machine (3 M lines, best
# of 3, CPU seconds):
#   input                               M lines/s (cpu)   events per line
#   blkparse text                       3.90              1 (+ names)
#   blkreplay load                      5.00              1
#   DiskSim ASCII                       6.12              1
#   MSR Cambridge CSV                   2.78              2 (D + C)
#   FIU                                 2.75              1 (+ names)
#   fio iolog v3                        5.26              1
#   linux-webserver-2.load.gz (real,    3.36              1 (gzip inflate
#     largest shared trace, 269039 lines)                   included)
set -euo pipefail
cd "$(dirname "$0")/../.."
lines=${1:-3000000}
make -s tools >/dev/null
work=$(mktemp -d /tmp/blkreel-import-XXXXXX)
trap 'rm -rf "$work"' EXIT
P=bin/blkreel-parse

echo "Generating ${lines}-line inputs..."
# (%.0f for numbers past 2^31: mawk's %d saturates)
awk -v n="$lines" 'BEGIN{for(i=0;i<n;i++) printf "%8d.%09d ; %12d ; %4d ; %s ; 0.0 ; 0.0\n", i/1000, (i%1000)*1000000, i*8, 8, (i%3?"W":"R")}' > "$work/x.load"
awk -v n="$lines" 'BEGIN{for(i=0;i<n;i++) printf "%.0f %d %d %d %d\n", 1000000+i*1000, i%16, i*8, 16, i%2}' > "$work/x.disksim"
awk -v n="$lines" 'BEGIN{print "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime"; for(i=0;i<n;i++) printf "12816637%010.0f,hm,%d,%s,%.0f,4096,%d\n", 2003061629+i*100, i%2, (i%3?"Write":"Read"), i*4096, 4141}' > "$work/x.csv"
awk -v n="$lines" 'BEGIN{for(i=0;i<n;i++) printf "%.0f %d syslogd %d 8 %s 6 0 4a4ff4d3f1a4a67e6c5bbbc1fc21e8e5\n", 89966527888326+i*1000, 4820+i%7, i*8, (i%2?"W":"R")}' > "$work/x.fiu"
awk -v n="$lines" 'BEGIN{print "fio version 3 iolog"; print "0 /dev/sdb add"; print "0 /dev/sdb open"; for(i=0;i<n;i++) printf "%d /dev/sdb %s %.0f 4096\n", i, (i%2?"write":"read"), i*4096}' > "$work/x.iolog"
awk -v n="$lines" 'BEGIN{for(i=0;i<n;i++) printf "259,0    3 %8d %5d.%09d  1867  Q   W %d + 8 [dmcrypt_write/2]\n", i+1, i/1000000, (i%1000000)*1000, i*8}' > "$work/x.blkparse"

. tests/bench/lib/measure.sh

printf '\n%-34s %10s %10s %9s %16s %16s\n' "input" "lines" "wall s" "cpu s" "M lines/s (wall)" "M lines/s (cpu)"
for f in x.blkparse x.load x.disksim x.csv x.fiu x.iolog; do
	read -r w _ c < <(best_cpu 3 $P --no-progress "$work/$f" -o /dev/null)
	printf '%-34s %10s %10s %9s %16s %16s\n' "$f (synthetic)" "$lines" "$w" "$c" "$(rate "$lines" "$w")" "$(rate "$lines" "$c")"
done
real=../shared/realtraces/schoebel_blkreplay/linux-webserver-2.load.gz
if [ -f "$real" ]; then
	n=$(zcat "$real" | wc -l)
	read -r w _ c < <(best_cpu 3 $P --no-progress "$real" -o /dev/null)
	printf '%-34s %10s %10s %9s %16s %16s\n' "linux-webserver-2.load.gz (gzip)" "$n" "$w" "$c" "$(rate "$n" "$w")" "$(rate "$n" "$c")"
	zcat "$real" > "$work/web.load"
	read -r w _ c < <(best_cpu 3 $P --no-progress "$work/web.load" -o /dev/null)
	printf '%-34s %10s %10s %9s %16s %16s\n' "linux-webserver-2.load (plain)" "$n" "$w" "$c" "$(rate "$n" "$w")" "$(rate "$n" "$c")"
else
	echo "(../shared/realtraces absent: no real-trace row)"
fi
