/* ab_figure.c — the rounds drawn over each other: blkreel-plot, the one
 * installed beside this program, renders DIR/overlay.png from the rounds'
 * traces, A's first rounds then B's (a plot overlays at most 8 traces, so
 * at most the first 4 rounds of each side), each labelled "LABEL rK".
 * blkreel-replay links no drawing library; without blkreel-plot, or when
 * it fails, there is no figure and the report says why. */
#include "ab_types.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "tool/sibling.h"

#define AB_FIGURE_TRACES 8 /* blkreel-plot's PLOT_MAX_TRACES */

void ab_figure(ab_ctx *c)
{
	c->has_figure = false;
	char progbuf[PATH_MAX + 16];
	const char *prog = tool_sibling_find("blkreel-plot", NULL, NULL, progbuf, sizeof progbuf, c->figure_why,
					     sizeof c->figure_why);
	if (!prog)
		return;
	unsigned per_side = c->rounds < AB_FIGURE_TRACES / 2 ? c->rounds : AB_FIGURE_TRACES / 2;
	char labels[AB_FIGURE_TRACES][96], title[512];
	const char *args[8 + 4 * AB_FIGURE_TRACES];
	size_t n = 0, nt = 0;
	args[n++] = prog;
	args[n++] = "-q";
	for (int side = 0; side < 2; side++)
		for (size_t i = 0; i < c->nruns; i++) {
			const ab_run_rec *r = &c->runs[i];
			if (!r->done || r->side != side || r->round > per_side)
				continue;
			snprintf(labels[nt], sizeof labels[nt], "%s r%u", c->label[side], r->round);
			args[n++] = "-t";
			args[n++] = r->trace;
			args[n++] = "-l";
			args[n++] = labels[nt++];
		}
	snprintf(title, sizeof title, "%s vs %s: rounds 1-%u of each, replayed", c->label[0], c->label[1], per_side);
	snprintf(c->figure, sizeof c->figure, "%.1000s/overlay.png", c->dir);
	args[n++] = "-T";
	args[n++] = title;
	args[n++] = "-o";
	args[n++] = c->figure;
	args[n] = NULL;
	if (!tool_sibling_run(args, c->figure_why, sizeof c->figure_why)) {
		c->has_figure = true;
		snprintf(c->figure_why, sizeof c->figure_why, "overlay.png: rounds 1-%u of each side over each other, by blkreel-plot",
			 per_side);
	}
}
