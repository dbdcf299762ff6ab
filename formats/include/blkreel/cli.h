/* blkreel/cli.h — the usage-error shape every blkreel tool shares.
 *
 * Like br_text, these write only to the stream the tool hands them; the
 * rest of the library never prints. Messages follow the GNU shape:
 *   TOOL: MESSAGE
 *   Try 'TOOL --help' for more information. */
#ifndef BLKREEL_CLI_H
#define BLKREEL_CLI_H

#include <stdbool.h>
#include <stdint.h>
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

/* A whole number from lo to hi for option (e.g. "--threads") into *out:
 * 0, or a usage error "OPTION: 'ARG' is not a count from LO to HI" and
 * BR_CLI_EXIT_USAGE. */
int br_cli_count(FILE *err, const char *tool, const char *option, const char *arg, uint64_t lo,
		 uint64_t hi, uint64_t *out);

/* A time after the trace's start for a window option (--from, --to): sets
 * *has and *ns, or a usage error "OPTION: 'ARG' is not a time (...)". */
int br_cli_window(FILE *err, const char *tool, const char *option, const char *arg, bool *has,
		  uint64_t *ns);

/* A device number for a per-device option (--dev): "MAJ,MIN" or "MAJ:MIN",
 * into *dev (BR_MKDEV encoding): 0, or a usage error "OPTION: 'ARG' is not
 * MAJ,MIN" or "OPTION: 'ARG' is out of range" (a major from 0 to 4095, a
 * minor from 0 to 1048575, what blk_io_trace can hold) and
 * BR_CLI_EXIT_USAGE. */
int br_cli_device(FILE *err, const char *tool, const char *option, const char *arg,
		  uint32_t *dev);

#endif
