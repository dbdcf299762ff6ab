/* blkreel-report's options: one table, traces in order with their labels. */
#include "report_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/units.h"
#include "tool/io.h"
#include "tool/opts.h"
#include "tool/say.h"

#define PROG "blkreel-report"

enum {
	OPT_JSON = TOOL_KEY_LONG, OPT_MARKDOWN, OPT_HTML, OPT_PLOT, OPT_NO_FIGURE, OPT_FROM, OPT_TO,
	OPT_SEEK, OPT_RANGE, OPT_TOP, OPT_NO_PROGRESS, OPT_PER_IO,
};

static const tool_opt options[] = {
	{ 'l', "label", "NAME", "name the next trace (default: its file name); a sweep\n"
				"label STACK:PARAM=VALUE (ext4:clients=8) places it in a\n"
				"sweep: the stack, and the value of the swept parameter" },
	{ 't', "trace", "TRACE", "add a trace (same as a TRACE argument)" },
	{ OPT_JSON, "json", "FILE", "also write the report as JSON" },
	{ OPT_MARKDOWN, "markdown", "FILE", "also write it as Markdown" },
	{ OPT_HTML, "html", "FILE", "also write it as one HTML page; it embeds the figure\n"
				    "rendered by blkreel-plot when that tool is installed" },
	{ OPT_PLOT, "plot", "PROGRAM", "the blkreel-plot to run for the figure (default: the\n"
				       "one beside this program)" },
	{ OPT_NO_FIGURE, "no-figure", NULL, "HTML without the figure" },
	{ OPT_PER_IO, "per-io", "FILE", "one tab-separated line per completed bio (like btt -p):\n"
					"its Q, G, I, merge, D and C times from the trace's\n"
					"first event, Q2C and D2C, in ns" },
	{ 'q', "quiet", NULL, "no text report on standard output" },
	{ 'd', "dev", "MAJ,MIN", "only this device" },
	{ OPT_FROM, "from", "T", "start at T after the trace's first event (1.5, 250ms, 2s)" },
	{ OPT_TO, "to", "T", "stop after T (same units)" },
	{ OPT_SEEK, "seek-sectors", "N", "a seek starts more than N sectors from the end of the\n"
					 "previous IO (default 128, seekwatcher's rule)" },
	{ OPT_RANGE, "range", "SIZE", "size of the offset ranges ranked as hottest (default 128M)" },
	{ OPT_TOP, "top", "N", "rows in the hottest-range and process tables (default 5)" },
	{ 'j', "threads", "N", "decompression threads (default: all CPUs)" },
	TOOL_OPT_NO_PROGRESS(OPT_NO_PROGRESS),
	TOOL_OPTS_END,
};

