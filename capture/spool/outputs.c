#include "spool/outputs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "hooks.h"
#include "spool/spool.h"
#include "spool/spool_finish.h"

static void build_base(char *out, size_t size, const capture_cli *cli, const char *name)
{
	char stem[1024];
	snprintf(stem, sizeof stem, "%s", name);
	/* "-o run1.blktrace.gz" means run1, not run1.blktrace.gz.blktrace.gz */
	size_t n = strlen(stem);
	if (n > 12 && strcmp(stem + n - 12, ".blktrace.gz") == 0)
		stem[n - 12] = 0;
	/* bounded explicitly: paths past ~1000 bytes are cut (and then fail to open) */
	if (cli->dir)
		snprintf(out, size, "%.500s/%.500s", cli->dir, stem);
	else
		snprintf(out, size, "%.1000s", stem);
}

/* The final writers: compressed (to gz, NULL: o->gz_path), and the per-CPU set with --split. */
static int open_final(cap_outputs *o, br_writer **w, unsigned *n, const br_writer_opts *opts, const char *gz,
		      br_error *err)
{
	*n = 0;
	int rc = br_writer_open(&w[0], BR_OUT_COMPRESSED, gz ? gz : o->gz_path, opts, err);
	if (rc)
		return rc;
	*n = 1;
	if (o->split_base[0]) {
		rc = br_writer_open(&w[1], BR_OUT_SPLIT, o->split_base, opts, err);
		if (rc) {
			br_writer_abort(w[0]);
			*n = 0;
			return rc;
		}
		*n = 2;
	}
	return 0;
}

/* What a spool compresses to, about (rotate.c measures it per file). */
#define SPOOL_TO_GZ 0.2

/* --flight: the ring's files are NAME.ring.NNNNN.blktrace.spool, each a
 * tenth of the window (100 ms to 10 s): what is kept beyond the window is
 * at most one such file. */
static void flight_ring_base(const char *base, char *out, size_t size)
{
	snprintf(out, size, "%.1000s.ring", base);
}

static uint64_t flight_slice_ns(uint64_t before_ns)
{
	uint64_t s = before_ns / 10;
	const uint64_t lo = 100ull * 1000 * 1000, hi = 10ull * 1000 * 1000 * 1000;
	return s < lo ? lo : s > hi ? hi : s;
}

static int open_rotating(cap_outputs *o, const capture_cli *cli, void (*opened)(void *, const char *), void *arg,
			 br_error *err)
{
	char ring[1040];
	bool flight = cli->flight_ns != 0;
	if (flight) {
		flight_ring_base(o->base, ring, sizeof ring);
		snprintf(o->gz_path, sizeof o->gz_path, "%.1000s.flight-*.blktrace.gz", o->base);
	} else {
		snprintf(o->gz_path, sizeof o->gz_path, "%.1000s.*.blktrace.gz", o->base);
	}
	/* compressed while tracing: one thread, the capture's level */
	br_writer_opts w = { .level = o->final_opts.level, .threads = 1 };
	uint64_t slice = flight_slice_ns(cli->flight_ns);
	cap_rotate_opts ro = {
		.base = flight ? ring : o->base,
		.period_ns = flight ? slice : cli->rotate_ns,
		.ring = flight,
		/* a window reaches back before_ns from a trigger up to after_ns old */
		.keep_ns = cli->flight_ns + cli->flight_after_ns + slice,
		.size = cli->rotate_bytes,
		.keep = cli->keep,
		.keep_bytes = cli->keep_bytes,
		.write = w,
		.log = cli->quiet ? NULL : stderr,
		.opened = opened,
		.opened_arg = arg,
	};
#ifdef BLKREEL_TEST_HOOKS
	ro.no_sync = cli->hooks && cli->hooks->no_sync; /* measurement only */
#endif
	return cap_rotate_open(&o->rotate, &ro, err);
}

