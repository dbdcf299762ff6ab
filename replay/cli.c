#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/event.h"
#include "blkreel/units.h"
#include "tool/io.h"
#include "tool/opts.h"
#include "tool/say.h"

#define PROG "blkreel-replay"

enum {
	OPT_MAP = TOOL_KEY_LONG, OPT_FORCE, OPT_OFFSET, OPT_WRAP, OPT_SCALE, OPT_BUFFERED, OPT_SOURCE,
	OPT_SPEED, OPT_NO_STALL, OPT_MAX_INFLIGHT, OPT_CLOSED, OPT_SPIN, OPT_ENGINE, OPT_THREADS,
	OPT_STOP_ON_ERROR, OPT_REPORT, OPT_NO_PROGRESS, OPT_AB, OPT_ROUNDS,
};

static const tool_opt options[] = {
	{ 0, NULL, NULL, "Targets:" },
	{ 'd', "target", "PATH", "replay every traced device onto PATH" },
	{ 'd', "device", "PATH", "the same as --target (its older spelling)", .alias = true },
	{ OPT_MAP, "map", "MAJ,MIN=PATH", "replay traced device MAJ,MIN onto PATH (repeatable);\n"
					  "IOs of devices without a target are skipped, counted" },
	{ 'w', "write", NULL, "also replay writes, flushes and discards; written data\n"
			      "is a recognisable pattern (trace offset, sequence)" },
	{ OPT_FORCE, "force", NULL, "replay onto a target that carries a filesystem or\n"
				    "partition table, or (with --write) is the device the\n"
				    "trace was captured from; without --write, also read a\n"
				    "target in use. A target in use (mounted, held, opened\n"
				    "exclusively, a partition of such a disk, the file\n"
				    "behind such a loop device) is never written" },
	{ 0, NULL, NULL, "Addresses:" },
	{ OPT_OFFSET, "offset", "SIZE", "shift every IO by SIZE bytes on the target (4k, 1M...)" },
	{ OPT_WRAP, "wrap", NULL, "fold addresses beyond the target's end back (modulo)" },
	{ OPT_SCALE, "scale", NULL, "shrink the trace's address range linearly onto the target\n"
				    "(without either, an IO beyond the end stops the replay\n"
				    "before anything is issued)" },
	{ OPT_BUFFERED, "buffered", NULL, "send IOs not aligned for O_DIRECT buffered, instead of\n"
					  "widening them to the alignment" },
	{ 0, NULL, NULL, "Timing:" },
	{ OPT_SOURCE, "source", "D|Q", "replay issued (D, default) or queued (Q) requests" },
	{ OPT_SPEED, "speed", "X", "X times as fast as the trace (default 1; 0.5 = half)" },
	{ OPT_NO_STALL, "no-stall", NULL, "as fast as possible, in order, keeping the depth" },
	{ OPT_MAX_INFLIGHT, "max-inflight", "N", "at most N IOs in flight, 1..4096 (default 256; with\n"
						 "--no-stall the trace's own maximum, up to 256; by\n"
						 "default never more than a target's request queue)" },
	{ OPT_CLOSED, "closed", NULL, "each IO waits for the completions its original had seen" },
	{ OPT_SPIN, "spin", "DUR", "spin this long before each target time (default 150us)" },
	{ OPT_ENGINE, "engine", "NAME", "io_uring (default when available) or threads" },
	{ OPT_THREADS, "threads", "N", "workers of the threads engine (default min(depth,16))" },
	{ OPT_STOP_ON_ERROR, "stop-on-error", NULL, "stop at the first failed IO (default: count and go on)" },
	{ 0, NULL, NULL, "Output:" },
	{ 'o', "output", "FILE", "write the replay's own trace (Q=handed over, D=issued,\n"
				 "C=completed) in blkreel's compressed format" },
	{ OPT_REPORT, "report", "FILE", "write the fidelity report as JSON" },
	{ 'q', "quiet", NULL, "no text report on standard output" },
	TOOL_OPT_NO_PROGRESS(OPT_NO_PROGRESS),
	{ 0, NULL, NULL, "A/B (the same IOs against two stacks, in rounds, then why one is faster):" },
	{ OPT_AB, "ab", "DEV_A DEV_B", "replay in rounds A B, B A, A B... onto each target with\n"
				       "the options above, capturing its block layer in this\n"
				       "process (root); -o DIR (new or empty) gets each round's\n"
				       "roundK-LABEL.blktrace.gz and .replay.json (fidelity),\n"
				       "then report.txt, .md and .json: the diagnosis of A\n"
				       "against B with the rounds as the unit of variance" },
	{ 'l', "label", "NAME", "name of A, then (again) of B (default A and B)" },
	{ OPT_ROUNDS, "rounds", "N", "rounds a side, 2..16 (default 3)" },
	TOOL_OPTS_END,
};

