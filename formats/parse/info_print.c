#include "info_print.h"

#include <inttypes.h>
#include <string.h>

#include "blkreel/units.h"

static const char *kind_name(enum br_input_kind k)
{
	switch (k) {
	case BR_INPUT_STREAM: return "blk_io_trace stream";
	case BR_INPUT_CPUSET: return "per-CPU set";
	case BR_INPUT_COMPRESSED: return "compressed trace";
	case BR_INPUT_FOREIGN: return "foreign format";
	case BR_INPUT_ROTATED: return "rotated set";
	case BR_INPUT_PATTERN: return "files matching a pattern";
	}
	return "?";
}

static double rel_s(uint64_t t, uint64_t origin)
{
	return t >= origin ? (double)(t - origin) / 1e9 : -(double)(origin - t) / 1e9;
}

const char *info_damage_line(const br_input_info *in, const br_damage *d, uint64_t origin,
			     char *buf, size_t size)
{
	/* in a set of files, the offset is in one of them: name it */
	const char *file = in->kind == BR_INPUT_COMPRESSED || !d->file ? in->path : d->file;
	if (d->range_known)
		snprintf(buf, size,
			 "%s: byte %" PRId64 ": damaged member skipped (%" PRId64
			 " bytes): %" PRIu64 " records lost, %.9f to %.9f s",
			 file, d->offset, d->length, d->records, rel_s(d->first_time, origin),
			 rel_s(d->last_time, origin));
	else
		snprintf(buf, size,
			 "%s: byte %" PRId64 ": %" PRId64
			 " damaged bytes skipped; lost records lie between the neighbouring members",
			 file, d->offset, d->length);
	return buf;
}

/* The members of a rotated set by number, and the numbers between them
 * that have no file (--keep deleted only the oldest, so a gap inside the
 * range is a lost slice of the trace). */
static void print_rotated(FILE *out, const br_input_info *in)
{
	enum { SHOWN_GAPS = 8 };
	int w = (int)in->set_digits;
	fprintf(out, "  rotated set %s: %u file%s, %s.%0*" PRIu64 " ... %s.%0*" PRIu64 ".blktrace.gz",
		in->set_name, in->files, in->files == 1 ? "" : "s", in->set_name, w, in->set_first,
		in->set_name, w, in->set_last);
	uint64_t missing = 0;
	for (size_t g = 0; g < in->nset_gaps; g++) {
		const br_number_range *n = &in->set_gaps[g];
		missing += n->last - n->first + 1;
		if (g >= SHOWN_GAPS)
			continue;
		fprintf(out, "%s%0*" PRIu64, g ? ", " : "; ", w, n->first);
		if (n->last != n->first)
			fprintf(out, "-%0*" PRIu64, w, n->last);
		fprintf(out, " missing");
	}
	if (in->nset_gaps > SHOWN_GAPS)
		fprintf(out, ", and %zu more gaps", in->nset_gaps - SHOWN_GAPS);
	if (in->nset_gaps)
		fprintf(out, " (%" PRIu64 " file%s)", missing, missing == 1 ? "" : "s");
	fprintf(out, "\n");
}

static void print_inputs(FILE *out, const br_reader *r)
{
	char b1[32], b2[32];
	for (size_t i = 0; i < br_reader_ninputs(r); i++) {
		const br_input_info *in = br_reader_input(r, i);
		fprintf(out, "input: %s (%s", in->path,
			in->kind == BR_INPUT_FOREIGN && in->format_name ? in->format_name : kind_name(in->kind));
		if (in->kind == BR_INPUT_CPUSET)
			fprintf(out, ", %u non-empty files", in->files);
		if (in->kind == BR_INPUT_PATTERN)
			fprintf(out, ", %u non-empty files merged by time", in->files);
		if (in->byteswapped)
			fprintf(out, ", other byte order");
		fprintf(out, ", %s of records)\n", br_format_bytes(in->raw_bytes, b1, sizeof b1));
		if (in->kind == BR_INPUT_ROTATED)
			print_rotated(out, in);
		if (in->kind == BR_INPUT_COMPRESSED || in->kind == BR_INPUT_ROTATED ||
		    (in->kind == BR_INPUT_PATTERN && in->members)) {
			fprintf(out, "  compressed: %s, %" PRIu64 " gzip members, %s", 
				br_format_bytes(in->compressed_bytes, b2, sizeof b2), in->members,
				in->indexed ? "indexed by time (blkreel member headers)"
					    : "plain gzip, no index");
			if (in->compressed_bytes && in->raw_bytes)
				fprintf(out, ", ratio %.2f", (double)in->raw_bytes /
								 (double)in->compressed_bytes);
			fprintf(out, "\n");
			if (in->members_skipped)
				fprintf(out, "  members skipped by the time window without inflating: %" PRIu64 "\n",
					in->members_skipped);
		}
		if (in->note)
			fprintf(out, "  note: %s\n", in->note);
		if (in->bad_records_skipped)
			fprintf(out, "  malformed records skipped: %" PRIu64 "\n", in->bad_records_skipped);
		for (size_t d = 0; d < in->ndamage; d++) {
			char line[512];
			fprintf(out, "  damage: %s\n",
				info_damage_line(in, &in->damage[d], br_reader_start_time(r), line,
						 sizeof line));
		}
	}
}

