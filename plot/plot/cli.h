/* cli.h — blkreel-plot's command line. */
#ifndef BLKREEL_PLOT_CLI_H
#define BLKREEL_PLOT_CLI_H

#include <stdbool.h>

#include "plot.h"
#include "tool/exit.h"

typedef struct plot_cli {
	plot_opts o;
	char *cmdline;
	char *labels_owned[PLOT_SWEEP_MAX];
} plot_cli;

/* Fills cli and sets *run when the tool is to run; otherwise what main
 * returns now (0 after --help/--version, a usage error said on stderr). */
tool_exit plot_cli_read(int argc, char **argv, plot_cli *cli, bool *run);
void plot_cli_free(plot_cli *cli);

#endif
