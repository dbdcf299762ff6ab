#!/usr/bin/env python3
"""boost_workers.py -- run the kernel threads that serve our loop devices at the real-time
priority of the rest of a controlled pair's workload, for as long as it runs, then put them back.

  boost_workers.py --fifo PRIO --state FILE [--ready FILE] LOOP...  # until SIGTERM/SIGINT, then restore
  boost_workers.py --restore FILE                                    # put back what FILE recorded (idempotent)

make_pairs.sh runs fio and the capture at SCHED_FIFO, but the IO itself is done by kernel threads
at ordinary priority: a loop device's work runs on the unbound workqueue pool (kworker/uN:M, named
"kworker/u8:3-loop0" once it ran loop0's work), blk-mq's deferred queue runs on the per-CPU
high-priority workers (kworker/N:MH), a request completed on another CPU than it was issued on
ends in the block softirq, which beside busy CPUs runs in ksoftirqd/N (a RAM-backed loop's
buffered reads: most completions, and their D2C grew from 27 to 110 us over one run), an ext4 on
the loop has jbd2/loopN-8, and buffered writes are written back by unbound kworkers. Beside CPU hogs those threads wait for a CPU for up to a
scheduler slice (milliseconds; a fair task woken does not preempt the running one at once, at
any nice), so a RAM-backed loop's service or idle time becomes scheduling delay instead of what
the pair was built to differ in. Every SCAN_S this moves each such thread still at SCHED_OTHER to
SCHED_FIFO PRIO (any idle unbound worker may pick up our loop's work next); FILE gets "pid
start-time policy nice" before a thread is changed, so a crash of this process still leaves
make_pairs.sh what to restore; if make_pairs.sh itself is killed (SIGKILL), this notices it was
orphaned within SCAN_S and restores on its own. With --ready FILE it creates FILE once its first
scan has boosted every such thread there is: a caller that starts the workload before then (Python
takes 50-200 ms to start on a busy host) runs its first IOs unboosted. A thread is put back only if it is still the same thread (pid and
start time) and still at the priority we gave it. Exit 0 ok, 1 failure, 2 usage.
"""
import os
import re
import signal
import sys
import time

SCAN_S = 0.01
WORKERS = re.compile(r"^(kworker/(u\d+:\d+|\d+:\d+H)([-+].*)?|ksoftirqd/\d+)$")


def usage(rc):
    sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
    sys.exit(rc)


def stat_fields(pid):
    """/proc/PID/stat after the comm: [0] is field 3 (state)."""
    with open("/proc/%d/stat" % pid) as f:
        return f.read().rsplit(")", 1)[1].split()


def kthreads():
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        try:
            if stat_fields(pid)[1] != "2":  # parent kthreadd: a kernel thread
                continue
            with open("/proc/%d/comm" % pid) as f:
                comm = f.read().strip()
        except OSError:
            continue
        yield pid, comm


def restore(state, prio):
    """Put back every thread recorded in state that is still as we left it."""
    try:
        lines = open(state).read().split("\n")
    except FileNotFoundError:
        return 0
    failed = 0
    for line in lines:
        f = line.split()
        if len(f) != 5:
            continue
        pid, started, policy, nice, ours = int(f[0]), f[1], int(f[2]), int(f[3]), int(f[4])
        try:
            if stat_fields(pid)[19] != started:
                continue  # gone and the pid reused
            if os.sched_getscheduler(pid) != os.SCHED_FIFO or os.sched_getparam(pid).sched_priority != ours:
                continue  # changed by someone else since: not ours to touch
            os.sched_setscheduler(pid, policy, os.sched_param(0))
            os.setpriority(os.PRIO_PROCESS, pid, nice)
        except (ProcessLookupError, FileNotFoundError):
            continue
        except OSError as e:
            sys.stderr.write("boost_workers: cannot restore pid %d: %s\n" % (pid, e))
            failed = 1
    os.unlink(state)
    return failed


def boost(prio, state, ready, loops):
    jbd2 = re.compile(r"^jbd2/(%s)-" % "|".join(re.escape(x) for x in loops))
    seen = set()
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    parent = os.getppid()
    with open(state, "a") as rec:
        # A parent killed with SIGKILL cannot stop us: once we are orphaned, put back and exit,
        # rather than boost every new worker until the next reboot.
        while not stop and os.getppid() == parent:
            for pid, comm in kthreads():
                if pid in seen or not (WORKERS.match(comm) or jbd2.match(comm)):
                    continue
                seen.add(pid)
                try:
                    policy = os.sched_getscheduler(pid)
                    if policy not in (os.SCHED_OTHER, os.SCHED_BATCH):
                        continue  # real-time already: not ours
                    nice = os.getpriority(os.PRIO_PROCESS, pid)
                    rec.write("%d %s %d %d %d\n" % (pid, stat_fields(pid)[19], policy, nice, prio))
                    rec.flush()
                    os.sched_setscheduler(pid, os.SCHED_FIFO, os.sched_param(prio))
                except (ProcessLookupError, FileNotFoundError):
                    continue
            if ready:
                open(ready, "w").close()
                ready = None
            time.sleep(SCAN_S)
    return restore(state, prio)


def main(argv):
    if len(argv) == 2 and argv[0] == "--restore":
        return restore(argv[1], None)
    if len(argv) >= 5 and argv[0] == "--fifo" and argv[2] == "--state":
        try:
            prio = int(argv[1])
        except ValueError:
            usage(2)
        ready, rest = None, argv[4:]
        if rest[:1] == ["--ready"]:
            if len(rest) < 3:
                usage(2)
            ready, rest = rest[1], rest[2:]
        loops = [x.replace("/dev/", "") for x in rest]
        if not 1 <= prio <= 99 or not all(re.match(r"^loop\d+$", x) for x in loops):
            usage(2)
        return boost(prio, argv[3], ready, loops)
    if argv[:1] in (["-h"], ["--help"]):
        sys.stdout.write(__doc__)
        return 0
    usage(2)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
