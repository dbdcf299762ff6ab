/* testutil.h — helpers shared by the Criterion suites.
 * Paths: BLKREEL_ROOT (checkout), BLKREEL_BIN (tools of the variant under
 * test), BLKREEL_HOOK_BIN (its blkreel-capture with the test and bench
 * hooks, capture/hooks.h) are set by the GNUmakefile's check targets;
 * defaults work from the checkout. */
#ifndef BLKREEL_TESTUTIL_H
#define BLKREEL_TESTUTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Absolute path of the checkout / tool dir / a tool. Static buffers. */
const char *tu_root(void);
const char *tu_bin(const char *tool);
/* A tool built with the test and bench hooks (make hooks):
 * $BLKREEL_HOOK_BIN/tool, else build/release/hooks/tool. */
const char *tu_hook_bin(const char *tool);
/* ../shared/realtraces/<rel> if present, else NULL (skip the test). */
const char *tu_realtrace(const char *rel);
/* samples/<rel> under the checkout. */
const char *tu_sample(const char *rel);

/* Fresh temp dir (mkdtemp); removed by tu_tmpdir_remove. */
char *tu_tmpdir(void);
void tu_tmpdir_remove(char *dir);

/* One fresh temp dir per test, for suites declared
 *   TestSuite(name, .init = tu_dir_setup, .fini = tu_dir_teardown);
 * tu_dir is its path while the test runs (each test is its own process). */
extern char *tu_dir;
void tu_dir_setup(void);
void tu_dir_teardown(void);
/* tu_dir/name; the result lives in one of 8 rotating buffers. */
const char *tu_path(const char *name);

/* Run `sh -c cmd`, capture stdout and stderr (malloc'd, NUL terminated,
 * may be NULL to discard); returns the exit status (or 128+signal). */
int tu_run(const char *cmd, char **out, size_t *out_len, char **err);
int tu_runf(char **out, size_t *out_len, char **err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Run a blkreel tool (tu_bin(tool)) with the formatted arguments appended;
 * output and status as tu_run. */
int tu_run_tool(char **out, char **err, const char *tool, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int tu_vrun_tool(char **out, char **err, const char *tool, const char *fmt, va_list ap);

/* A loop device over a new sparse file dir/img of mib MiB (root only).
 * 0 with its path in dev, or -1. Detach it with tu_loop_detach in every
 * path. */
int tu_loop_create(const char *dir, const char *img, unsigned mib, char *dev, size_t size);
void tu_loop_detach(const char *dev);

/* Whole file into a malloc'd buffer, NUL-terminated past len; NULL on error. */
uint8_t *tu_read_file(const char *path, size_t *len);
/* The same as a string; "" (still to be freed) when the file cannot be read. */
char *tu_read_text(const char *path);
int tu_write_file(const char *path, const void *data, size_t len);

/* Count lines in a buffer that contain needle. */
size_t tu_count_lines(const char *text, const char *needle);

/* True when a program is on PATH. */
bool tu_have(const char *prog);

/* Tests that use the kernel's machine-wide blk tracer take this lock
 * (flock on /run/lock/blkreel-tracer.lock); returns an fd to close. */
int tu_tracer_lock(void);
void tu_tracer_unlock(int fd);

/* Held by a kernel suite's runner while its tests run (kernel_suite.h):
 * flock on /run/lock/blkreel-kernel-suites.lock, so two kernel suites never
 * overlap, however they are started. Says on stderr whom it waits for.
 * Release with tu_tracer_unlock. */
int tu_kernel_suite_lock(void);

/* A Python expression over the JSON document d at path, printed as compact
 * JSON (the caller frees it); the test fails when the file does not parse.
 * Layout-free: a writer may indent as it likes. */
char *tu_json_eval(const char *path, const char *expr);
/* The same, expected to print want. */
void tu_expect_json(const char *path, const char *expr, const char *want);

/* The completions a capture's check counted as unrecorded (" unrecorded=N"
 * on its stderr's drops line, or with -q its failure's count; 0 when none). *only_loss: the run lost
 * nothing else: exit 0 with none, or exit 1 with "N events lost (N
 * completions unrecorded)". The kernel does not hand perf or BPF the
 * completions it runs in softirq on top of some tasks (capture/README.md):
 * a test of exact events accepts exactly these as missing C records, IO by
 * IO (cf_counts.c_missing), and nothing else. */
unsigned long long tu_capture_unrecorded(int rc, const char *err, bool *only_loss);

#endif
