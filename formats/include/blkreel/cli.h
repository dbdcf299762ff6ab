/* blkreel/cli.h — the usage-error shape every blkreel tool shares.
 *
 * Like br_text, these write only to the stream the tool hands them; the
 * rest of the library never prints. Messages follow the GNU shape:
 *   TOOL: MESSAGE
 *   Try 'TOOL --help' for more information. */
#ifndef BLKREEL_CLI_H
#define BLKREEL_CLI_H

#include <stdio.h>

#define BR_CLI_EXIT_USAGE 2

/* Print a usage error to err; returns BR_CLI_EXIT_USAGE. */
int br_cli_usage(FILE *err, const char *tool, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* For getopt_long run with opterr = 0 and an optstring starting with ':':
 * getopt_result ':' is an option missing its argument, anything else an
 * unknown option; option is the word the user typed (argv[optind - 1]).
 * Returns BR_CLI_EXIT_USAGE. */
int br_cli_bad_option(FILE *err, const char *tool, int getopt_result, const char *option);

#endif
