/* Read one trace through the analysis (tool/analyse.h), with its format
 * and, for --per-io, its start time from the reader. */
#include "report.h"

#include <stdio.h>
#include <string.h>

#include "blkreel/reader.h"
#include "tool/analyse.h"

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
	tool_analyse_opts to = { "blkreel-report", out->trace->label, cli->progress };
	rc = tool_analyse_reader(r, out->trace->path, &opts, &to, &out->an, &out->events, err);
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
