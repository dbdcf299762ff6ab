/* BR_OUT_SPLIT: a per-CPU set PATH.blktrace.<cpu>, routed by each record's
 * cpu field (blkparse's file mode rejects records whose cpu disagrees with
 * their file). blkparse stops at the first missing CPU number, so gaps get
 * empty files at close. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fdout.h"
#include "common/writer_impl.h"

#define MAX_CPUS 8192

typedef struct split_writer {
	char *base;
	br_fdout *files;   /* indexed by cpu; buf == NULL when not open */
	unsigned ncpus;    /* files[] size */
	unsigned max_cpu_plus1;
} split_writer;

static int split_open(void *state, const char *path, const br_writer_opts *opts, br_error *err)
{
	(void)opts;
	split_writer *w = state;
	if (strcmp(path, "-") == 0)
		return br_error_set(err, BR_EINVAL, 0, path, -1,
				    "a per-CPU set needs a file name, not standard output");
	w->base = strdup(path);
	if (!w->base)
		return br_error_set(err, BR_ENOMEM, ENOMEM, path, -1, "out of memory");
	return 0;
}

static int open_cpu(split_writer *w, unsigned cpu, br_error *err)
{
	if (cpu >= MAX_CPUS)
		return br_error_set(err, BR_EFORMAT, 0, w->base, -1,
				    "cpu %u in a record is out of range for a per-CPU set", cpu);
	if (cpu >= w->ncpus) {
		unsigned n = w->ncpus ? w->ncpus : 8;
		while (n <= cpu)
			n *= 2;
		br_fdout *f = realloc(w->files, n * sizeof *f);
		if (!f)
			return br_error_set(err, BR_ENOMEM, ENOMEM, w->base, -1, "out of memory");
		memset(f + w->ncpus, 0, (n - w->ncpus) * sizeof *f);
		w->files = f;
		w->ncpus = n;
	}
	if (!w->files[cpu].buf) {
		char path[1024];
		br_split_path(path, sizeof path, w->base, cpu);
		int rc = br_fdout_open(&w->files[cpu], path, 256u << 10, err);
		if (rc)
			return rc;
	}
	if (cpu + 1 > w->max_cpu_plus1)
		w->max_cpu_plus1 = cpu + 1;
	return 0;
}

static int split_write(void *state, const br_event *ev, const uint8_t *raw, size_t raw_len,
		       br_error *err)
{
	split_writer *w = state;
	if (ev->cpu >= w->ncpus || !w->files[ev->cpu].buf) {
		int rc = open_cpu(w, ev->cpu, err);
		if (rc)
			return rc;
	}
	return br_fdout_write(&w->files[ev->cpu], raw, raw_len, err);
}


static int split_close(void *state, br_error *err)
{
	split_writer *w = state;
	int first = 0;
	/* fill gaps so blkparse, which stops at the first missing cpu, sees all */
	for (unsigned i = 0; i < w->max_cpu_plus1; i++)
		if (!w->files[i].buf) {
			int rc = open_cpu(w, i, err);
			if (rc && !first)
				first = rc;
		}
	for (unsigned i = 0; i < w->ncpus; i++)
		if (w->files[i].buf) {
			br_error tmp;
			int rc = br_fdout_close(&w->files[i], first ? &tmp : err);
			if (rc && !first)
				first = rc;
		}
	free(w->files);
	free(w->base);
	return first;
}

void br_split_path(char *out, size_t size, const char *path, unsigned cpu)
{
	snprintf(out, size, "%s.blktrace.%u", path, cpu);
}

static void split_remove(const char *path)
{
	char name[1024];
	for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
		br_split_path(name, sizeof name, path, cpu);
		if (unlink(name) != 0 && errno == ENOENT && cpu > 0)
			break;
	}
}

const br_writer_ops br_split_writer_ops = {
	.name = "per-CPU set",
	.state_size = sizeof(split_writer),
	.open = split_open,
	.write = split_write,
	.close = split_close,
	.remove = split_remove,
};
