/* parse_run.h — wires a reader to text output, a writer and the summary. */
#ifndef BLKREEL_PARSE_RUN_H
#define BLKREEL_PARSE_RUN_H

#include "parse_cli.h"

/* Returns the exit status: 0 ok, 1 runtime failure. Errors go to stderr. */
int parse_run(const parse_cli *cli);

#endif
