#include "parse_run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "blkreel/stats.h"
#include "blkreel/summary.h"
#include "blkreel/text.h"
#include "info_print.h"
#include "tool/progress.h"
#include "tool/say.h"

#define PROG "blkreel-parse"

static int report(const br_error *err)
{
	char msg[1400];
	tool_say(PROG, "%s%s", br_error_format(err, msg, sizeof msg),
		 err->code == BR_ECORRUPT ? " (--salvage skips damaged members)" : "");
	return TOOL_EXIT_FAIL;
}

typedef struct run_state {
	br_reader *reader;
	br_writer *writer;
	br_text *text;
	br_summary *summary;
	br_stats *stats;        /* --info: the shared pairing, for D2C and Q2C */
	tool_progress progress;
} run_state;

static void release(run_state *s, bool failed)
{
	br_error ignored;
	tool_progress_done(&s->progress);
	if (failed)
		br_writer_abort(s->writer);
	else
		br_writer_close(s->writer, &ignored);
	br_text_close(s->text, &ignored);
	br_summary_free(s->summary);
	br_stats_free(s->stats);
	br_reader_close(s->reader);
}

/* blkparse names a per-CPU set by its file name without directory and
 * without the ".blktrace.N" tail. */
static void set_label_of(const char *path, char *out, size_t size)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	const char *tail = strstr(base, ".blktrace.");
	size_t n = tail ? (size_t)(tail - base) : strlen(base);
	snprintf(out, size, "%.*s", (int)n, base);
}

static void warn_losses(const br_reader *r)
{
	for (size_t i = 0; i < br_reader_ninputs(r); i++) {
		const br_input_info *in = br_reader_input(r, i);
		if (in->bad_records_skipped)
			tool_say(PROG, "%s: skipped %" PRIu64 " malformed lines (--skip-bad)", in->path,
				 in->bad_records_skipped);
		for (size_t d = 0; d < in->ndamage; d++) {
			char line[512];
			tool_say(PROG, "warning: %s",
				 info_damage_line(in, &in->damage[d], br_reader_start_time(r), line,
						  sizeof line));
		}
	}
}

/* --dev: a device asked for that has no event. The output is written all
 * the same (it is exactly that device's part: nothing), but a file without
 * events must not pass for a split that worked, so the caller exits 1. */
static bool warn_missing_devices(const br_reader *r, const br_reader_opts *o)
{
	bool missing = false;
	for (unsigned i = 0; i < o->ndevices; i++) {
		if (br_reader_device_events(r, i))
			continue;
		tool_say(PROG, "warning: no events of device %u,%u in the %s",
			 BR_DEV_MAJOR(o->devices[i]), BR_DEV_MINOR(o->devices[i]),
			 o->has_from || o->has_to ? "time window" : "input");
		missing = true;
	}
	return missing;
}

int parse_run(const parse_cli *cli)
{
	run_state s = { 0 };
	br_error err;
	br_error_clear(&err);
	int rc = br_reader_open(&s.reader, cli->inputs, cli->ninputs, &cli->read, &err);
	if (rc)
		return report(&err);
	if (cli->output)
		rc = br_writer_open(&s.writer, cli->output_kind, cli->output, &cli->write, &err);
	else if (cli->split)
		rc = br_writer_open(&s.writer, BR_OUT_SPLIT, cli->split, &cli->write, &err);
	if (!rc && cli->text)
		rc = br_text_open(&s.text, STDOUT_FILENO, "<stdout>", br_reader_start_time(s.reader),
				  &err);
	if (!rc && s.text && cli->ninputs == 1 &&
	    br_reader_input(s.reader, 0)->kind == BR_INPUT_CPUSET) {
		char label[512];
		set_label_of(cli->inputs[0], label, sizeof label);
		rc = br_text_set_label(s.text, label, &err);
	}
	if (!rc && cli->info && !(s.summary = br_summary_new()))
		rc = br_error_set(&err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	if (!rc && cli->info)
		rc = br_stats_new(&s.stats, NULL, &err);
	if (rc) {
		release(&s, true);
		return report(&err);
	}
	/* a status line would interleave with events printed to a terminal */
	tool_progress_init(&s.progress, STDERR_FILENO,
			 cli->progress && !(cli->text && isatty(STDOUT_FILENO)), "blkreel-parse");

	uint64_t n = 0;
	br_event ev;
	while ((rc = br_reader_next(s.reader, &ev, &err)) == 1) {
		n++;
		if (s.writer && (rc = br_writer_write(s.writer, &ev, &err)))
			break;
		if (s.text && (rc = br_text_event(s.text, &ev, &err)))
			break;
		if (s.summary && (rc = br_summary_add(s.summary, &ev)))
			break;
		if (s.stats && (rc = br_stats_add(s.stats, &ev, &err)))
			break;
		tool_progress_tick(&s.progress, n, NULL);
	}
	tool_progress_done(&s.progress);
	if (rc == BR_ENOMEM && !err.msg[0])
		br_error_set(&err, rc, 0, NULL, -1, "out of memory");
	if (rc < 0) {
		release(&s, true);
		return report(&err);
	}
	if (s.writer) {
		rc = br_writer_close(s.writer, &err);
		s.writer = NULL;
		if (rc) {
			/* the output may be missing its end: do not leave it looking whole */
			if (cli->output && strcmp(cli->output, "-") != 0)
				unlink(cli->output);
			release(&s, true);
			return report(&err);
		}
	}
	if (s.text && !cli->quiet && (rc = br_text_summary(s.text, &err))) {
		release(&s, true);
		return report(&err);
	}
	if (s.text && (rc = br_text_close(s.text, &err))) {
		s.text = NULL;
		release(&s, true);
		return report(&err);
	}
	s.text = NULL;
	if (s.stats && (rc = br_stats_finish(s.stats, &err))) {
		release(&s, true);
		return report(&err);
	}
	if (s.summary)
		info_print(stdout, s.reader, &cli->read, s.summary, br_stats_get_totals(s.stats));
	warn_losses(s.reader);
	bool devices_missing = warn_missing_devices(s.reader, &cli->read);
	release(&s, false);
	if (fflush(stdout) != 0) {
		tool_say(PROG, "<stdout>: %s", strerror(errno));
		return TOOL_EXIT_FAIL;
	}
	return devices_missing ? TOOL_EXIT_FAIL : TOOL_EXIT_OK;
}
