#include "parse_cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/units.h"
#include "blkreel/cli.h"

#define PROG "blkreel-parse"

static const char usage_text[] =
	"Usage: blkreel-parse [OPTION]... TRACE...\n"
	"Print, convert and summarise block-I/O traces (blkparse's job).\n"
	"\n"
	"TRACE is a blk_io_trace stream or blkparse -d dump, a per-CPU set given as\n"
	"NAME or NAME.blktrace.N, a compressed NAME.blktrace.gz, or - for standard\n"
	"input. The kind is detected from content. Several traces are merged by time.\n"
	"Without -o/--split/--info, events are printed like blkparse prints them.\n"
	"\n"
	"  -i, --input=TRACE      add an input (same as a TRACE argument)\n"
	"  -o, --output=FILE      convert to FILE: *.gz is the compressed trace file,\n"
	"                         *.iolog a fio iolog (fio --read_iolog replays it),\n"
	"                         *.csv one row per IO, *.perfetto.json the Trace\n"
	"                         Event JSON Perfetto and chrome://tracing open,\n"
	"                         anything else a single blk_io_trace stream;\n"
	"                         - = stdout\n"
	"      --input-format=NAME  read every input as NAME instead of detecting it:\n"
	"                         blkparse, blkreplay, disksim, msr, fiu, fio, blktrace,\n"
	"                         blkreel\n"
	"      --skip-bad         text inputs: skip malformed lines and count them,\n"
	"                         instead of stopping at the first\n"
	"      --split=NAME       write a per-CPU set NAME.blktrace.<cpu> (blkparse, btt,\n"
	"                         iowatcher read it in file mode)\n"
	"      --info             print a summary: devices, span, events by action, IO\n"
	"                         counts and bytes, processes, compressed members\n"
	"      --text             also print events when converting\n"
	"  -d, --dev=MAJ,MIN      keep only this device's events (or MAJ:MIN; repeat for\n"
	"                         up to 16 devices) in every output; a remap to it is\n"
	"                         kept, process names of all devices, messages of its\n"
	"                         own; times count from its first event; a device with\n"
	"                         no events is named on stderr and the exit status is 1\n"
	"      --from=T           start at T after the trace's first event (1.5, 250ms, 2s)\n"
	"      --to=T             stop after T (same units); the compressed file's member\n"
	"                         index skips what lies outside the window\n"
	"  -q, --quiet            no end-of-run summary after the events\n"
	"      --salvage          go on past damaged parts of a compressed file, saying\n"
	"                         which time range was lost\n"
	"  -l, --level=N          compression level 1..9 (default 6; 1 = fastest)\n"
	"      --fast             same as --level=1\n"
	"  -j, --threads=N        compression/decompression threads (default: all CPUs)\n"
	"      --no-progress      no live status line on a terminal\n"
	"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n"
	"\n"
	"Examples:\n"
	"  blkreel-parse samples/ext4-loop                 # like blkparse -i\n"
	"  blkreel-parse samples/ext4-loop -o run.blktrace.gz\n"
	"  zcat run.blktrace.gz | blkparse -i -            # classic tools read it\n"
	"  blkreel-parse --info --from 1s --to 2s run.blktrace.gz\n"
	"  blkreel-parse --dev 7,3 both.blktrace.gz -o loop3.blktrace.gz\n"
	"\n"
	"Exit status: 0 ok, 1 runtime failure (unreadable or damaged input, write\n"
	"failure, a --dev device without events), 2 usage error.\n";

enum {
	OPT_SPLIT = 256, OPT_INFO, OPT_FROM, OPT_TO, OPT_SALVAGE, OPT_FAST, OPT_TEXT,
	OPT_NO_PROGRESS, OPT_INPUT_FORMAT, OPT_SKIP_BAD,
};

static int add_input(parse_cli *cli, const char *path)
{
	const char **in = realloc(cli->inputs, (cli->ninputs + 1) * sizeof *in);
	if (!in) {
		fprintf(stderr, "blkreel-parse: out of memory\n");
		return 1;
	}
	cli->inputs = in;
	cli->inputs[cli->ninputs++] = path;
	return 0;
}

