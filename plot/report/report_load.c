/* Read one trace through the analysis, with a live status line on a
 * terminal only. */
#include "report.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "blkreel/event_pipe.h"
#include "tool/progress.h"
#include "blkreel/reader.h"

int report_load(const report_cli *cli, size_t k, report_data *out, report_perio *perio,
		br_error *err)
{
	memset(out, 0, sizeof *out);
	out->trace = &cli->traces[k];
	const char *paths[1] = { out->trace->path };
	br_reader *r = NULL;
	int rc = br_reader_open(&r, paths, 1, &cli->read, err);
	if (rc)
		return rc;
	const br_input_info *info = br_reader_input(r, 0);
	snprintf(out->format, sizeof out->format, "%s",
		 info && info->format_name ? info->format_name : "trace");
	br_analysis_opts opts = cli->an;
	if (perio) {
		perio->label = out->trace->label;
		perio->origin = br_reader_start_time(r);
		opts.on_bio = report_perio_bio;
		opts.on_bio_arg = perio;
	}
	rc = br_analysis_new(&out->an, &opts, err);
	tool_progress prog;
	tool_progress_init(&prog, STDERR_FILENO, cli->progress, "blkreel-report");
	br_event_pipe *pipe = NULL;
	if (!rc)
		rc = br_event_pipe_start(&pipe, r, err);
	const br_event *evs;
	int n = 0;
	while (!rc && (n = br_event_pipe_next(pipe, &evs, err)) > 0) {
		for (int i = 0; i < n && !rc; i++)
			rc = br_analysis_add(out->an, &evs[i], err);
		out->events += (uint64_t)n;
		tool_progress_draw(&prog, out->events, out->trace->label, false);
	}
	if (!rc && n < 0)
		rc = n;
	br_event_pipe_stop(pipe);
	tool_progress_done(&prog);
	if (!rc)
		rc = br_analysis_finish(out->an, err);
	if (rc && !err->file[0]) /* name the trace on errors without a file */
		snprintf(err->file, sizeof err->file, "%s", out->trace->path);
	br_reader_close(r);
	if (rc)
		return rc;
	out->res = br_analysis_get(out->an);
	return 0;
}

void report_data_free(report_data *d)
{
	br_analysis_free(d->an);
	d->an = NULL;
}
