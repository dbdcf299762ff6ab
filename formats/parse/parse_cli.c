#include "parse_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/units.h"
#include "tool/io.h"
#include "tool/opts.h"
#include "tool/say.h"

#define PROG "blkreel-parse"

enum {
	OPT_SPLIT = TOOL_KEY_LONG, OPT_INFO, OPT_FROM, OPT_TO, OPT_SALVAGE, OPT_FAST, OPT_TEXT,
	OPT_NO_PROGRESS, OPT_INPUT_FORMAT, OPT_SKIP_BAD,
};

static const tool_opt options[] = {
	{ 'i', "input", "TRACE", "add an input (same as a TRACE argument)" },
	{ 'o', "output", "FILE", "convert to FILE: *.gz is the compressed trace file,\n"
				 "*.iolog a fio iolog (fio --read_iolog replays it),\n"
				 "*.csv one row per IO, *.perfetto.json the Trace\n"
				 "Event JSON Perfetto and chrome://tracing open,\n"
				 "anything else a single blk_io_trace stream;\n"
				 "- = stdout" },
	{ OPT_INPUT_FORMAT, "input-format", "NAME", "read every input as NAME instead of detecting it:\n"
						   "blkparse, blkreplay, disksim, msr, fiu, fio, blktrace,\n"
						   "blkreel" },
	{ OPT_SKIP_BAD, "skip-bad", NULL, "text inputs: skip malformed lines and count them,\n"
					  "instead of stopping at the first" },
	{ OPT_SPLIT, "split", "NAME", "write a per-CPU set NAME.blktrace.<cpu> (blkparse, btt,\n"
				      "iowatcher read it in file mode)" },
	{ OPT_INFO, "info", NULL, "print a summary: devices, span, events by action, IO\n"
				  "counts and bytes, processes, compressed members" },
	{ OPT_TEXT, "text", NULL, "also print events when converting" },
	{ 'd', "dev", "MAJ,MIN", "keep only this device's events (or MAJ:MIN; repeat for\n"
				 "up to 16 devices) in every output; a remap to it is\n"
				 "kept, process names of all devices, messages of its\n"
				 "own; times count from its first event; a device with\n"
				 "no events is named on stderr and the exit status is 1" },
	{ OPT_FROM, "from", "T", "start at T after the trace's first event (1.5, 250ms, 2s)" },
	{ OPT_TO, "to", "T", "stop after T (same units); the compressed file's member\n"
			     "index skips what lies outside the window" },
	{ 'q', "quiet", NULL, "no end-of-run summary after the events" },
	{ OPT_SALVAGE, "salvage", NULL, "go on past damaged parts of a compressed file, saying\n"
					"which time range was lost" },
	{ 'l', "level", "N", "compression level 1..9 (default 6; 1 = fastest)" },
	{ OPT_FAST, "fast", NULL, "same as --level=1" },
	{ 'j', "threads", "N", "compression/decompression threads (default: all CPUs)" },
	TOOL_OPT_NO_PROGRESS(OPT_NO_PROGRESS),
	TOOL_OPTS_END,
};

static const tool_desc desc = {
	.prog = PROG,
	.opts = options,
	.column = 25,
	.head = "Usage: blkreel-parse [OPTION]... TRACE...\n"
		"Print, convert and summarise block-I/O traces (blkparse's job).\n"
		"\n"
		"TRACE is a blk_io_trace stream or blkparse -d dump, a per-CPU set given as\n"
		"NAME or NAME.blktrace.N, a compressed NAME.blktrace.gz, a rotated set\n"
		"NAME.00001.blktrace.gz... given as NAME (read as one trace), a quoted glob\n"
		"pattern ('NAME.*.blktrace.gz': its files as one trace), or - for standard\n"
		"input. The kind is detected from content. Several traces are merged by time.\n"
		"Without -o/--split/--info, events are printed like blkparse prints them.\n"
		"\n",
	.tail = "\n"
		"Examples:\n"
		"  blkreel-parse samples/ext4-loop                 # like blkparse -i\n"
		"  blkreel-parse samples/ext4-loop -o run.blktrace.gz\n"
		"  zcat run.blktrace.gz | blkparse -i -            # classic tools read it\n"
		"  blkreel-parse --info --from 1s --to 2s run.blktrace.gz\n"
		"  blkreel-parse --dev 7,3 both.blktrace.gz -o loop3.blktrace.gz\n"
		"\n"
		"Exit status: 0 ok, 1 runtime failure (unreadable or damaged input, write\n"
		"failure, a --dev device without events), 2 usage error.\n",
};

