#!/usr/bin/env python3
"""replay_compare.py — compare captured replays with the captured original, IO by IO.

Each capture is read through blkreel-parse (blkparse's text). The device's D (issue) events with
data are the IOs; a replayed IO is matched to the original's next unmatched IO with the same
direction, sector and size. Times are compared after removing the median offset (a constant start-up delay).
  issue error   replay time − original time of each matched IO (|…| percentiles, % early)
  drift         (replay span − original span) / original span
  in flight     D..C per IO on the device: time-weighted average and maximum
  inversions    matched IOs issued before one that came earlier in the original: over the whole
                trace (inv) and within each stream (inv/s; a stream is the original's issuing
                process, e.g. one fio job)
  CPU / IO      user+system seconds of the replaying tool (from /usr/bin/time) / IOs
As fast as possible, IOPS are measured twice: on the device under the capture (where the
tracepoints cost every tool alike, see tests/bench/capture.sh), and without a capture as IOs
over the tool's whole wall time (best of NAME.runs, one "seconds" line per run).
"""
import argparse
import collections
import os
import subprocess
import sys


def events(parse, path):
    """(D list, C list) of (time, rw, sector, blocks, pid) from a capture."""
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
        (ds if f[5] == 'D' else cs).append((t, rw, sector, blocks, f[4]))
    ds.sort()
    cs.sort()
    return ds, cs


def inflight(ds, cs):
    ev = [(e[0], 1) for e in ds] + [(e[0], -1) for e in cs]
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
    for i, (t, rw, s, b, _) in enumerate(orig_d):
        want[(rw, s, b)].append(i)
    pairs = []
    for t, rw, s, b, _ in rep_d:
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
    streams = collections.defaultdict(list)  # the original's pid -> its IOs in replay order
    for i, _ in pairs:
        streams[orig_d[i][4]].append(i)
    inv_stream = sum(1 for seq in streams.values() for a, b in zip(seq, seq[1:]) if b < a)
    idx = sorted(i for i, _ in pairs)
    ospan = orig_d[idx[-1]][0] - orig_d[idx[0]][0]
    rspan = max(r for _, r in pairs) - min(r for _, r in pairs)
    a = sorted(abs(e) for e in errs)
    return {
        'matched': len(pairs), 'p50': pct(a, .5), 'p99': pct(a, .99), 'max': a[-1],
        'early': 100.0 * sum(1 for e in errs if e < 0) / len(errs),
        'drift': 100.0 * (rspan - ospan) / ospan if ospan else float('nan'),
        'inv': inv, 'inv_stream': inv_stream, 'streams': len(streams),
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
    nstreams = len(set(e[4] for e in od))
    print('original: %d IOs over %.3f s in %d streams, in flight avg %.2f max %d' % (
        len(od), span, nstreams, oavg, omax))
    print()
    hdr = '%-11s %11s %9s %9s %9s %7s %9s %14s %6s %6s %8s' % (
        'timed', 'matched', 'err p50', 'err p99', 'err max', 'early', 'drift', 'in flight', 'inv',
        'inv/s', 'CPU/IO')
    print(hdr)
    print('-' * len(hdr))
    for n in a.timed:
        d, c = captured(a, n, 11)
        if d is None:
            continue
        r = compare(od, d)
        if not r:
            print('%-10s no matching IOs captured' % n)
            continue
        avg, mx = inflight(d, c)
        _, cs = cpu(a.dir, n)
        print('%-11s %11s %9s %9s %9s %6.1f%% %+8.3f%% %6.2f/%-3d(%d) %6d %6d %8s%s' % (
            n, '%d/%d' % (r['matched'], len(od)), us(r['p50']), us(r['p99']), us(r['max']),
            r['early'], r['drift'], avg, mx, omax, r['inv'], r['inv_stream'],
            us(cs / max(1, len(d))), note(a.dir, n)))
    print()
    hdr = '%-14s %9s %10s %10s %6s %6s | %14s' % ('no stall', 'IOs', 'dev span', 'dev IOPS',
                                                  'inv', 'inv/s', 'IOPS uncaptured')
    print(hdr)
    print('-' * len(hdr))
    for n in a.fast:
        d, c = captured(a, n, 14)
        if d is None:
            continue
        r = compare(od, d) or {'inv': -1, 'inv_stream': -1}
        span_d = (d[-1][0] - d[0][0]) if len(d) > 1 else float('nan')
        print('%-14s %9d %9.3fs %10.0f %6d %6d | %14s%s' % (
            n, len(d), span_d, len(d) / span_d if span_d else 0, r['inv'], r['inv_stream'],
            uncaptured(a.dir, n, len(od)), note(a.dir, n)))


def captured(a, name, width):
    """The (D, C) events of a replay's capture, or (None, None) after printing why it failed."""
    fail = os.path.join(a.dir, name + '.fail')
    if os.path.exists(fail):
        print('%-*s %s' % (width, name, open(fail).read().strip()))
        return None, None
    return events(a.parse, os.path.join(a.dir, name + '.blktrace.gz'))


def note(dirn, name):
    """A tool that crashed after its IOs were captured: say so beside its numbers."""
    p = os.path.join(dirn, name + '.note')
    return '  (' + open(p).read().strip() + ')' if os.path.exists(p) else ''


def uncaptured(dirn, name, nios):
    """IOs / best wall time of the uncaptured runs (NAME.runs: one line per run, seconds, or
    'hung' / 'failed')."""
    try:
        runs = open(os.path.join(dirn, name + '.runs')).read().split()
    except OSError:
        return '-'
    bad = [x for x in runs if x in ('hung', 'failed')]
    walls = [float(x) for x in runs if x not in bad]
    if not walls:
        return 'all %d runs %s' % (len(runs), '/'.join(sorted(set(bad))))
    tail = ', %d of %d runs %s' % (len(bad), len(runs), '/'.join(sorted(set(bad)))) if bad else ''
    return '%.0f (%.4fs%s)' % (nios / min(walls), min(walls), tail)


if __name__ == '__main__':
    sys.exit(main())
