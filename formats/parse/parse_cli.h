/* parse_cli.h — blkreel-parse's command line. */
#ifndef BLKREEL_PARSE_CLI_H
#define BLKREEL_PARSE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include "blkreel/reader.h"
#include "blkreel/writer.h"
#include "tool/exit.h"

typedef struct parse_cli {
	const char **inputs;
	size_t ninputs, inputs_cap;
	const char *output;        /* -o: converted file (kind from name, or --format) */
	enum br_output_kind output_kind;
	const char *split;         /* --split NAME: per-CPU set */
	bool info;                 /* --info */
	bool quiet;                /* -q: no end-of-run summary */
	bool text;                 /* print events (default when nothing else asked) */
	bool progress;
	br_reader_opts read;
	br_writer_opts write;
} parse_cli;

/* Fills cli and sets *run when the tool is to run; otherwise what main
 * returns now (0 after --help/--version, a usage error said on stderr). */
tool_exit parse_cli_read(int argc, char **argv, parse_cli *cli, bool *run);
void parse_cli_free(parse_cli *cli);

#endif
