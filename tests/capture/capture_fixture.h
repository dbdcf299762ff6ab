/* capture_fixture.h — what the blkreel-capture suites share: a loop device
 * over a file in a temp dir (created per test, always detached), the tracer
 * lock, running the tool, the known workload and reading captures back
 * through Debian's blkparse. Every teardown puts the tracer back. */
#ifndef BLKREEL_TEST_CAPTURE_FIXTURE_H
#define BLKREEL_TEST_CAPTURE_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct cf_state {
	char *dir;        /* temp dir: disk image, outputs */
	char loop[64];    /* /dev/loopN we created, "" when none */
	char name[32];    /* loopN */
	int lock;         /* tu_tracer_lock fd */
	char mnt[512];    /* a filesystem we mounted for a test, "" when none */
} cf_state;

extern cf_state cf;

/* Criterion .init/.fini: reset; detach, restore, unlock. */
void cf_setup(void);
void cf_teardown(void);

/* Skips the test (cr_skip_test) when not root or no tracefs. Takes the
 * tracer lock and creates a loop device over a sparse file of mib MiB. */
void cf_kernel_test(unsigned mib);

/* The known workload as a shell command for `-- sh -c CMD`: fio, 100 x 64 KiB
 * O_DIRECT writes at sectors 256*i, then 50 x 4 KiB reads at sectors 512*j. */
const char *cf_workload(void);

/* Run blkreel-capture with args (a shell fragment), stderr into *err. */
int cf_capture(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Start it in the background (stderr to path); returns its pid. */
pid_t cf_capture_bg(const char *errpath, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
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
} cf_counts;
void cf_count(const char *blkparse_text, cf_counts *c);

/* True when the tracer and loop device are as they were before. */
bool cf_kernel_clean(char *why, size_t size);

#endif
