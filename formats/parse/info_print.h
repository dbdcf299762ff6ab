/* info_print.h — the --info report. */
#ifndef BLKREEL_INFO_PRINT_H
#define BLKREEL_INFO_PRINT_H

#include <stdio.h>
#include "blkreel/reader.h"
#include "blkreel/stats.h"
#include "blkreel/summary.h"

/* ro: the options r was opened with (what --dev kept), or NULL; st: the
 * shared statistics of the same events (D2C/Q2C of the requests). */
void info_print(FILE *out, const br_reader *r, const br_reader_opts *ro, const br_summary *s,
		const br_stats_totals *st);

/* One line describing a damaged stretch of a compressed input. */
const char *info_damage_line(const br_input_info *in, const br_damage *d, uint64_t origin,
			     char *buf, size_t size);

#endif
