/* blkreel-report's options: one table, traces in order with their labels. */
#include "report_cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/units.h"
#include "blkreel/cli.h"

#define PROG "blkreel-report"

static const char usage_text[] =
	"Usage: blkreel-report [OPTION]... [-l LABEL] TRACE [[-l LABEL] TRACE]...\n"
	"Explain a block-I/O trace: where each IO's time goes (btt's Q2G, G2I, I2D,\n"
	"D2C, Q2C with min/avg/p50/p90/p99/max), the access pattern (sizes, seeks,\n"
	"merges, queue depth, idle time, hottest ranges) per device and per process.\n"
	"With two or more traces, compare them: every metric side by side with its\n"
	"ratio, sorted by how much it explains the difference in throughput, and a\n"
	"few sentences stating the largest differences.\n"
	"\n"
	"TRACE is anything blkreel reads: a compressed NAME.blktrace.gz, a per-CPU set\n"
	"given as NAME or NAME.blktrace.N, a blkparse -d dump, or - for standard input.\n"
	"\n"
	"  -l, --label=NAME       name the next trace (default: its file name)\n"
	"  -t, --trace=TRACE      add a trace (same as a TRACE argument)\n"
	"      --json=FILE        also write the report as JSON\n"
	"      --markdown=FILE    also write it as Markdown\n"
	"      --html=FILE        also write it as one HTML page; it embeds the figure\n"
	"                         rendered by blkreel-plot when that tool is installed\n"
	"      --plot=PROGRAM     the blkreel-plot to run for the figure (default: the\n"
	"                         one beside this program)\n"
	"      --no-figure        HTML without the figure\n"
	"      --per-io=FILE      one tab-separated line per completed bio (like btt -p):\n"
	"                         its Q, G, I, merge, D and C times from the trace's\n"
	"                         first event, Q2C and D2C, in ns\n"
	"  -q, --quiet            no text report on standard output\n"
	"  -d, --dev=MAJ,MIN      only this device\n"
	"      --from=T           start at T after the trace's first event (1.5, 250ms, 2s)\n"
	"      --to=T             stop after T (same units)\n"
	"      --seek-sectors=N   a seek starts more than N sectors from the end of the\n"
	"                         previous IO (default 128, seekwatcher's rule)\n"
	"      --range=SIZE       size of the offset ranges ranked as hottest (default 128M)\n"
	"      --top=N            rows in the hottest-range and process tables (default 5)\n"
	"  -j, --threads=N        decompression threads (default: all CPUs)\n"
	"      --no-progress      no live status line on a terminal\n"
	"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n"
	"\n"
	"Examples:\n"
	"  blkreel-report ext4.blktrace.gz\n"
	"  blkreel-report -l ext4 ext4.blktrace.gz -l xfs xfs.blktrace.gz\n"
	"  blkreel-report -l ext4 ext4.blktrace.gz -l xfs xfs.blktrace.gz \\\n"
	"      --json r.json --markdown r.md --html r.html\n"
	"\n"
	"Output files are written under a temporary name and renamed when complete.\n"
	"Exit status: 0 ok, 1 runtime failure (unreadable or damaged trace, write\n"
	"failure), 2 usage error.\n";

enum {
	OPT_JSON = 256, OPT_MARKDOWN, OPT_HTML, OPT_PLOT, OPT_NO_FIGURE, OPT_FROM, OPT_TO,
	OPT_SEEK, OPT_RANGE, OPT_TOP, OPT_NO_PROGRESS, OPT_PER_IO,
};

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