int cap_outputs_open(cap_outputs *o, const capture_cli *cli, const char *default_name,
		     void (*opened)(void *arg, const char *spool), void *arg, br_error *err)
{
	memset(o, 0, sizeof *o);
	const char *name = cli->output ? cli->output : default_name;
	o->final_opts = cli->write;
	if (strcmp(name, "-") == 0) {
		snprintf(o->gz_path, sizeof o->gz_path, "-");
		/* live: cheapest level unless asked, one compressor thread */
		if (!o->final_opts.level)
			o->final_opts.level = BR_LEVEL_FAST;
		if (!o->final_opts.threads)
			o->final_opts.threads = 1;
		return open_final(o, o->live, &o->nlive, &o->final_opts, NULL, err);
	}
	char *base = o->base;
	build_base(base, sizeof o->base, cli, name);
	if (cli->rotate_ns || cli->rotate_bytes || cli->flight_ns)
		return open_rotating(o, cli, opened, arg, err);
	snprintf(o->gz_path, sizeof o->gz_path, "%.1000s.blktrace.gz", base);
	if (cli->split)
		snprintf(o->split_base, sizeof o->split_base, "%s", base);
	/* Create the final files now, so a bad path fails before tracing starts. */
	br_writer *probe[2];
	unsigned np;
	int rc = open_final(o, probe, &np, &o->final_opts, NULL, err);
	if (rc)
		return rc;
	for (unsigned i = 0; i < np; i++)
		br_writer_abort(probe[i]);
	snprintf(o->spool_path, sizeof o->spool_path, "%.1000s.blktrace.spool", base);
	rc = cap_spool_open(&o->spool, o->spool_path, false, err);
	if (rc)
		return rc;
#ifdef BLKREEL_TEST_HOOKS
	if (cli->hooks && cli->hooks->no_sync) /* measurement only */
		cap_spool_no_sync(o->spool);
#endif
	o->spooling = true;
	return 0;
}

int cap_outputs_close(cap_outputs *o, br_error *err)
{
	int first = 0;
	br_error e;
	if (o->rotate) {
		int rc = cap_rotate_close(o->rotate, &o->rotated, err);
		o->rotate = NULL;
		o->final_events = o->rotated.events;
		return rc;
	}
	for (unsigned i = 0; i < o->nlive; i++) {
		if (i == 0)
			o->final_events = br_writer_events(o->live[0]);
		int rc = br_writer_close(o->live[i], &e);
		if (rc && !first) {
			first = rc;
			*err = e;
		}
	}
	o->nlive = 0;
	if (!o->spooling)
		return first;
	/* Punch the spool out as it is read only when the disk needs the room
	 * (its write failed, or the free space is less than the spool): else a
	 * kill -9 during the conversion would lose what was punched. */
	bool punch = cap_spool_failed(o->spool);
	struct statvfs vfs;
	if (!punch && statvfs(o->spool_path, &vfs) == 0 &&
	    (uint64_t)vfs.f_bavail * vfs.f_frsize < cap_spool_bytes(o->spool))
		punch = true;
	int src = cap_spool_close(o->spool, &e);
	o->spool = NULL;
	if (src && !first) {
		first = src;
		*err = e;
	}
	/* Even when the spool's last write failed (a full disk), what reached
	 * it is whole records up to a torn tail: those go into the files. They
	 * are made as .part files and renamed when finished (spool_finish.h):
	 * after a kill -9 meanwhile, --cleanup starts again from the spool
	 * (which is whole unless punched) instead of finding files that look
	 * finished. */
	cap_finish fin = { .spool = o->spool_path, .gz = o->gz_path, .split_base = o->split_base,
			   .opts = &o->final_opts, .punch = punch, .keep_on_error = true };
	cap_finish_result res;
	int rc = cap_spool_finish(&fin, &res, &e);
	o->final_events = res.events > 0 ? (uint64_t)res.events : 0;
	if (res.raw)
		o->raw_stats = res.raw_stats;
	if (rc && !first) {
		first = rc;
		*err = e;
	}
	unlink(o->spool_path);
	o->spooling = false;
	return first;
}

void cap_outputs_abort(cap_outputs *o)
{
	cap_rotate_abort(o->rotate);
	o->rotate = NULL;
	for (unsigned i = 0; i < o->nlive; i++)
		br_writer_abort(o->live[i]);
	o->nlive = 0;
	if (o->spooling) {
		cap_spool_close(o->spool, NULL);
		o->spool = NULL;
		unlink(o->spool_path);
	}
}

uint64_t cap_outputs_bytes(const cap_outputs *o)
{
	if (o->rotate)
		return cap_rotate_disk_bytes(o->rotate);
	if (o->spool)
		return cap_spool_bytes(o->spool);
	return o->nlive ? br_writer_bytes(o->live[0]) : 0;
}

uint64_t cap_outputs_disk_need(const cap_outputs *o)
{
	if (o->rotate)
		return cap_rotate_disk_bytes(o->rotate);
	uint64_t spool = cap_spool_bytes(o->spool);
	return spool + (uint64_t)((double)spool * SPOOL_TO_GZ);
}
