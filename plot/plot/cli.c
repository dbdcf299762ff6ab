/* Parsing blkreel-plot's options into plot_opts (one tool_opt table). */
#include "cli.h"
#include "blkreel/reader.h"
#include "blkreel/units.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tool/opts.h"
#include "tool/say.h"

#define PROG "blkreel-plot"

static int parse_panels(const char *list, unsigned *mask)
{
	*mask = 0;
	char *dup = strdup(list), *save = NULL;
	if (!dup)
		return -1;
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int found = -1;
		for (int p = 0; p < PANEL_COUNT; p++)
			if (!strcmp(tok, plot_panel_names[p]))
				found = p;
		if (found < 0) {
			tool_usage(PROG, "unknown panel '%s' (known: io, tput, seek, iops, lat, qd, stats)", tok);
			free(dup);
			return -1;
		}
		*mask |= 1u << found;
	}
	free(dup);
	return 0;
}

static int parse_range_time(const char *arg, uint64_t *a, uint64_t *b)
{
	const char *colon = strchr(arg, ':');
	if (!colon)
		return -1;
	char left[64];
	size_t n = (size_t)(colon - arg);
	if (n >= sizeof(left))
		return -1;
	memcpy(left, arg, n);
	left[n] = 0;
	if (br_parse_duration_ns(left, a) || br_parse_duration_ns(colon + 1, b))
		return -1;
	return 0;
}

static char *join_argv(int argc, char **argv)
{
	size_t len = 1;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) * 2 + 3;
	char *s = malloc(len), *p = s;
	if (!s)
		return NULL;
	for (int i = 0; i < argc; i++) {
		/* the program by its name: the figure must not name a path of this machine */
		const char *arg = argv[i];
		if (i == 0 && strrchr(arg, '/'))
			arg = strrchr(arg, '/') + 1;
		bool q = strpbrk(arg, " \t'\"$") != NULL;
		if (i)
			*p++ = ' ';
		if (q)
			*p++ = '\'';
		for (const char *c = arg; *c; c++) {
			if (q && *c == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *c;
			}
		}
		if (q)
			*p++ = '\'';
	}
	*p = 0;
	return s;
}

/* "run1.blktrace.gz" -> "run1" */
static char *default_label(const char *path)
{
	if (!strcmp(path, "-"))
		return strdup("stdin");
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	char *s = strdup(b);
	if (!s)
		return NULL;
	char *k = strstr(s, ".blktrace");
	if (k && k != s)
		*k = 0;
	return s;
}

#define STR_(x) #x
#define STR(x) STR_(x)

enum { OPT_DPI = TOOL_KEY_LONG, OPT_PANELS, OPT_NO_PANELS, OPT_STACK, OPT_CSV, OPT_MOVIE,
       OPT_FRAMES, OPT_ALLOW_EMPTY, OPT_INPUT_FORMAT, OPT_SKIP_BAD, OPT_SWEEP };

