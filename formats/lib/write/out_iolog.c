/* BR_OUT_FIO_IOLOG: fio iolog version 3, so `fio --read_iolog` replays a
 * trace. Each issue (D) event becomes one IO line at its time in
 * microseconds after the first event: read, write, trim (discards) or sync
 * (flushes without data). Devices are named /dev/block/MAJ:MIN (the
 * kernel's own links), added and opened when first used and closed at the
 * end; fio's replay_redirect option sends everything to one file instead.
 * Other events carry nothing fio can replay and are left out. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/fdout.h"
#include "common/writer_impl.h"

#define MAX_DEVICES 1024

typedef struct iolog_writer {
	br_fdout out;
	bool started;
	uint64_t origin;
	uint64_t last_us;
	uint32_t devices[MAX_DEVICES];
	size_t ndevices;
} iolog_writer;

static int iolog_open(void *state, const char *path, const br_writer_opts *opts, br_error *err)
{
	(void)opts;
	iolog_writer *w = state;
	int rc = br_fdout_open(&w->out, path, 1u << 20, err);
	if (rc)
		return rc;
	static const char header[] = "fio version 3 iolog\n";
	return br_fdout_write(&w->out, header, sizeof header - 1, err);
}

static int put_line(iolog_writer *w, br_error *err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int put_line(iolog_writer *w, br_error *err, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	return br_fdout_write(&w->out, line, (size_t)n, err);
}

static int device_known(iolog_writer *w, uint32_t dev, uint64_t us, br_error *err)
{
	for (size_t i = 0; i < w->ndevices; i++)
		if (w->devices[i] == dev)
			return 0;
	if (w->ndevices == MAX_DEVICES)
		return br_error_set(err, BR_EUNSUP, 0, w->out.name, -1,
				    "more than %d devices for one iolog", MAX_DEVICES);
	w->devices[w->ndevices++] = dev;
	int rc = put_line(w, err, "%llu /dev/block/%u:%u add\n", (unsigned long long)us,
			  BR_DEV_MAJOR(dev), BR_DEV_MINOR(dev));
	if (!rc)
		rc = put_line(w, err, "%llu /dev/block/%u:%u open\n", (unsigned long long)us,
			      BR_DEV_MAJOR(dev), BR_DEV_MINOR(dev));
	return rc;
}

static int iolog_write(void *state, const br_event *ev, const uint8_t *raw, size_t raw_len,
		       br_error *err)
{
	(void)raw;
	(void)raw_len;
	iolog_writer *w = state;
	if (br_event_is_notify(ev) || br_event_code(ev) != __BLK_TA_ISSUE)
		return 0;
	if (!w->started) {
		w->started = true;
		w->origin = ev->time;
	}
	uint64_t us = ev->time >= w->origin ? (ev->time - w->origin) / 1000 : 0;
	if (us < w->last_us)
		us = w->last_us; /* fio needs non-decreasing times */
	w->last_us = us;
	const char *op;
	if (br_event_is_discard(ev))
		op = "trim";
	else if (br_event_is_write(ev))
		op = "write";
	else if (ev->bytes)
		op = "read";
	else if (br_event_is_flush(ev))
		op = "sync";
	else
		return 0; /* no data, no flush: nothing to replay */
	int rc = device_known(w, ev->device, us, err);
	if (rc)
		return rc;
	if (op[0] == 's')
		return put_line(w, err, "%llu /dev/block/%u:%u sync 0 0\n", (unsigned long long)us,
				BR_DEV_MAJOR(ev->device), BR_DEV_MINOR(ev->device));
	return put_line(w, err, "%llu /dev/block/%u:%u %s %llu %u\n", (unsigned long long)us,
			BR_DEV_MAJOR(ev->device), BR_DEV_MINOR(ev->device), op,
			(unsigned long long)ev->sector * 512, ev->bytes);
}


static int iolog_close(void *state, br_error *err)
{
	iolog_writer *w = state;
	if (!w->out.buf)
		return 0;
	int rc = 0;
	for (size_t i = 0; i < w->ndevices && !rc; i++)
		rc = put_line(w, err, "%llu /dev/block/%u:%u close\n", (unsigned long long)w->last_us,
			      BR_DEV_MAJOR(w->devices[i]), BR_DEV_MINOR(w->devices[i]));
	br_error ignored;
	int rc2 = br_fdout_close(&w->out, rc ? &ignored : err);
	return rc ? rc : rc2;
}

const br_writer_ops br_iolog_writer_ops = {
	.name = "fio iolog v3",
	.state_size = sizeof(iolog_writer),
	.open = iolog_open,
	.write = iolog_write,
	.close = iolog_close,
};