/* --dev: one more device to keep (given twice, it is kept once). */
static int add_device(parse_cli *cli, const char *arg)
{
	uint32_t dev;
	int rc = br_cli_device(stderr, PROG, "--dev", arg, &dev);
	if (rc)
		return rc;
	br_reader_opts *o = &cli->read;
	for (unsigned i = 0; i < o->ndevices; i++)
		if (o->devices[i] == dev)
			return 0;
	if (o->ndevices == BR_READER_MAX_DEVICES)
		return br_cli_usage(stderr, PROG, "--dev %s: at most %d devices", arg,
				    BR_READER_MAX_DEVICES);
	o->devices[o->ndevices++] = dev;
	return 0;
}

int parse_cli_read(int argc, char **argv, parse_cli *cli)
{
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "split", required_argument, NULL, OPT_SPLIT },
		{ "info", no_argument, NULL, OPT_INFO },
		{ "text", no_argument, NULL, OPT_TEXT },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "quiet", no_argument, NULL, 'q' },
		{ "salvage", no_argument, NULL, OPT_SALVAGE },
		{ "level", required_argument, NULL, 'l' },
		{ "fast", no_argument, NULL, OPT_FAST },
		{ "threads", required_argument, NULL, 'j' },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "input-format", required_argument, NULL, OPT_INPUT_FORMAT },
		{ "skip-bad", no_argument, NULL, OPT_SKIP_BAD },
		{ "dev", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	memset(cli, 0, sizeof *cli);
	cli->progress = true;
	bool want_text = false;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":i:o:qd:l:j:hV", longopts, NULL)) != -1) {
		uint64_t v;
		int rc;
		switch (c) {
		case 'i':
			if (add_input(cli, optarg))
				return 1;
			break;
		case 'o': cli->output = optarg; break;
		case OPT_SPLIT: cli->split = optarg; break;
		case OPT_INFO: cli->info = true; break;
		case OPT_TEXT: want_text = true; break;
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
		case 'd':
			if ((rc = add_device(cli, optarg)))
				return rc;
			break;
		case 'q': cli->quiet = true; break;
		case OPT_SALVAGE: cli->read.salvage = true; break;
		case 'l': {
			if (br_parse_uint(optarg, 1, 9, &v))
				return br_cli_usage(stderr, PROG, "--level: '%s' is not a level from 1 to 9", optarg);
			cli->write.level = (int)v;
			break;
		}
		case OPT_FAST: cli->write.level = BR_LEVEL_FAST; break;
		case 'j': {
			if ((rc = br_cli_count(stderr, PROG, "--threads", optarg, 1, 256, &v)))
				return rc;
			cli->read.threads = cli->write.threads = (unsigned)v;
			break;
		}
		case OPT_NO_PROGRESS: cli->progress = false; break;
		case OPT_INPUT_FORMAT:
			if (!br_input_format_known(optarg))
				return br_cli_usage(stderr, PROG, "--input-format: unknown format '%s'", optarg);
			cli->read.format = optarg;
			break;
		case OPT_SKIP_BAD: cli->read.skip_bad = true; break;
		case 'h':
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		case 'V':
			puts("blkreel-parse " BLKREEL_VERSION);
			return CLI_EXIT_OK;
		case ':':
		default:
			return br_cli_bad_option(stderr, PROG, c, argv[optind - 1]);
		}
	}
	for (int i = optind; i < argc; i++)
		if (add_input(cli, argv[i]))
			return 1;
	if (cli->ninputs == 0)
		return br_cli_usage(stderr, PROG, "%s", "no trace given");
	if (cli->read.has_from && cli->read.has_to && cli->read.to_ns < cli->read.from_ns)
		return br_cli_usage(stderr, PROG, "%s", "--to is before --from");
	if (cli->output && cli->split)
		return br_cli_usage(stderr, PROG, "%s", "give either -o or --split, not both");
	if (cli->output)
		cli->output_kind = br_output_kind_for_path(cli->output);
	cli->text = want_text || (!cli->output && !cli->split && !cli->info);
	if (cli->text && cli->output && strcmp(cli->output, "-") == 0)
		return br_cli_usage(stderr, PROG, "%s", "--text and -o - would both write to standard output");
	return CLI_OK;
}

void parse_cli_free(parse_cli *cli)
{
	free(cli->inputs);
	cli->inputs = NULL;
}