static const tool_desc desc = {
	.prog = PROG,
	.opts = options,
	.column = 25,
	.mode = '-', /* traces and labels in the order given: a trace argument is key 1 */
	.head = "Usage: blkreel-report [OPTION]... [-l LABEL] TRACE [[-l LABEL] TRACE]...\n"
		"Explain a block-I/O trace: where each IO's time goes (btt's Q2G, G2I, I2D,\n"
		"D2C, Q2C with min/avg/p50/p90/p99/max), the access pattern (sizes, seeks,\n"
		"merges, queue depth, idle time, hottest ranges) per device and per process.\n"
		"\n"
		"With two or more traces, the report opens with a diagnosis of the slowest\n"
		"against the fastest: first whether they did the same work (devices, spans,\n"
		"read/write mix, the bytes applications queued, IOs lost), then which one is\n"
		"slower and why. The difference in throughput is split into device MB/s =\n"
		"U x N_busy x S / R (utilisation, requests in flight while busy, bytes per\n"
		"request, service time) and the device bytes moved per byte applications\n"
		"queued; each factor is taken apart into causes (idle, concurrency,\n"
		"scheduler, flush, io_size, readahead, merge, split, seek, service_time,\n"
		"amplification, requeue), ranked by their share of the difference, each with\n"
		"its evidence. Causes that point the other way follow, and a cause resting\n"
		"on timing alone that moved less than two runs of one job can differ (3x) is\n"
		"listed apart as unconfirmed. Then a few sentences on the largest\n"
		"differences, and every metric side by side with its ratio, sorted by how\n"
		"much it explains the diagnosed difference.\n"
		"\n"
		"With sweep labels (-l STACK:PARAM=VALUE before each trace: ext4:clients=1,\n"
		"ext4:clients=8, xfs:clients=1, ...), the report opens with the sweep: per\n"
		"stack, along the parameter, throughput and U, N_busy, S, R, the factor that\n"
		"carries each step's growth, the knee (the first point after which a step\n"
		"gains less than half of linear scaling) and what limits the stack past it\n"
		"(device_saturated, service_time, host_bound, serialised,\n"
		"concurrency_capped, shrinking_requests, amplification) with its numbers;\n"
		"then, at each value two stacks share, the diagnosis of that pair.\n"
		"\n"
		"TRACE is anything blkreel reads: a compressed NAME.blktrace.gz, a per-CPU set\n"
		"given as NAME or NAME.blktrace.N, a rotated set NAME.00001.blktrace.gz...\n"
		"given as NAME or as one quoted pattern ('NAME.*.blktrace.gz'), a blkparse -d\n"
		"dump, or - for standard input.\n"
		"\n",
	.tail = "\n"
		"Examples:\n"
		"  blkreel-report ext4.blktrace.gz\n"
		"  blkreel-report -l ext4 ext4.blktrace.gz -l xfs xfs.blktrace.gz\n"
		"  blkreel-report -l ext4 ext4.blktrace.gz -l xfs xfs.blktrace.gz \\\n"
		"      --json r.json --markdown r.md --html r.html\n"
		"  blkreel-report -l ext4:clients=1 e1.gz -l ext4:clients=8 e8.gz \\\n"
		"      -l xfs:clients=1 x1.gz -l xfs:clients=8 x8.gz --json sweep.json\n"
		"\n"
		"Output files are written under a temporary name and renamed when complete.\n"
		"Exit status: 0 ok, 1 runtime failure (unreadable or damaged trace, write\n"
		"failure), 2 usage error.\n",
};

/* A label with ':' places its trace in the sweep (tool/sweep_label.h). */
static tool_exit sweep_label(report_cli *cli, report_trace *t)
{
	if (!tool_is_sweep_label(t->label))
		return 0;
	tool_sweep_label sl;
	tool_exit rc = tool_sweep_label_read(PROG, t->label, cli->param, &sl);
	if (rc)
		return rc;
	memcpy(t->stack, sl.stack, sizeof t->stack);
	t->value = sl.value;
	t->swept = true;
	return 0;
}

/* "run1" from "dir/run1.blktrace.gz", "dir/run1.blktrace.0", "dir/run1.bin". */
static void default_label(report_trace *t)
{
	const char *base = strrchr(t->path, '/');
	base = base ? base + 1 : t->path;
	snprintf(t->auto_label, sizeof t->auto_label, "%s", strcmp(base, "-") ? base : "stdin");
	char *dot = strstr(t->auto_label, ".blktrace");
	if (!dot)
		dot = strrchr(t->auto_label, '.');
	if (dot && dot != t->auto_label)
		*dot = 0;
	t->label = t->auto_label;
}

static tool_exit add_trace(report_cli *cli, const char *path, const char **label)
{
	report_trace *n = tool_grow(cli->traces, &cli->traces_cap, cli->ntraces + 1, sizeof *n, 4);
	if (!n) {
		tool_say(PROG, "out of memory");
		return TOOL_EXIT_FAIL;
	}
	cli->traces = n;
	report_trace *t = &n[cli->ntraces++];
	memset(t, 0, sizeof *t);
	t->path = path;
	if (*label)
		t->label = *label;
	else
		default_label(t);
	*label = NULL;
	return t->label == t->auto_label ? 0 : sweep_label(cli, t);
}

