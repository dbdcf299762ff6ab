/* marks.h — the IO marks of one trace binned into its density grid, a
 * batch of events at a time. Marks come from C, else D, else Q. */
#ifndef BLKREEL_PLOT_MARKS_H
#define BLKREEL_PLOT_MARKS_H

#include "plot.h"

typedef struct plot_marks {
	const plot_opts *o;
	plot_trace *t;            /* its dens, pids, comms and devs are filled */
	uint64_t start;           /* the trace's first event (absolute ns) */
	int best_kind;            /* the best kind seen so far (BR_KIND_*) */
	unsigned last_pid;        /* pid slot of the last IO (runs of one pid) */
} plot_marks;

/* Bin a batch of events (o, t, start filled in, the rest zero). 0, or
 * BR_ENOMEM with err naming the trace. */
int plot_marks_add(plot_marks *m, const br_event *evs, int n, br_error *err);
/* After the last batch: the grid is complete. 0, or BR_ENOMEM with err. */
int plot_marks_finish(plot_marks *m, br_error *err);

#endif