static const tool_desc desc = {
	.prog = PROG,
	.opts = options,
	.column = 25,
	.head = "Usage: blkreel-replay [OPTION]... TRACE... -d TARGET\n"
		"  or:  blkreel-replay [OPTION]... TRACE... --map MAJ,MIN=TARGET...\n"
		"Reissue a trace's IOs against a block device or a regular file, on the\n"
		"trace's own timing, and report how faithfully that was done.\n"
		"\n"
		"TRACE is anything blkreel reads (a compressed .blktrace.gz, a per-CPU set,\n"
		"a rotated set NAME.00001.blktrace.gz... as NAME, a blk_io_trace stream or\n"
		"dump, - for standard input). IOs are replayed as the device saw them\n"
		"(D events) unless --source Q. Reads only unless --write.\n"
		"\n",
	.tail = "\n"
		"Examples:\n"
		"  blkreel-replay prod.blktrace.gz -d /dev/loop3          # reads only\n"
		"  blkreel-replay prod.blktrace.gz -d /dev/loop3 --write --speed 2 \\\n"
		"      -o replayed.blktrace.gz --report r.json\n"
		"  blkreel-replay big.blktrace.gz -d test.img --wrap --no-stall\n"
		"  blkreel-replay prod.blktrace.gz --ab /dev/loop3 /dev/loop4 -l linear -l thin \\\n"
		"      --rounds 3 -o ab/\n"
		"\n"
		"Exit status: 0 replayed, every IO succeeded; 1 runtime failure (refused\n"
		"target, unreadable trace, failed IOs); 2 usage error.\n",
};

static tool_exit add_map(replay_opts *o, const char *arg, bool any)
{
	cli_map m = { .any = any, .path = arg };
	if (!any) {
		unsigned ma, mi;
		int used = 0;
		if (sscanf(arg, "%u,%u=%n", &ma, &mi, &used) != 2 || !used || !arg[used])
			return tool_usage(PROG, "--map: '%s' is not MAJ,MIN=PATH", arg);
		m.dev = BR_MKDEV(ma, mi);
		m.path = arg + used;
	}
	cli_map *maps = tool_grow(o->maps, &o->maps_cap, o->nmaps + 1, sizeof *maps, 4);
	if (!maps) {
		tool_say(PROG, "out of memory");
		return TOOL_EXIT_FAIL;
	}
	o->maps = maps;
	o->maps[o->nmaps++] = m;
	return TOOL_EXIT_OK;
}

static tool_exit check_ab(replay_opts *o)
{
	if (o->nmaps || o->report)
		return tool_usage(PROG, "%s", "--ab names the targets: no -d, --map or --report beside it");
	if (!o->output)
		return tool_usage(PROG, "%s", "--ab needs -o DIR, the folder for the rounds and the report");
	if (o->nlabels == 1)
		return tool_usage(PROG, "%s", "--ab: give -l twice (A, then B) or not at all");
	if (o->nlabels == 2 && strcmp(o->labels[0], o->labels[1]) == 0)
		return tool_usage(PROG, "%s", "--ab: the two labels must differ");
	if (o->no_stall && o->closed)
		return tool_usage(PROG, "%s", "--no-stall and --closed do not go together");
	if (!o->nlabels) {
		o->labels[0] = "A";
		o->labels[1] = "B";
	}
	if (!o->rounds)
		o->rounds = 3;
	return TOOL_EXIT_OK;
}

