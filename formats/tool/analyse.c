#include "tool/analyse.h"

#include <stdio.h>
#include <unistd.h>

#include "blkreel/event_pipe.h"
#include "tool/progress.h"

int tool_analyse_reader(br_reader *r, const char *path, const br_analysis_opts *ao,
			const tool_analyse_opts *to, br_analysis **out, uint64_t *events, br_error *err)
{
	*out = NULL;
	*events = 0;
	br_analysis *an = NULL;
	int rc = br_analysis_new(&an, ao, err);
	tool_progress prog;
	tool_progress_init(&prog, STDERR_FILENO, to && to->progress, to && to->prog ? to->prog : "blkreel");
	const char *label = to && to->label ? to->label : path;
	br_event_pipe *pipe = NULL;
	if (!rc)
		rc = br_event_pipe_start(&pipe, r, err);
	const br_event *evs;
	int n = 0;
	while (!rc && (n = br_event_pipe_next(pipe, &evs, err)) > 0) {
		for (int i = 0; i < n && !rc; i++)
			rc = br_analysis_add(an, &evs[i], err);
		*events += (uint64_t)n;
		tool_progress_draw(&prog, *events, label, false);
	}
	if (!rc && n < 0)
		rc = n;
	br_event_pipe_stop(pipe);
	tool_progress_done(&prog);
	if (!rc)
		rc = br_analysis_finish(an, err);
	if (rc) {
		if (!err->file[0]) /* name the trace on errors without a file */
			snprintf(err->file, sizeof err->file, "%s", path);
		br_analysis_free(an);
		return rc;
	}
	*out = an;
	return 0;
}

int tool_analyse_path(const char *path, const br_reader_opts *ro, const br_analysis_opts *ao,
		      const tool_analyse_opts *to, br_analysis **out, uint64_t *events, br_error *err)
{
	*out = NULL;
	*events = 0;
	const char *paths[1] = { path };
	br_reader *r = NULL;
	int rc = br_reader_open(&r, paths, 1, ro, err);
	if (!rc)
		rc = tool_analyse_reader(r, path, ao, to, out, events, err);
	br_reader_close(r);
	return rc;
}
