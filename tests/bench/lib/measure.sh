# measure.sh — sourced by the bench scripts (tests/bench/lib/ is not itself run by `make bench`).
#   best N CMD...      run CMD N times under GNU time; print "wall_s peak_rss_kib cpu_s" of the
#                      run with the lowest wall time
#   best_cpu N CMD...  the same, picking the run with the lowest CPU time (user + system)
#   rate N SECONDS     N / SECONDS in millions, two decimals
# Needs $work (a scratch folder). A failing run stops the script.
_best() {
	local by=$1 n=$2; shift 2
	local key bk=999999 bw=0 bm=0 bc=0 w m u s c
	for _ in $(seq "$n"); do
		/usr/bin/time -f '%e %M %U %S' -o "$work/time" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
		read -r w m u s <"$work/time"
		c=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u + s}')
		[[ $by == cpu ]] && key=$c || key=$w
		if awk -v a="$key" -v b="$bk" 'BEGIN{exit !(a<b)}'; then bk=$key; bw=$w; bm=$m; bc=$c; fi
	done
	echo "$bw $bm $bc"
}
best() { _best wall "$@"; }
best_cpu() { _best cpu "$@"; }
rate() { awk -v n="$1" -v t="$2" 'BEGIN{ if (t <= 0) t = 0.01; printf "%.2f", n / t / 1e6 }'; }