tool_exit cli_read(int argc, char **argv, replay_opts *o, bool *run)
{
	memset(o, 0, sizeof *o);
	o->speed = 1.0;
	o->spin_ns = 150000;
	o->progress = true;
	*run = false;
	tool_args args;
	tool_args_start(&args, &desc, argc, argv);
	int c;
	tool_exit rc;
	while ((c = tool_args_next(&args)) >= 0) {
		uint64_t v;
		char *end;
		switch (c) {
		case 'd':
			if ((rc = add_map(o, optarg, true)))
				return rc;
			break;
		case OPT_MAP:
			if ((rc = add_map(o, optarg, false)))
				return rc;
			break;
		case 'w': o->write = true; break;
		case OPT_FORCE: o->force = true; break;
		case OPT_OFFSET:
			if (br_parse_size(optarg, &v))
				return tool_usage(PROG, "--offset: '%s' is not a size (e.g. 4k, 1M)", optarg);
			o->offset = v;
			break;
		case OPT_WRAP: o->fit = FIT_WRAP; break;
		case OPT_SCALE: o->fit = FIT_SCALE; break;
		case OPT_BUFFERED: o->buffered = true; break;
		case OPT_SOURCE:
			if (strcmp(optarg, "D") == 0 || strcmp(optarg, "d") == 0)
				o->source_q = false;
			else if (strcmp(optarg, "Q") == 0 || strcmp(optarg, "q") == 0)
				o->source_q = true;
			else
				return tool_usage(PROG, "--source: '%s' is not D or Q", optarg);
			break;
		case OPT_SPEED:
			o->speed = strtod(optarg, &end);
			if (*end || end == optarg || !(o->speed > 0) || o->speed > 1e6)
				return tool_usage(PROG, "--speed: '%s' is not a positive factor", optarg);
			break;
		case OPT_NO_STALL: o->no_stall = true; break;
		case OPT_MAX_INFLIGHT:
			if ((rc = tool_arg_count(PROG, "--max-inflight", optarg, 1, 4096, &v)))
				return rc;
			o->max_inflight = (unsigned)v;
			break;
		case OPT_CLOSED: o->closed = true; break;
		case OPT_SPIN:
			if (br_parse_duration_ns(optarg, &v) || v > 1000000000ull)
				return tool_usage(PROG, "--spin: '%s' is not a duration (e.g. 150us, 1ms)", optarg);
			o->spin_ns = v;
			break;
		case OPT_ENGINE:
			if (strcmp(optarg, "io_uring") && strcmp(optarg, "threads"))
				return tool_usage(PROG, "--engine: '%s' is not io_uring or threads", optarg);
			o->engine = optarg;
			break;
		case OPT_THREADS:
			if ((rc = tool_arg_count(PROG, "--threads", optarg, 1, 1024, &v)))
				return rc;
			o->threads = (unsigned)v;
			break;
		case OPT_STOP_ON_ERROR: o->stop_on_error = true; break;
		case 'o': o->output = optarg; break;
		case OPT_REPORT: o->report = optarg; break;
		case 'q': o->quiet = true; break;
		case OPT_NO_PROGRESS: o->progress = false; break;
		case OPT_AB:
			/* two targets: the second is the next word */
			if (optind >= argc || argv[optind][0] == '-')
				return tool_usage(PROG, "%s", "--ab takes two targets: --ab DEV_A DEV_B");
			o->ab[0] = optarg;
			o->ab[1] = argv[optind++];
			break;
		case 'l':
			if (o->nlabels == 2)
				return tool_usage(PROG, "%s", "-l: one label for A, one for B");
			if (!*optarg || strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") !=
					     strlen(optarg) || strlen(optarg) > 32)
				return tool_usage(PROG, "-l: '%s' is not a label (letters, digits, . _ + -; "
						  "up to 32: it names files)", optarg);
			o->labels[o->nlabels++] = optarg;
			break;
		case OPT_ROUNDS:
			if ((rc = tool_arg_count(PROG, "--rounds", optarg, 2, 16, &v)))
				return rc;
			o->rounds = (unsigned)v;
			break;
		}
	}
	if (c == TOOL_ARGS_STOP)
		return args.exit;
	for (int i = optind; i < argc; i++) {
		const char **in = tool_grow(o->inputs, &o->inputs_cap, o->ninputs + 1, sizeof *in, 8);
		if (!in) {
			tool_say(PROG, "out of memory");
			return TOOL_EXIT_FAIL;
		}
		o->inputs = in;
		o->inputs[o->ninputs++] = argv[i];
	}
	if (o->ninputs == 0)
		return tool_usage(PROG, "%s", "no trace given");
	if (o->ab[0]) {
		rc = check_ab(o);
		*run = rc == TOOL_EXIT_OK;
		return rc;
	}
	if (o->nlabels || o->rounds)
		return tool_usage(PROG, "%s", "-l and --rounds go with --ab");
	if (o->nmaps == 0)
		return tool_usage(PROG, "%s", "no target: give -d PATH or --map MAJ,MIN=PATH");
	size_t any = 0;
	for (size_t i = 0; i < o->nmaps; i++)
		any += o->maps[i].any;
	if (any > 1 || (any && o->nmaps > 1))
		return tool_usage(PROG, "%s", "give one -d, or --map for each device, not both");
	if (o->nmaps > PLAN_MAX_TARGETS)
		return tool_usage(PROG, "%s", "too many --map targets");
	if (o->output && strcmp(o->output, "-") == 0 && !o->quiet)
		return tool_usage(PROG, "%s", "-o - and the text report would both go to standard output (add -q)");
	if (o->no_stall && o->closed)
		return tool_usage(PROG, "%s", "--no-stall and --closed do not go together");
	*run = true;
	return TOOL_EXIT_OK;
}

void cli_free(replay_opts *o)
{
	free(o->inputs);
	free(o->maps);
	o->inputs = NULL;
	o->maps = NULL;
}