/* rows in this order */
static const struct {
	enum br_dir dir;
	const char *name;
} dir_rows[BR_DIR_COUNT] = {
	{ BR_DIR_READ, "reads" },
	{ BR_DIR_WRITE, "writes" },
	{ BR_DIR_DISCARD, "discards" },
	{ BR_DIR_OTHER, "no data" },
};

static void print_io_table(FILE *out, const br_device_summary *d)
{
	fprintf(out, "    %-9s %24s %24s %24s\n", "", "queued (Q)", "issued (D)", "completed (C)");
	for (int row = 0; row < BR_DIR_COUNT; row++) {
		enum br_dir dir = dir_rows[row].dir;
		bool any = false;
		for (int st = 0; st < BR_KIND_COUNT; st++)
			any |= d->io[st][dir].ios != 0;
		if (!any)
			continue;
		fprintf(out, "    %-9s", dir_rows[row].name);
		for (int st = 0; st < BR_KIND_COUNT; st++) {
			char b[32], cell[64];
			snprintf(cell, sizeof cell, "%" PRIu64 " (%s)", d->io[st][dir].ios,
				 br_format_bytes(d->io[st][dir].bytes, b, sizeof b));
			fprintf(out, " %24s", cell);
		}
		fprintf(out, "\n");
	}
}

static void print_devices(FILE *out, const br_summary *s, uint64_t origin)
{
	for (size_t i = 0; i < br_summary_ndevices(s); i++) {
		const br_device_summary *d = br_summary_device(s, i);
		fprintf(out, "device %u,%u: %" PRIu64 " events, %.9f to %.9f s\n",
			BR_DEV_MAJOR(d->device), BR_DEV_MINOR(d->device), d->events,
			rel_s(d->first_time, origin), rel_s(d->last_time, origin));
		fprintf(out, "    actions:");
		for (unsigned code = 0; code < BR_ACTION_CODES; code++) {
			if (!d->by_action[code])
				continue;
			br_event probe = { .action = code };
			fprintf(out, " %s %" PRIu64, br_event_action_name(&probe), d->by_action[code]);
		}
		fprintf(out, "\n");
		print_io_table(out, d);
		if (d->flushes || d->fua || d->errors)
			fprintf(out, "    completions: %" PRIu64 " flush, %" PRIu64 " FUA, %" PRIu64
				" with error\n", d->flushes, d->fua, d->errors);
	}
}

static void print_processes(FILE *out, const br_summary *s)
{
	size_t n = br_summary_nprocesses(s);
	fprintf(out, "processes: %zu\n", n);
	if (!n)
		return;
	fprintf(out, "    %8s %-16s %10s %10s %12s %10s %12s\n", "pid", "name", "events", "reads",
		"read bytes", "writes", "write bytes");
	for (size_t i = 0; i < n; i++) {
		const br_process_summary *p = br_summary_process(s, i);
		char rb[32], wb[32];
		fprintf(out, "    %8u %-16s %10" PRIu64 " %10" PRIu64 " %12s %10" PRIu64 " %12s\n",
			p->pid, p->comm ? p->comm : "(unnamed)", p->events,
			p->queued[BR_DIR_READ].ios,
			br_format_bytes(p->queued[BR_DIR_READ].bytes, rb, sizeof rb),
			p->queued[BR_DIR_WRITE].ios,
			br_format_bytes(p->queued[BR_DIR_WRITE].bytes, wb, sizeof wb));
	}
}

