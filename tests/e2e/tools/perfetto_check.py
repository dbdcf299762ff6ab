#!/usr/bin/env python3
"""Check a blkreel Trace Event JSON file (blkreel-parse -o X.perfetto.json).

Prints one "key value" line per measure; the Criterion suite
tests/e2e/test_perfetto.c asserts on them. Checked here, with ns exactness
(times are us with three decimals):
  ios        IO slices (cat "io", ph "X")
  phases     phase slices (cat "phase")
  unnested   phase slices not inside an IO slice of the same track
  overlaps   IO slices that overlap the previous one on their track
  bad_phase  phase names other than X2Y with X, Y in Q, G, I, M, D, C
  flushes    instant events (cat "flush", ph "i")
  inflight   "in flight" counter events; mbps: "MB/s" counter events
  devices    process_name records
"""
import json
import sys
from collections import defaultdict


def ns(v):
    return round(float(v) * 1000)


def main(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    events = doc["traceEvents"]
    io = defaultdict(list)
    phases = defaultdict(list)
    out = defaultdict(int)
    for e in events:
        ph, cat = e["ph"], e.get("cat")
        if ph == "X" and cat == "io":
            io[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
            out["ios"] += 1
        elif ph == "X" and cat == "phase":
            phases[(e["pid"], e["tid"])].append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))
            out["phases"] += 1
            n = e["name"]
            if len(n) != 3 or n[1] != "2" or n[0] not in "QGIMD" or n[2] not in "GIMDC":
                out["bad_phase"] += 1
        elif ph == "i" and cat == "flush":
            out["flushes"] += 1
        elif ph == "C" and e["name"] == "in flight":
            out["inflight"] += 1
        elif ph == "C" and e["name"] == "MB/s":
            out["mbps"] += 1
        elif ph == "M" and e["name"] == "process_name":
            out["devices"] += 1
    for track, slices in io.items():
        slices.sort()
        for a, b in zip(slices, slices[1:]):
            if b[0] < a[1]:
                out["overlaps"] += 1
        starts = [s for s, _ in slices]
        import bisect
        for s, e in phases.get(track, []):
            k = bisect.bisect_right(starts, s) - 1
            if k < 0 or not (slices[k][0] <= s and e <= slices[k][1]):
                out["unnested"] += 1
    for track in phases:
        if track not in io:
            out["unnested"] += len(phases[track])
    for k in ("ios", "phases", "unnested", "overlaps", "bad_phase", "flushes", "inflight", "mbps", "devices"):
        print(k, out[k])


if __name__ == "__main__":
    main(sys.argv[1])
