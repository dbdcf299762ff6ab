/* capture_fixture.h — what the blkreel-capture suites share: a loop device
 * over a file in a temp dir (created per test, always detached), tracefs
 * mounted as the tool would mount it (and unmounted again when the test
 * mounted it), the tracer lock, running the tool, the known workload and
 * reading captures back through Debian's blkparse. Every teardown puts the
 * tracer back. */
#ifndef BLKREEL_TEST_CAPTURE_FIXTURE_H
#define BLKREEL_TEST_CAPTURE_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* the tool's own mount logic (capture's archive), so the tests set up
 * exactly what it would */
#include "../../capture/kstate/fs_mount.h"

#define TRACEFS "/sys/kernel/tracing"

typedef struct cf_state {
	char *dir;        /* temp dir: disk image, outputs */
	char loop[64];    /* /dev/loopN we created, "" when none */
	char name[32];    /* loopN */
	int lock;         /* tu_tracer_lock fd */
	char mnt[512];    /* a filesystem we mounted for a test, "" when none */
	bool mounted_tracefs; /* tracefs was not mounted: the fixture mounted it */
	bool used_tracer; /* a capture of this test may have used the blk tracer */
	pid_t pids[32];   /* captures this test started in the background */
	size_t npids;
	char extra[4][64]; /* more loop devices of ours (cf_extra_loop) */
	size_t nextra;
	bool hooks;       /* cf_capture/cf_capture_bg run the hooks build (tu_hook_bin) */
} cf_state;

extern cf_state cf;

/* Criterion .init/.fini: reset; detach, restore, unlock. */
void cf_setup(void);
void cf_teardown(void);

/* Skips the test (cr_skip_test) only where the machine cannot: not root, no
 * tracefs in the kernel, no losetup. Takes the tracer lock, then mounts
 * tracefs when it is not mounted (with the tool's own code,
 * capture/kstate/fs_mount.c; teardown unmounts it before letting the lock go) and
 * creates a loop device over a sparse file of mib MiB. A suite using this
 * fixture is a kernel suite: it includes tests/common/kernel_suite.h, which
 * runs one test at a time and one kernel suite at a time. */
void cf_kernel_test(unsigned mib);

/* Skip the test where the kernel has no BTF (the bpf backend needs it). */
void cf_need_btf(void);

/* One more loop device of ours (a sparse file in cf.dir, detached at
 * teardown); returns its path (static storage per call). */
const char *cf_extra_loop(unsigned mib);

/* The backends `blkreel-capture --list-backends -d DEV` says work on our
 * loop device: their names, up to max; returns how many. The backend tests
 * run on each, so a new backend is covered the day it lands. */
size_t cf_backends(char (*names)[16], size_t max);

/* The known workload as a shell command for `-- sh -c CMD`: fio, 100 x 64 KiB
 * O_DIRECT writes at sectors 256*i, then 50 x 4 KiB reads at sectors 512*j. */
const char *cf_workload(void);
/* The same IOs, think_us apart (fio --thinktime): spread over time. */
const char *cf_workload_paced(unsigned think_us);

/* The blkreel-capture cf_capture and cf_capture_bg run: the release one,
 * or with cf.hooks the test and bench hooks build. */
const char *cf_capture_bin(void);
/* Run blkreel-capture with args (a shell fragment), stderr into *err. */
int cf_capture(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Start it in the background (stderr to path); returns its pid. */
pid_t cf_capture_bg(const char *errpath, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Wait (10 s at most, else the test fails) until text is in the file at
 * path: a background capture's stderr saying it traces, a file written. */
void cf_wait_for_text(const char *path, const char *text);
/* Wait for a pid; exit status or 128+signal. */
int cf_wait(pid_t pid);

/* Event lines of blkparse's output of a capture: counts of D and C events
 * matching the known workload exactly, and any others. */
typedef struct cf_counts {
	size_t d_write, d_read, c_write, c_read; /* matching the workload */
	size_t d_other, c_other;                 /* D/C not of the workload */
	size_t lines;                            /* event lines in total */
	size_t fio_named;                        /* Q/D lines that say [fio] */
	size_t null_named;                       /* lines that say [(null)] */
	bool d_all_seen, c_all_seen;             /* every workload IO seen once */
	size_t c_missing;                        /* workload IOs with their D once and no C */
	bool c_once_or_missing;                  /* every IO's C seen once, or missing as above */
} cf_counts;
void cf_count(const char *blkparse_text, cf_counts *c);
/* Every IO of the known workload's D and C once, named [fio], nothing
 * else, but for exactly the completions the capture's check counted as
 * unrecorded (tu_capture_unrecorded): those IOs have no C. */
void cf_expect_exact(const cf_counts *c, unsigned long long unrecorded, const char *what);

/* True when this test's own captures left nothing behind: no state file of
 * their pids in /run/blkreel, our device's trace/enable back at 0, and (only
 * when one of them could have used the blk tracer: --backend tracefs, or the
 * automatic choice) the tracer back at nop. Other captures running on the
 * machine meanwhile (perf needs no lock) are none of its business. */
bool cf_kernel_clean(char *why, size_t size);

/* The capture cf.dir/NAME holds a drops record with counts, and every IO
 * issued (D) whose completion it lacks is among the completions that record
 * says are unrecorded (dropped C records are: the device completed them);
 * else a reader would take them as never completed. No backend may lose a
 * completion silently. */
void cf_expect_drops_in_file(const char *name);

#endif
