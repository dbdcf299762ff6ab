/* report_run.h — blkreel-report's one job: load, compare, write. */
#ifndef BLKREEL_REPORT_RUN_H
#define BLKREEL_REPORT_RUN_H

#include "report_cli.h"

/* Returns the exit status: 0, or 1 after printing what failed. */
int report_run(const report_cli *cli, const char *argv0);

#endif