static tool_exit add_input(parse_cli *cli, const char *path)
{
	const char **in = tool_grow(cli->inputs, &cli->inputs_cap, cli->ninputs + 1, sizeof *in, 8);
	if (!in) {
		tool_say(PROG, "out of memory");
		return TOOL_EXIT_FAIL;
	}
	cli->inputs = in;
	cli->inputs[cli->ninputs++] = path;
	return TOOL_EXIT_OK;
}

/* --dev: one more device to keep (given twice, it is kept once). */
static tool_exit add_device(parse_cli *cli, const char *arg)
{
	uint32_t dev;
	tool_exit rc = tool_arg_device(PROG, "--dev", arg, &dev);
	if (rc)
		return rc;
	br_reader_opts *o = &cli->read;
	for (unsigned i = 0; i < o->ndevices; i++)
		if (o->devices[i] == dev)
			return TOOL_EXIT_OK;
	if (o->ndevices == BR_READER_MAX_DEVICES)
		return tool_usage(PROG, "--dev %s: at most %d devices", arg, BR_READER_MAX_DEVICES);
	o->devices[o->ndevices++] = dev;
	return TOOL_EXIT_OK;
}

tool_exit parse_cli_read(int argc, char **argv, parse_cli *cli, bool *run)
{
	memset(cli, 0, sizeof *cli);
	cli->progress = true;
	bool want_text = false;
	*run = false;
	tool_args args;
	tool_args_start(&args, &desc, argc, argv);
	int c;
	while ((c = tool_args_next(&args)) >= 0) {
		uint64_t v;
		tool_exit rc;
		switch (c) {
		case 'i':
			if ((rc = add_input(cli, optarg)))
				return rc;
			break;
		case 'o': cli->output = optarg; break;
		case OPT_SPLIT: cli->split = optarg; break;
		case OPT_INFO: cli->info = true; break;
		case OPT_TEXT: want_text = true; break;
		case OPT_FROM:
		case OPT_TO:
			if ((rc = tool_arg_window(PROG, c == OPT_TO, optarg, &cli->read)))
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
				return tool_usage(PROG, "--level: '%s' is not a level from 1 to 9", optarg);
			cli->write.level = (int)v;
			break;
		}
		case OPT_FAST: cli->write.level = BR_LEVEL_FAST; break;
		case 'j': {
			if ((rc = tool_arg_count(PROG, "--threads", optarg, 1, 256, &v)))
				return rc;
			cli->read.threads = cli->write.threads = (unsigned)v;
			break;
		}
		case OPT_NO_PROGRESS: cli->progress = false; break;
		case OPT_INPUT_FORMAT:
			if (!br_input_format_known(optarg))
				return tool_usage(PROG, "--input-format: unknown format '%s'", optarg);
			cli->read.format = optarg;
			break;
		case OPT_SKIP_BAD: cli->read.skip_bad = true; break;
		}
	}
	if (c == TOOL_ARGS_STOP)
		return args.exit;
	for (int i = optind; i < argc; i++)
		if (add_input(cli, argv[i]))
			return TOOL_EXIT_FAIL;
	if (cli->ninputs == 0)
		return tool_usage(PROG, "%s", "no trace given");
	if (tool_window_check(PROG, &cli->read))
		return TOOL_EXIT_USAGE;
	if (cli->output && cli->split)
		return tool_usage(PROG, "%s", "give either -o or --split, not both");
	if (cli->output)
		cli->output_kind = br_output_kind_for_path(cli->output);
	cli->text = want_text || (!cli->output && !cli->split && !cli->info);
	if (cli->text && cli->output && strcmp(cli->output, "-") == 0)
		return tool_usage(PROG, "%s", "--text and -o - would both write to standard output");
	*run = true;
	return TOOL_EXIT_OK;
}

void parse_cli_free(parse_cli *cli)
{
	free(cli->inputs);
	cli->inputs = NULL;
}