static int add_trace(report_cli *cli, const char *path, const char **label)
{
	report_trace *n = realloc(cli->traces, (cli->ntraces + 1) * sizeof *n);
	if (!n) {
		fprintf(stderr, "blkreel-report: out of memory\n");
		return CLI_FAIL;
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
	return 0;
}

int report_cli_read(int argc, char **argv, report_cli *cli)
{
	static const struct option longopts[] = {
		{ "label", required_argument, NULL, 'l' },
		{ "trace", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "markdown", required_argument, NULL, OPT_MARKDOWN },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "no-figure", no_argument, NULL, OPT_NO_FIGURE },
		{ "per-io", required_argument, NULL, OPT_PER_IO },
		{ "quiet", no_argument, NULL, 'q' },
		{ "dev", required_argument, NULL, 'd' },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "seek-sectors", required_argument, NULL, OPT_SEEK },
		{ "range", required_argument, NULL, OPT_RANGE },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "threads", required_argument, NULL, 'j' },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	memset(cli, 0, sizeof *cli);
	cli->argc = argc;
	cli->argv = argv;
	cli->text = true;
	cli->progress = true;
	cli->top = 5;
	const char *label = NULL;
	bool no_figure = false;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "-:l:t:qd:j:hV", longopts, NULL)) != -1) {
		uint64_t v;
		int rc;
		switch (c) {
		case 1:
		case 't':
			if (add_trace(cli, optarg, &label))
				return CLI_FAIL;
			break;
		case 'l':
			if (!*optarg)
				return br_cli_usage(stderr, PROG, "%s", "--label: empty label");
			if (label)
				return br_cli_usage(stderr, PROG, "-l %s: give a trace after each label", optarg);
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
			if ((rc = br_cli_device(stderr, PROG, "--dev", optarg, &cli->an.stats.device)))
				return rc;
			cli->an.stats.has_device = true;
			break;
		case OPT_FROM:
			if ((rc = br_cli_window(stderr, PROG, "--from", optarg, &cli->read.has_from,
						&cli->read.from_ns)))
				return rc;
			break;
		case OPT_TO:
			if ((rc = br_cli_window(stderr, PROG, "--to", optarg, &cli->read.has_to,
						&cli->read.to_ns)))
				return rc;
			break;
		case OPT_SEEK:
			if (br_parse_uint(optarg, 1, 1ull << 40, &v))
				return br_cli_usage(stderr, PROG, "--seek-sectors: '%s' is not a sector count of 1 or more", optarg);
			cli->an.stats.seek_sectors = v;
			break;
		case OPT_RANGE:
			if (br_parse_size(optarg, &v) || v < 4096)
				return br_cli_usage(stderr, PROG, "--range: '%s' is not a size of 4k or more (e.g. 128M)", optarg);
			cli->an.range_bytes = v;
			break;
		case OPT_TOP:
			if ((rc = br_cli_count(stderr, PROG, "--top", optarg, 1, 1000, &v)))
				return rc;
			cli->top = (unsigned)v;
			break;
		case 'j':
			if ((rc = br_cli_count(stderr, PROG, "--threads", optarg, 1, 256, &v)))
				return rc;
			cli->read.threads = (unsigned)v;
			break;
		case OPT_NO_PROGRESS: cli->progress = false; break;
		case 'h':
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		case 'V':
			puts("blkreel-report " BLKREEL_VERSION);
			return CLI_EXIT_OK;
		case ':':
		default:
			return br_cli_bad_option(stderr, PROG, c, argv[optind - 1]);
		}
	}
	if (label)
		return br_cli_usage(stderr, PROG, "-l %s: no trace follows the label", label);
	if (cli->ntraces == 0)
		return br_cli_usage(stderr, PROG, "%s", "no trace given");
	if (cli->ntraces > BR_CMP_MAX_TRACES) {
		char n[32];
		snprintf(n, sizeof n, "%d", BR_CMP_MAX_TRACES);
		return br_cli_usage(stderr, PROG, "at most %s traces can be compared", n);
	}
	size_t stdin_uses = 0;
	for (size_t i = 0; i < cli->ntraces; i++)
		stdin_uses += strcmp(cli->traces[i].path, "-") == 0;
	if (stdin_uses > 1)
		return br_cli_usage(stderr, PROG, "%s", "standard input (-) can be read only once");
	if (cli->read.has_from && cli->read.has_to && cli->read.to_ns < cli->read.from_ns)
		return br_cli_usage(stderr, PROG, "%s", "--to is before --from");
	const char *outs[4] = { cli->json, cli->markdown, cli->html, cli->per_io };
	for (int i = 0; i < 4; i++)
		for (int j = i + 1; j < 4; j++)
			if (outs[i] && outs[j] && strcmp(outs[i], outs[j]) == 0)
				return br_cli_usage(stderr, PROG, "'%s' is given for two outputs", outs[i]);
	if (no_figure)
		cli->plot_bin = "";
	return CLI_OK;
}

void report_cli_free(report_cli *cli)
{
	free(cli->traces);
	cli->traces = NULL;
}