tool_exit report_cli_read(int argc, char **argv, report_cli *cli, bool *run)
{
	memset(cli, 0, sizeof *cli);
	cli->argc = argc;
	cli->argv = argv;
	cli->text = true;
	cli->progress = true;
	cli->top = 5;
	const char *label = NULL;
	bool no_figure = false;
	*run = false;
	tool_args args;
	tool_args_start(&args, &desc, argc, argv);
	int c;
	while ((c = tool_args_next(&args)) >= 0) {
		uint64_t v;
		tool_exit rc;
		switch (c) {
		case 1:
		case 't':
			if ((rc = add_trace(cli, optarg, &label)))
				return rc;
			break;
		case 'l':
			if (!*optarg)
				return tool_usage(PROG, "%s", "--label: empty label");
			if (label)
				return tool_usage(PROG, "-l %s: give a trace after each label", optarg);
			label = optarg;
			break;
		case OPT_JSON: cli->json = optarg; break;
		case OPT_MARKDOWN: cli->markdown = optarg; break;
		case OPT_HTML: cli->html = optarg; break;
		case OPT_PLOT: cli->plot_bin = optarg; break;
		case OPT_NO_FIGURE: no_figure = true; break;
		case OPT_PER_IO: cli->per_io = optarg; break;
		case 'q': cli->text = false; break;
		case 'd':
			if ((rc = tool_arg_device(PROG, "--dev", optarg, &cli->an.stats.device)))
				return rc;
			cli->an.stats.has_device = true;
			break;
		case OPT_FROM:
		case OPT_TO:
			if ((rc = tool_arg_window(PROG, c == OPT_TO, optarg, &cli->read)))
				return rc;
			break;
		case OPT_SEEK:
			if (br_parse_uint(optarg, 1, 1ull << 40, &v))
				return tool_usage(PROG, "--seek-sectors: '%s' is not a sector count of 1 or more", optarg);
			cli->an.stats.seek_sectors = v;
			break;
		case OPT_RANGE:
			if (br_parse_size(optarg, &v) || v < 4096)
				return tool_usage(PROG, "--range: '%s' is not a size of 4k or more (e.g. 128M)", optarg);
			cli->an.range_bytes = v;
			break;
		case OPT_TOP:
			if ((rc = tool_arg_count(PROG, "--top", optarg, 1, 1000, &v)))
				return rc;
			cli->top = (unsigned)v;
			break;
		case 'j':
			if ((rc = tool_arg_count(PROG, "--threads", optarg, 1, 256, &v)))
				return rc;
			cli->read.threads = (unsigned)v;
			break;
		case OPT_NO_PROGRESS: cli->progress = false; break;
		}
	}
	if (c == TOOL_ARGS_STOP)
		return args.exit;
	if (label)
		return tool_usage(PROG, "-l %s: no trace follows the label", label);
	if (cli->ntraces == 0)
		return tool_usage(PROG, "%s", "no trace given");
	if (cli->ntraces > BR_CMP_MAX_TRACES) {
		char n[32];
		snprintf(n, sizeof n, "%d", BR_CMP_MAX_TRACES);
		return tool_usage(PROG, "at most %s traces can be compared", n);
	}
	for (size_t i = 0; cli->param[0] && i < cli->ntraces; i++)
		if (!cli->traces[i].swept)
			return tool_usage(PROG, "%s: give every trace a sweep label STACK:%s=VALUE, or none",
					  cli->traces[i].path, cli->param);
	size_t stdin_uses = 0;
	for (size_t i = 0; i < cli->ntraces; i++)
		stdin_uses += strcmp(cli->traces[i].path, "-") == 0;
	if (stdin_uses > 1)
		return tool_usage(PROG, "%s", "standard input (-) can be read only once");
	if (tool_window_check(PROG, &cli->read))
		return TOOL_EXIT_USAGE;
	const char *outs[4] = { cli->json, cli->markdown, cli->html, cli->per_io };
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			if (outs[i] && outs[j] && strcmp(outs[i], outs[j]) == 0)
				return tool_usage(PROG, "'%s' is given for two outputs", outs[i]);
	if (no_figure)
		cli->plot_bin = "";
	*run = true;
	return TOOL_EXIT_OK;
}

void report_cli_free(report_cli *cli)
{
	free(cli->traces);
	cli->traces = NULL;
}
