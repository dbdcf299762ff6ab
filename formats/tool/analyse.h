/* tool/analyse.h — read a whole trace into the library's analysis
 * (blkreel/analysis.h) on two cores (blkreel/event_pipe.h), with the live
 * status line on a terminal: what blkreel-report does for each trace, what
 * blkreel-plot's sweep figure and blkreel-replay's A/B rounds need of one. */
#ifndef BLKREEL_TOOL_ANALYSE_H
#define BLKREEL_TOOL_ANALYSE_H

#include <stdbool.h>
#include <stdint.h>
#include "blkreel/analysis.h"
#include "blkreel/error.h"
#include "blkreel/reader.h"

typedef struct tool_analyse_opts {
	const char *prog;       /* the status line's name ("blkreel-report") */
	const char *label;      /* what the status line calls the trace */
	bool progress;          /* show the status line (on a terminal only) */
} tool_analyse_opts;

/* Every event of r through a new analysis made with ao, finished: *out
 * (free with br_analysis_free) and the events read. 0, or a br_code with
 * err naming the file (path when the reader gave none). *out is NULL on
 * failure. r stays the caller's. */
int tool_analyse_reader(br_reader *r, const char *path, const br_analysis_opts *ao,
			const tool_analyse_opts *to, br_analysis **out, uint64_t *events, br_error *err);

/* The same for one file opened with ro (NULL: defaults). */
int tool_analyse_path(const char *path, const br_reader_opts *ro, const br_analysis_opts *ao,
		      const tool_analyse_opts *to, br_analysis **out, uint64_t *events, br_error *err);

#endif
