/* blkreel-plot: seekwatcher-style figures of block-I/O traces. main parses
 * the options, then loads, renders and maps the result to an exit code. */
#include <stdio.h>
#include "cli.h"
#include "fonts.h"
#include "sweep.h"
#include "tool/say.h"

static int fail(const br_error *err)
{
	return tool_say_error("blkreel-plot", NULL, err);
}

static tool_exit sweep_main(const plot_opts *o)
{
	plot_sweep ps;
	br_error err = { 0 };
	plot_fonts fonts = { 0 };
	tool_exit st = 0;
	if (plot_sweep_load(o, &ps, &err))
		st = fail(&err);
	if (!st) {
		plot_fonts_open(&fonts, NULL);
		if (plot_render_sweep_file(o, &ps.sw, &fonts, o->out, &err) < 0)
			st = err.code == BR_EINVAL ? (fail(&err), TOOL_EXIT_USAGE) : fail(&err);
		else if (!o->quiet)
			printf("blkreel-plot: wrote %s\n", o->out);
	}
	plot_sweep_free(&ps);
	plot_release_static(&fonts);
	return st;
}

int main(int argc, char **argv)
{
	plot_cli cli;
	bool run;
	tool_exit rc = plot_cli_read(argc, argv, &cli, &run);
	if (!run) {
		plot_cli_free(&cli);
		return rc;
	}
	const plot_opts *o = &cli.o;
	if (o->sweep) {
		rc = sweep_main(o);
		plot_cli_free(&cli);
		return rc;
	}
	plot_data d;
	br_error err = { 0 };
	plot_fonts fonts = { 0 };
	int st = 0;
	if (plot_load(o, &d, &err) < 0)
		st = fail(&err);
	if (!st && o->csv && plot_write_csv(o, &d, o->csv, &err) < 0)
		st = fail(&err);
	if (!st) {
		plot_fonts_open(&fonts, NULL);
		if (plot_render_file(o, &d, &fonts, o->out, &err) < 0) {
			st = fail(&err);
			if (err.code == BR_EINVAL) /* the figure asked for cannot be laid out */
				st = TOOL_EXIT_USAGE;
		}
		else if (!o->quiet)
			printf("blkreel-plot: wrote %s\n", o->out);
	}
	if (!st && o->movie) {
		if (plot_write_movie(o, &d, &fonts, o->movie, &err) < 0)
			st = fail(&err);
		else if (!o->quiet)
			printf("blkreel-plot: wrote %s\n", o->movie);
	}
	plot_data_free(&d);
	plot_cli_free(&cli);
	plot_release_static(&fonts);
	return st;
}
