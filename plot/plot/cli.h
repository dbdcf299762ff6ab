/* cli.h — blkreel-plot's command line. */
#ifndef BLKREEL_PLOT_CLI_H
#define BLKREEL_PLOT_CLI_H

#include "plot.h"

enum { CLI_OK = 0, CLI_EXIT_OK = -1, CLI_USAGE = 2 };

typedef struct plot_cli {
	plot_opts o;
	char *cmdline;
	char *labels_owned[PLOT_MAX_TRACES];
} plot_cli;

/* CLI_OK, CLI_EXIT_OK (--help/--version printed) or CLI_USAGE (message printed). */
int plot_cli_read(int argc, char **argv, plot_cli *cli);
void plot_cli_free(plot_cli *cli);

#endif