static const tool_opt options[] = {
	{ 't', "trace", "FILE", "a trace to plot (repeat to compare; up to " STR(PLOT_MAX_TRACES) ")" },
	{ 'l', "label", "TEXT", "label of the trace given just before; with --sweep,\n"
				"STACK:PARAM=VALUE (ext4:clients=8)" },
	{ 'o', "output", "FILE", "figure file: .png, .svg or .pdf (default trace.png)" },
	{ 'T', "title", "TEXT", "figure title" },
	{ 'F', "size", "WxH", "figure size in pixels (default 1100x1300)" },
	{ OPT_DPI, "dpi", "N", "resolution for text and vector sizes (default 96)" },
	{ OPT_PANELS, "panels", "LIST", "panels to draw, in this order of names:\n"
					"io,tput,seek,iops,lat,qd,stats (default all)" },
	{ OPT_NO_PANELS, "no-panels", "LIST", "panels to leave out" },
	{ 'x', "time", "A:B", "time window, seconds (or 250ms, 2m) after each\n"
			      "trace's start" },
	{ 'z', "offset", "A:B", "offset range of the io panel in MB (default: the\n"
				"busy region, stated on the figure)" },
	{ 'b', "bucket", "DURATION", "bucket width of the line panels and the CSV\n"
				     "(default: from the span, about 4 pixels each)" },
	{ 'r', "rolling", "DURATION", "moving average of the line panels over DURATION" },
	{ 'd', "dev", "MAJ,MIN", "only this device" },
	{ OPT_INPUT_FORMAT, "input-format", "NAME", "read every trace as NAME instead of detecting it\n"
						   "(the names blkreel-parse --help lists)" },
	{ OPT_SKIP_BAD, "skip-bad", NULL, "text inputs: skip malformed lines (counted)" },
	{ 'P', "by-process", NULL, "colour the io panel by process" },
	{ OPT_STACK, "stack", NULL, "one io panel per trace instead of overlaying" },
	{ OPT_CSV, "csv", "FILE", "write every plotted series as CSV" },
	{ OPT_MOVIE, "movie", "FILE", "also write an animated PNG (APNG) of the io panel" },
	{ OPT_FRAMES, "movie-frames", "N", "frames in the movie (default 60)" },
	{ OPT_ALLOW_EMPTY, "allow-empty", NULL, "draw a figure saying \"no IO in this range\" instead\n"
						"of failing when nothing is in range" },
	{ OPT_SWEEP, "sweep", NULL, "the sweep figure: throughput against the swept\n"
				    "parameter, one line per stack, its knee and limit,\n"
				    "and panels of U, N_busy, S and R (up to " STR(PLOT_SWEEP_MAX) " traces,\n"
				    "each labelled STACK:PARAM=VALUE; default -o sweep.png)" },
	{ 'q', "quiet", NULL, "no progress line" },
	TOOL_OPTS_END,
};

static const tool_desc desc = {
	.prog = PROG,
	.version = "(blkreel) " BLKREEL_VERSION,
	.opts = options,
	.column = 27,
	.head = "Usage: " PROG " [OPTION]... -t TRACE [-l LABEL] [-t TRACE [-l LABEL]]...\n"
		"Plot block-I/O traces seekwatcher-style: disk offsets, throughput, seeks,\n"
		"IOPS, latency and queue depth on one time axis, with a stats table.\n"
		"TRACE is anything blkreel reads (compressed .blktrace.gz, a per-CPU set\n"
		"NAME or NAME.blktrace.0, a rotated set NAME.00001.blktrace.gz... as NAME or\n"
		"one quoted pattern 'NAME.*.blktrace.gz', a blkparse -d dump, - for stdin).\n"
		"\n",
	.tail = "\n"
		"With --sweep, each trace is one point of a sweep, as blkreel-report reads them:\n"
		"  blkreel-plot --sweep -t e1.gz -l ext4:clients=1 -t e8.gz -l ext4:clients=8 \\\n"
		"      -t x1.gz -l xfs:clients=1 -t x8.gz -l xfs:clients=8 -o sweep.png\n"
		"\n"
		"Throughput, IOPS and marks come from completions (C), seeks from issues (D);\n"
		"a trace without them falls back to D, then Q, and the figure says so.\n"
		"\n"
		"Exit status: 0 if OK, 1 if a trace could not be read or holds no IO in range,\n"
		"2 for a usage error.\n",
};

/* After the options of a --sweep: every trace labelled STACK:PARAM=VALUE,
 * one parameter, and none of the time figure's options. */
