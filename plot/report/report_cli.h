/* report_cli.h — blkreel-report's command line. */
#ifndef BLKREEL_REPORT_CLI_H
#define BLKREEL_REPORT_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include "blkreel/analysis.h"
#include "blkreel/reader.h"
#include "tool/exit.h"
#include "tool/sweep_label.h"

typedef struct report_trace {
	const char *path;
	const char *label;         /* -l before it, else the file name without .blktrace.* */
	char auto_label[128];
	/* a sweep label STACK:PARAM=VALUE: the stack and the value (the
	 * parameter is report_cli.param) */
	char stack[TOOL_SWEEP_STACK_MAX];
	double value;
	bool swept;
} report_trace;

typedef struct report_cli {
	report_trace *traces;
	size_t ntraces, traces_cap;
	const char *json, *markdown, *html;   /* output files (NULL = none) */
	const char *per_io;        /* one line per completed bio (btt -p) */
	bool text;                 /* print the text report on stdout (default) */
	bool progress;
	unsigned top;              /* rows in hot ranges / processes tables */
	const char *plot_bin;      /* blkreel-plot used for the HTML figure */
	br_reader_opts read;
	br_analysis_opts an;
	char param[TOOL_SWEEP_PARAM_MAX]; /* the swept parameter, "" without sweep labels */
	char **argv;               /* for the record in the outputs */
	int argc;
} report_cli;

/* Fills cli and sets *run when the tool is to run; otherwise what main
 * returns now (0 after --help/--version, a usage error said on stderr, 1
 * when out of memory). */
tool_exit report_cli_read(int argc, char **argv, report_cli *cli, bool *run);
void report_cli_free(report_cli *cli);

#endif