/* Requests issued, exact bytes, and their latency as the shared pairing
 * sees it: the numbers a query over -o X.csv gives (its rows are the D
 * events, latency_ns the D2C). */
static void print_requests(FILE *out, const br_summary *s, const br_stats_totals *st)
{
	uint64_t ios = 0, bytes = 0;
	for (size_t i = 0; i < br_summary_ndevices(s); i++)
		for (int dir = 0; dir < BR_DIR_COUNT; dir++) {
			ios += br_summary_device(s, i)->io[BR_KIND_D][dir].ios;
			bytes += br_summary_device(s, i)->io[BR_KIND_D][dir].bytes;
		}
	fprintf(out, "requests: %" PRIu64 " issued (D), %" PRIu64 " bytes; %" PRIu64
		" completed, %" PRIu64 " never completed\n",
		ios, bytes, st->d2c.count, st->never_completed);
	if (st->completed_untimed)
		fprintf(out, "    %" PRIu64 " completed at an unknown time: the capture counted %" PRIu64
			" completions the kernel did not hand over (unrecorded=%" PRIu64 "); no latency, "
			"not in flight, not counted as never completed\n",
			st->completed_untimed, st->unrecorded, st->unrecorded);
	if (st->refused_bios)
		fprintf(out, "    refused before issue: %" PRIu64 " bios, %" PRIu64 " bytes (queued, then "
			"completed with an error, never issued: not served IOs, not in the counts "
			"below)\n", st->refused_bios, st->refused_bytes);
	if (st->d2c.count)
		fprintf(out, "    D2C: mean %.3f us, p50 %.3f us, p99 %.3f us, max %.3f us\n",
			br_hist_mean(&st->d2c) / 1e3, (double)br_hist_quantile(&st->d2c, 0.5) / 1e3,
			(double)br_hist_quantile(&st->d2c, 0.99) / 1e3, (double)st->d2c.max / 1e3);
	if (st->q2c.count)
		fprintf(out, "    Q2C: mean %.3f us, p50 %.3f us, p99 %.3f us, max %.3f us (%" PRIu64
			" requests with a Q)\n",
			br_hist_mean(&st->q2c) / 1e3, (double)br_hist_quantile(&st->q2c, 0.5) / 1e3,
			(double)br_hist_quantile(&st->q2c, 0.99) / 1e3, (double)st->q2c.max / 1e3,
			st->q2c.count);
}

/* --dev: say the summary is of a part, so it is not taken for the whole. */
static void print_kept_devices(FILE *out, const br_reader_opts *ro)
{
	if (!ro || !ro->ndevices)
		return;
	fprintf(out, "kept: device%s", ro->ndevices > 1 ? "s" : "");
	for (unsigned i = 0; i < ro->ndevices; i++)
		fprintf(out, " %u,%u", BR_DEV_MAJOR(ro->devices[i]), BR_DEV_MINOR(ro->devices[i]));
	fprintf(out, " (--dev), times from %s first event\n", ro->ndevices > 1 ? "their" : "its");
}

void info_print(FILE *out, const br_reader *r, const br_reader_opts *ro, const br_summary *s,
		const br_stats_totals *st)
{
	uint64_t origin = br_reader_start_time(r);
	print_inputs(out, r);
	print_kept_devices(out, ro);
	uint64_t first = br_summary_first_time(s), last = br_summary_last_time(s);
	char dur[32];
	fprintf(out, "events: %" PRIu64 " (%" PRIu64 " notify records)\n", br_summary_events(s),
		br_summary_notify_events(s));
	if (br_summary_events(s) > br_summary_notify_events(s))
		fprintf(out, "span: %s, from %.9f to %.9f s after the trace's first event\n",
			br_format_duration(last - first, dur, sizeof dur), rel_s(first, origin),
			rel_s(last, origin));
	fprintf(out, "devices: %zu\n", br_summary_ndevices(s));
	print_devices(out, s, origin);
	if (st)
		print_requests(out, s, st);
	print_processes(out, s);
}
