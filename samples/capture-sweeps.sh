#!/usr/bin/env bash
# capture-sweeps.sh — remake the controlled sweeps in samples/sweeps/: the same fio job captured at
# numjobs 1, 2, 4, 8 and 16, one compressed trace per point (jN.blktrace.gz) and a README.txt
# saying what varies, the workload, the limit the sweep is built to have and the MB/s measured.
# They are tests/report/pairs/make_pairs.sh's sweep recipes with --quick (1 s per point, to keep
# the files small); test_sweep_kernel judges the same recipes live. Root only.
#   samples/capture-sweeps.sh                  # host, nr_requests, fsync (sweep_disk: 3.8 MB)
#   samples/capture-sweeps.sh sweep_host       # one of them
# make_pairs.sh holds the machine-wide tracer lock, writes only to loop devices it creates over
# files it creates, and puts back every queue knob and removes everything from an EXIT trap.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(($#)) || set -- sweep_host sweep_nr_requests sweep_fsync
out=$(mktemp -d /var/tmp/blkreel-sweeps.XXXXXX)
trap 'rm -rf "$out"' EXIT
"$HERE/../tests/report/pairs/make_pairs.sh" --quick -o "$out" "$@"
mkdir -p "$HERE/sweeps"
for s in "$@"; do
    rm -rf "${HERE:?}/sweeps/${s#sweep_}"
    mv "$out/$s" "$HERE/sweeps/${s#sweep_}"
done
du -sh "$HERE"/sweeps/*