static tool_exit sweep_options(plot_cli *cli, int only_figure, bool out_given, bool size_given)
{
	plot_opts *o = &cli->o;
	if (only_figure) {
		const char *name = "?";
		for (const tool_opt *t = options; t->key || t->name || t->help; t++)
			if (t->key == only_figure && t->name)
				name = t->name;
		return tool_usage(PROG, "--sweep draws its own panels: --%s does not apply to it", name);
	}
	for (size_t i = 0; i < o->ntraces; i++) {
		if (!o->labels[i] || !tool_is_sweep_label(o->labels[i]))
			return tool_usage(PROG, "%s: with --sweep, label every trace STACK:PARAM=VALUE (-l ext4:clients=8 "
					  "after its -t)", o->paths[i]);
		tool_exit rc = tool_sweep_label_read(PROG, o->labels[i], o->sweep_param, &o->sweep_labels[i]);
		if (rc)
			return rc;
	}
	if (!out_given)
		o->out = "sweep.png";
	if (!size_given)
		o->height = 1000;
	if (!plot_output_ok(o->out))
		return tool_usage(PROG, "-o %s: the name must end in .png, .svg or .pdf", o->out);
	return TOOL_EXIT_OK;
}

tool_exit plot_cli_read(int argc, char **argv, plot_cli *cli, bool *run)
{
	*run = false;
	memset(cli, 0, sizeof(*cli));
	plot_opts *o = &cli->o;
	o->out = "trace.png";
	o->width = 1100;
	o->height = 1300;
	o->panels = (1u << PANEL_COUNT) - 1;
	o->movie_frames = 60;
	cli->cmdline = join_argv(argc, argv);
	o->cmdline = cli->cmdline;
	unsigned no_panels = 0;
	bool out_given = false, size_given = false;
	int only_figure = 0; /* an option of the time figure, which --sweep does not draw */
	tool_args args;
	tool_args_start(&args, &desc, argc, argv);
	int c;
	while ((c = tool_args_next(&args)) >= 0) {
		switch (c) {
		case 't':
			if (o->ntraces == PLOT_SWEEP_MAX)
				return tool_usage(PROG, "at most %d traces (%s)", PLOT_SWEEP_MAX, optarg);
			o->paths[o->ntraces++] = optarg;
			break;
		case 'l':
			if (!o->ntraces)
				return tool_usage(PROG, "-l %s must follow the -t it names", optarg);
			o->labels[o->ntraces - 1] = optarg;
			break;
		case 'o': o->out = optarg; out_given = true; break;
		case 'T': o->title = optarg; break;
		case 'F': {
			unsigned w, h;
			char x;
			if (sscanf(optarg, "%u%c%u", &w, &x, &h) != 3 || (x != 'x' && x != 'X'))
				return tool_usage(PROG, "-F wants WIDTHxHEIGHT in pixels, not '%s'", optarg);
			if (w < 400 || h < 300 || w > 10000 || h > 10000)
				return tool_usage(PROG, "-F %s: size must be from 400x300 to 10000x10000 pixels", optarg);
			o->width = w;
			o->height = h;
			size_given = true;
			break;
		}
		case OPT_DPI: {
			char *end;
			double v = strtod(optarg, &end);
			if (*end || !(v >= 24 && v <= 1200))
				return tool_usage(PROG, "--dpi %s: want a number from 24 to 1200", optarg);
			o->dpi = v;
			break;
		}
		case OPT_PANELS:
			if (parse_panels(optarg, &o->panels))
				return TOOL_EXIT_USAGE;
			o->panels_explicit = true;
			break;
		case OPT_NO_PANELS:
			if (parse_panels(optarg, &no_panels))
				return TOOL_EXIT_USAGE;
			break;
		case 'x':
			if (parse_range_time(optarg, &o->x0, &o->x1))
				return tool_usage(PROG, "-x wants START:END (seconds, or with a unit: 250ms), not '%s'", optarg);
			if (o->x1 <= o->x0)
				return tool_usage(PROG, "-x %s: the end must come after the start", optarg);
			o->has_x = true;
			break;
		case 'z': {
			double a, b;
			char tail;
			if (sscanf(optarg, "%lf:%lf%c", &a, &b, &tail) != 2 || a < 0)
				return tool_usage(PROG, "-z wants START:END in MB, not '%s'", optarg);
			if (b <= a)
				return tool_usage(PROG, "-z %s: the end must be above the start", optarg);
			o->has_z = true;
			o->z0 = a;
			o->z1 = b;
			break;
		}
		case 'r':
			if (br_parse_duration_ns(optarg, &o->avg_window_ns))
				return tool_usage(PROG, "-r wants a duration (2, 500ms), not '%s'", optarg);
			break;
		case 'b':
			if (br_parse_duration_ns(optarg, &o->bucket_ns) || o->bucket_ns < 1000)
				return tool_usage(PROG, "-b wants a duration of at least 1us (1, 10ms), not '%s'", optarg);
			break;
		case 'd': {
			tool_exit rc = tool_arg_device(PROG, "--dev", optarg, &o->dev);
			if (rc)
				return rc;
			o->has_dev = true;
			break;
		}
		case 'P': o->by_process = true; break;
		case OPT_STACK: o->stack = true; break;
		case OPT_CSV: o->csv = optarg; break;
		case OPT_MOVIE: o->movie = optarg; break;
		case OPT_FRAMES: {
			uint64_t v;
			if (br_parse_uint(optarg, 2, 2000, &v))
				return tool_usage(PROG, "--movie-frames %s: want 2 to 2000", optarg);
			o->movie_frames = (unsigned)v;
			break;
		}
		case OPT_ALLOW_EMPTY: o->allow_empty = true; break;
		case OPT_INPUT_FORMAT:
			if (!br_input_format_known(optarg))
				return tool_usage(PROG, "--input-format: unknown format '%s'", optarg);
			o->input_format = optarg;
			break;
		case OPT_SKIP_BAD: o->skip_bad = true; break;
		case OPT_SWEEP: o->sweep = true; break;
		case 'q': o->quiet = true; break;
		}
		if (c != 't' && c != 'l' && c != 'o' && c != 'T' && c != 'F' && c != OPT_DPI && c != 'x' && c != 'd' &&
		    c != OPT_INPUT_FORMAT && c != OPT_SKIP_BAD && c != OPT_SWEEP && c != 'q')
			only_figure = c;
	}
	if (c == TOOL_ARGS_STOP)
		return args.exit;
	for (; optind < argc; optind++) {
		if (o->ntraces == PLOT_SWEEP_MAX)
			return tool_usage(PROG, "at most %d traces (%s)", PLOT_SWEEP_MAX, argv[optind]);
		o->paths[o->ntraces++] = argv[optind];
	}
	if (!o->ntraces)
		return tool_usage(PROG, "%s", "no trace given (use -t FILE)");
	if (o->sweep) {
		tool_exit rc = sweep_options(cli, only_figure, out_given, size_given);
		*run = rc == TOOL_EXIT_OK;
		return rc;
	}
	if (o->ntraces > PLOT_MAX_TRACES)
		return tool_usage(PROG, "at most %d traces (%s), but for --sweep", PLOT_MAX_TRACES,
				  o->paths[PLOT_MAX_TRACES]);
	o->panels &= ~no_panels;
	if (!o->panels)
		return tool_usage(PROG, "%s", "no panels left to draw");
	if (o->stack && !(o->panels & 1u << PANEL_IO))
		return tool_usage(PROG, "%s", "--stack needs the io panel");
	for (size_t i = 0; i < o->ntraces; i++)
		if (!o->labels[i]) {
			cli->labels_owned[i] = default_label(o->paths[i]);
			o->labels[i] = cli->labels_owned[i] ? cli->labels_owned[i] : o->paths[i];
		}
	if (!plot_output_ok(o->out))
		return tool_usage(PROG, "-o %s: the name must end in .png, .svg or .pdf", o->out);
	if (o->movie && !plot_movie_name_ok(o->movie))
		return tool_usage(PROG, "--movie %s: the name must end in .png or .apng", o->movie);
	*run = true;
	return TOOL_EXIT_OK;
}

void plot_cli_free(plot_cli *cli)
{
	free(cli->cmdline);
	for (size_t i = 0; i < PLOT_SWEEP_MAX; i++)
		free(cli->labels_owned[i]);
}
