/* replay_fixture.h — what the blkreel-replay suites share: hand-built traces
 * of known IOs, loop devices over files in a temp dir (created per test,
 * always detached in teardown), running the tool, reading its JSON report. */
#ifndef BLKREEL_TEST_REPLAY_FIXTURE_H
#define BLKREEL_TEST_REPLAY_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RF_DEV_MAJ 8
#define RF_DEV_MIN 99           /* a device that exists nowhere here */
#define RF_N 200                /* IOs in the standard trace */
#define RF_STEP_NS 5000000ull   /* 5 ms apart: 0.995 s span */
#define RF_FLUSH_AT 100
#define RF_DISCARD_AT 150
#define RF_DISCARD_SECTOR 60000ull
#define RF_DISCARD_BYTES (1u << 20)
#define RF_IO_BYTES 4096u

typedef struct rf_state {
	char *dir;
	char loop[2][64];        /* loop devices we created, "" when none */
	char mnt[512];           /* a filesystem we mounted, "" when none */
	char shm[64];            /* our dir in /dev/shm for RAM-backed images, "" when none */
} rf_state;

extern rf_state rf;

void rf_setup(void);
void rf_teardown(void);

/* Skip unless root; create loop device i over DIR/imgI of mib MiB. */
const char *rf_loop(int i, unsigned mib);

/* The same over a file in a dir of ours in /dev/shm (tmpfs): a RAM-backed
 * loop device, as users build one for a fast side. */
const char *rf_ram_loop(int i, unsigned mib);

/* Kind of IO i of the standard trace: 'R', 'W', 'F' (flush), 'X' (discard). */
char rf_kind(unsigned i);
uint64_t rf_offset(unsigned i);   /* byte offset of IO i on the traced device */
/* Write the standard trace (D and C events) to path; returns path. */
const char *rf_trace(const char *name);
/* Write a trace of n reads/writes at given byte offsets, 1 ms apart. */
const char *rf_trace_offsets(const char *name, const uint64_t *offs, size_t n, bool write);

/* Path under the temp dir. */
const char *rf_path(const char *name);

/* Run blkreel-replay with args; stdout and stderr into *out and *err (may be NULL). */
int rf_replay(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Run blkreel-replay with args under blkreel-capture of dev (holding the
 * machine-wide tracer lock); stdout into *out (may be NULL). Skips the test
 * when the capture tool is not built or the kernel offers no backend; fails
 * it when either tool fails. Returns the capture's path. */
const char *rf_captured_replay(const char *dev, char **out, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A number from the JSON report at a Python-style path, e.g. "['issued']['read']".
 * Fails the test when the report does not parse. */
double rf_json(const char *report, const char *path);

/* Read len bytes at off of a regular file. */
bool rf_pread(const char *file, uint64_t off, void *buf, size_t len);

#endif
