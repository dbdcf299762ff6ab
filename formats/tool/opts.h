/* tool/opts.h — a tool's options as one table, which yields both
 * getopt_long's tables and the option lines of --help, so the two cannot
 * drift apart.
 *
 * A row is an option, another spelling of the option above it, or a
 * heading; an all-zero row ends the table. --help and --version are rows
 * like the others (keys 'h' and 'V'); tool_args_next answers them itself. */
#ifndef BLKREEL_TOOL_OPTS_H
#define BLKREEL_TOOL_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "tool/exit.h"

/* Keys of long-only options start here (above every letter). */
#define TOOL_KEY_LONG 256

typedef struct tool_opt {
	int key;            /* the short letter, or TOOL_KEY_LONG + n; 0 for a heading */
	const char *name;   /* the long name without "--"; NULL for a heading */
	const char *arg;    /* NULL: takes no argument; else its name in --help ("FILE") */
	const char *help;   /* '\n' starts a continuation line; a heading's text */
	bool alias;         /* another spelling of the row above: the key is not shown as
			     * a short option again */
} tool_opt;

/* Rows every tool has: --no-progress (with its own key), and --help and
 * --version with the row that ends the table. */
#define TOOL_OPT_NO_PROGRESS(key) { (key), "no-progress", NULL, "no live status line on a terminal" }
#define TOOL_OPTS_END                                                  \
	{ 'h', "help", NULL, "show this help and exit" },               \
	{ 'V', "version", NULL, "show the version and exit" },          \
	{ 0 }

typedef struct tool_desc {
	const char *prog;      /* "blkreel-parse" */
	const char *version;   /* what --version prints after prog; NULL: BLKREEL_VERSION */
	const char *head;      /* --help before the options: usage lines and description */
	const char *tail;      /* --help after the options: examples, exit status */
	const tool_opt *opts;  /* ends with an all-zero row */
	unsigned column;       /* where the option texts start in --help */
	char mode;             /* getopt's first optstring character: 0, '+' (stop at the
				* first operand) or '-' (operands come as key 1) */
} tool_desc;

/* Print the whole --help text to fp. */
void tool_help(FILE *fp, const tool_desc *d);

#define TOOL_MAX_OPTS 48

/* One pass over a command line with getopt_long. */
typedef struct tool_args {
	const tool_desc *d;
	int argc;
	char **argv;
	tool_exit exit;     /* after TOOL_ARGS_STOP: what main returns */
	struct tool_args_tables {
		char optstring[2 + 2 * TOOL_MAX_OPTS + 1];
		struct option longopts[TOOL_MAX_OPTS + 1];
	} t;
} tool_args;

/* What tool_args_next returns besides an option's key. */
enum { TOOL_ARGS_END = -1, TOOL_ARGS_STOP = -2 };

/* Start reading argv with d's table. */
void tool_args_start(tool_args *a, const tool_desc *d, int argc, char **argv);

/* The next option's key (its argument in optarg), TOOL_ARGS_END after the
 * last option (the operands start at optind), or TOOL_ARGS_STOP when the
 * tool must exit with a->exit now: after --help or --version
 * (TOOL_EXIT_OK), or an unknown option or a missing argument
 * (TOOL_EXIT_USAGE, said on stderr). */
int tool_args_next(tool_args *a);

#endif
