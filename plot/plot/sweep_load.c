/* Read each trace of a sweep into its diagnosis profile and build the
 * sweep (blkreel/sweep.h), as blkreel-report does for its sweep. */
#include "sweep.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blkreel/analysis.h"
#include "tool/analyse.h"

int plot_sweep_load(const plot_opts *o, plot_sweep *ps, br_error *err)
{
	memset(ps, 0, sizeof *ps);
	ps->an = calloc(o->ntraces, sizeof *ps->an);
	br_sweep_input *in = calloc(o->ntraces, sizeof *in);
	if (!ps->an || !in) {
		free(in);
		return br_error_set(err, BR_ENOMEM, 0, NULL, -1, "out of memory");
	}
	ps->n = o->ntraces;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	br_reader_opts ro = { .format = o->input_format, .skip_bad = o->skip_bad,
			      .threads = ncpu > 2 ? (unsigned)ncpu - 1 : 1 };
	if (o->has_x) {
		ro.has_from = ro.has_to = true;
		ro.from_ns = o->x0;
		ro.to_ns = o->x1;
	}
	br_analysis_opts ao;
	memset(&ao, 0, sizeof ao);
	ao.stats.has_device = o->has_dev;
	ao.stats.device = o->dev;
	int rc = 0;
	for (size_t k = 0; k < o->ntraces && !rc; k++) {
		tool_analyse_opts to = { "blkreel-plot", o->labels[k], !o->quiet };
		uint64_t events;
		rc = tool_analyse_path(o->paths[k], &ro, &ao, &to, &ps->an[k], &events, err);
		if (!rc && !br_analysis_get(ps->an[k])->totals->events)
			rc = br_error_set(err, BR_EINVAL, 0, o->paths[k], -1, "no IO events%s%s",
					  o->has_dev ? " for the device" : "", o->has_x ? " in the time window" : "");
		if (!rc)
			in[k] = (br_sweep_input){ o->sweep_labels[k].stack, o->sweep_labels[k].value,
						  br_analysis_get(ps->an[k])->profile };
	}
	if (!rc)
		rc = br_sweep_build(in, o->ntraces, o->sweep_param, &ps->sw, err);
	free(in);
	return rc;
}

void plot_sweep_free(plot_sweep *ps)
{
	br_sweep_free(&ps->sw);
	for (size_t k = 0; ps->an && k < ps->n; k++)
		br_analysis_free(ps->an[k]);
	free(ps->an);
	memset(ps, 0, sizeof *ps);
}
