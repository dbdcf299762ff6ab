#!/usr/bin/env python3
"""replay_compare.py — compare captured replays with the captured original, IO by IO.

Each capture is read through blkreel-parse (blkparse's text). The device's D (issue) events with
data are the IOs; a replayed IO is matched to the original's next unmatched IO with the same
direction, sector and size. Times are compared after removing the median offset (a constant start-up delay).
  issue error   replay time − original time of each matched IO (|…| percentiles, % early)
  drift         (replay span − original span) / original span
  in flight     D..C per IO on the device: time-weighted average and maximum
  inversions    matched IOs issued before one that came earlier in the original
  CPU / IO      user+system seconds of the replaying tool (from /usr/bin/time) / IOs
"""
import argparse
import collections
import os
import subprocess
import sys


def events(parse, path):
    """(D list, C list) of (time, rw, sector, blocks) from a capture."""
    out = subprocess.run([parse, path], check=True, capture_output=True, text=True).stdout
    ds, cs = [], []
    for line in out.splitlines():
        f = line.split()
        if len(f) < 10 or f[8] != '+' or f[5] not in ('D', 'C'):
            continue
        try:
            t = float(f[3])
            sector, blocks = int(f[7]), int(f[9])
        except ValueError:
            continue
        rwbs = f[6]
        if blocks == 0 or 'D' in rwbs:       # flushes and discards are not data IOs
            continue
        rw = 'W' if 'W' in rwbs else 'R'
        (ds if f[5] == 'D' else cs).append((t, rw, sector, blocks))
    ds.sort()
    cs.sort()
    return ds, cs


def inflight(ds, cs):
    ev = [(t, 1) for t, *_ in ds] + [(t, -1) for t, *_ in cs]
    ev.sort()
    n = mx = 0
    area = 0.0
    last = ev[0][0] if ev else 0
    for t, d in ev:
        area += n * (t - last)
        last = t
        n = max(0, n + d)
        mx = max(mx, n)
    span = (ev[-1][0] - ev[0][0]) if ev else 0
    return (area / span if span else 0), mx


def pct(sorted_vals, q):
    if not sorted_vals:
        return float('nan')
    return sorted_vals[min(len(sorted_vals) - 1, int(q * len(sorted_vals)))]


def compare(orig_d, rep_d):
    want = collections.defaultdict(collections.deque)
    for i, (t, rw, s, b) in enumerate(orig_d):
        want[(rw, s, b)].append(i)
    pairs = []
    for t, rw, s, b in rep_d:
        q = want.get((rw, s, b))
        if q:
            pairs.append((q.popleft(), t))
    if not pairs:
        return None
    # anchor: the median of (replay − original) over all pairs, so a constant start-up delay
    # is not counted as error while drift and jitter are
    offs = sorted(r - orig_d[i][0] for i, r in pairs)
    anchor = offs[len(offs) // 2]
    errs = [(r - orig_d[i][0]) - anchor for i, r in pairs]
    inv = sum(1 for a, b in zip(pairs, pairs[1:]) if b[0] < a[0])
    idx = sorted(i for i, _ in pairs)
    ospan = orig_d[idx[-1]][0] - orig_d[idx[0]][0]
    rspan = max(r for _, r in pairs) - min(r for _, r in pairs)
    a = sorted(abs(e) for e in errs)
    return {
        'matched': len(pairs), 'p50': pct(a, .5), 'p99': pct(a, .99), 'max': a[-1],
        'early': 100.0 * sum(1 for e in errs if e < 0) / len(errs),
        'drift': 100.0 * (rspan - ospan) / ospan if ospan else float('nan'),
        'inv': inv,
    }


def cpu(dirn, name):
    try:
        e, u, s = open(os.path.join(dirn, name + '.time')).read().split()[-3:]
        return float(e), float(u) + float(s)
    except (OSError, ValueError):
        return float('nan'), float('nan')


def us(v):
    return '-' if v != v else ('%.0f us' % (v * 1e6) if v < 0.01 else '%.1f ms' % (v * 1e3))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--parse', required=True)
    ap.add_argument('--dir', required=True)
    ap.add_argument('--orig', required=True)
    ap.add_argument('--timed', nargs='*', default=[])
    ap.add_argument('--fast', nargs='*', default=[])
    a = ap.parse_args()
    od, oc = events(a.parse, os.path.join(a.dir, a.orig + '.blktrace.gz'))
    oavg, omax = inflight(od, oc)
    span = od[-1][0] - od[0][0]
    print('original: %d IOs over %.3f s, in flight avg %.2f max %d' % (len(od), span, oavg, omax))
    print()
    hdr = '%-10s %9s %9s %9s %9s %7s %9s %14s %6s %8s' % (
        'timed', 'matched', 'err p50', 'err p99', 'err max', 'early', 'drift', 'in flight', 'inv', 'CPU/IO')
    print(hdr)
    print('-' * len(hdr))
    for n in a.timed:
        fail = os.path.join(a.dir, n + '.fail')
        if os.path.exists(fail):
            print('%-10s %s' % (n, open(fail).read().strip()))
            continue
        d, c = events(a.parse, os.path.join(a.dir, n + '.blktrace.gz'))
        r = compare(od, d)
        if not r:
            print('%-10s no matching IOs captured' % n)
            continue
        avg, mx = inflight(d, c)
        _, cs = cpu(a.dir, n)
        print('%-10s %9s %9s %9s %9s %6.1f%% %+8.3f%% %6.2f/%-3d(%d) %6d %8s' % (
            n, '%d/%d' % (r['matched'], len(od)), us(r['p50']), us(r['p99']), us(r['max']),
            r['early'], r['drift'], avg, mx, omax, r['inv'], us(cs / max(1, len(d)))))
    print()
    hdr = '%-14s %9s %9s %10s %6s' % ('no stall', 'IOs', 'wall', 'IOPS', 'inv')
    print(hdr)
    print('-' * len(hdr))
    for n in a.fast:
        fail = os.path.join(a.dir, n + '.fail')
        if os.path.exists(fail):
            print('%-14s %s' % (n, open(fail).read().strip()))
            continue
        d, c = events(a.parse, os.path.join(a.dir, n + '.blktrace.gz'))
        r = compare(od, d) or {'inv': -1}
        span_d = (d[-1][0] - d[0][0]) if len(d) > 1 else float('nan')
        print('%-14s %9d %8.3fs %10.0f %6d' % (n, len(d), span_d, len(d) / span_d if span_d else 0, r['inv']))


if __name__ == '__main__':
    sys.exit(main())
