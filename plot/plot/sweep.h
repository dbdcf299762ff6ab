/* sweep.h — blkreel-plot --sweep: how each stack scales along a swept
 * parameter (blkreel/sweep.h), drawn in the figure's style: throughput
 * against the parameter, one line per stack with its knee and limit, and
 * small panels for the identity's factors U, N_busy, S and R on the same
 * axis. */
#ifndef BLKREEL_PLOT_SWEEP_H
#define BLKREEL_PLOT_SWEEP_H

#include "blkreel/error.h"
#include "blkreel/sweep.h"
#include "plot.h"

struct plot_fonts;

/* Each trace of o (o->sweep_labels give stack and value) read into its
 * diagnosis profile, and the sweep built from them into *sw (free with
 * plot_sweep_free). 0, or a br_code with err naming the file. */
typedef struct plot_sweep {
	br_sweep sw;
	struct br_analysis **an;   /* one per trace: the profiles sw points into */
	size_t n;
} plot_sweep;

int plot_sweep_load(const plot_opts *o, plot_sweep *ps, br_error *err);
void plot_sweep_free(plot_sweep *ps);

/* The figure to path (.png, .svg or .pdf). 0 or a br_code. */
int plot_render_sweep_file(const plot_opts *o, const br_sweep *sw, const struct plot_fonts *fonts,
			   const char *path, br_error *err);

#endif
