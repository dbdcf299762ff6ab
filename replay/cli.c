#include "cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/event.h"
#include "blkreel/units.h"
#include "blkreel/cli.h"

#define PROG "blkreel-replay"

static const char usage_text[] =
	"Usage: blkreel-replay [OPTION]... TRACE... -d TARGET\n"
	"  or:  blkreel-replay [OPTION]... TRACE... --map MAJ,MIN=TARGET...\n"
	"Reissue a trace's IOs against a block device or a regular file, on the\n"
	"trace's own timing, and report how faithfully that was done.\n"
	"\n"
	"TRACE is anything blkreel reads (a compressed .blktrace.gz, a per-CPU set,\n"
	"a blk_io_trace stream or dump, - for standard input). IOs are replayed as\n"
	"the device saw them (D events) unless --source Q. Reads only unless --write.\n"
	"\n"
	"Targets:\n"
	"  -d, --device=PATH      replay every traced device onto PATH\n"
	"      --map=MAJ,MIN=PATH replay traced device MAJ,MIN onto PATH (repeatable);\n"
	"                         IOs of devices without a target are skipped, counted\n"
	"  -w, --write            also replay writes, flushes and discards; written data\n"
	"                         is a recognisable pattern (trace offset, sequence)\n"
	"      --force            replay onto a target that carries a filesystem or\n"
	"                         partition table, or (with --write) is the device the\n"
	"                         trace was captured from; without --write, also read a\n"
	"                         target in use. A target in use (mounted, held, opened\n"
	"                         exclusively, a partition of such a disk, the file\n"
	"                         behind such a loop device) is never written\n"
	"Addresses:\n"
	"      --offset=SIZE      shift every IO by SIZE bytes on the target (4k, 1M...)\n"
	"      --wrap             fold addresses beyond the target's end back (modulo)\n"
	"      --scale            shrink the trace's address range linearly onto the target\n"
	"                         (without either, an IO beyond the end stops the replay\n"
	"                         before anything is issued)\n"
	"      --buffered         send IOs not aligned for O_DIRECT buffered, instead of\n"
	"                         widening them to the alignment\n"
	"Timing:\n"
	"      --source=D|Q       replay issued (D, default) or queued (Q) requests\n"
	"      --speed=X          X times as fast as the trace (default 1; 0.5 = half)\n"
	"      --no-stall         as fast as possible, in order, keeping the depth\n"
	"      --max-inflight=N   at most N IOs in flight, 1..4096 (default 256; with\n"
	"                         --no-stall the trace's own maximum, up to 256; by\n"
	"                         default never more than a target's request queue)\n"
	"      --closed           each IO waits for the completions its original had seen\n"
	"      --spin=DUR         spin this long before each target time (default 150us)\n"
	"      --engine=NAME      io_uring (default when available) or threads\n"
	"      --threads=N        workers of the threads engine (default min(depth,16))\n"
	"      --stop-on-error    stop at the first failed IO (default: count and go on)\n"
	"Output:\n"
	"  -o, --output=FILE      write the replay's own trace (Q=handed over, D=issued,\n"
	"                         C=completed) in blkreel's compressed format\n"
	"      --report=FILE      write the fidelity report as JSON\n"
	"  -q, --quiet            no text report on standard output\n"
	"      --no-progress      no live status line on a terminal\n"
	"A/B (the same IOs against two stacks, in rounds, then why one is faster):\n"
"      --ab=DEV_A DEV_B   replay in rounds A B, B A, A B... onto each target with\n"
"                         the options above, capturing its block layer in this\n"
"                         process (root); -o DIR (new or empty) gets each round's\n"
"                         roundK-LABEL.blktrace.gz and .replay.json (fidelity),\n"
"                         then report.txt, .md and .json: the diagnosis of A\n"
"                         against B with the rounds as the unit of variance\n"
"  -l, --label=NAME       name of A, then (again) of B (default A and B)\n"
"      --rounds=N         rounds a side, 2..16 (default 3)\n"
"  -h, --help             show this help and exit\n"
	"  -V, --version          show the version and exit\n"
	"\n"
	"Examples:\n"
	"  blkreel-replay prod.blktrace.gz -d /dev/loop3          # reads only\n"
	"  blkreel-replay prod.blktrace.gz -d /dev/loop3 --write --speed 2 \\\n"
	"      -o replayed.blktrace.gz --report r.json\n"
	"  blkreel-replay big.blktrace.gz -d test.img --wrap --no-stall\n"
"  blkreel-replay prod.blktrace.gz --ab /dev/loop3 /dev/loop4 -l linear -l thin \\\n"
"      --rounds 3 -o ab/\n"
	"\n"
	"Exit status: 0 replayed, every IO succeeded; 1 runtime failure (refused\n"
	"target, unreadable trace, failed IOs); 2 usage error.\n";

enum {
	OPT_MAP = 256, OPT_FORCE, OPT_OFFSET, OPT_WRAP, OPT_SCALE, OPT_BUFFERED, OPT_SOURCE,
	OPT_SPEED, OPT_NO_STALL, OPT_MAX_INFLIGHT, OPT_CLOSED, OPT_SPIN, OPT_ENGINE, OPT_THREADS,
	OPT_STOP_ON_ERROR, OPT_REPORT, OPT_NO_PROGRESS, OPT_AB, OPT_ROUNDS,
};

static int grow(void **arr, size_t n, size_t elem)
{
	void *p = realloc(*arr, (n + 1) * elem);
	if (!p) {
		fprintf(stderr, "blkreel-replay: out of memory\n");
		return 1;
	}
	*arr = p;
	return 0;
}

static int add_map(replay_opts *o, const char *arg, bool any)
{
	cli_map m = { .any = any, .path = arg };
	if (!any) {
		unsigned ma, mi;
		int used = 0;
		if (sscanf(arg, "%u,%u=%n", &ma, &mi, &used) != 2 || !used || !arg[used])
			return br_cli_usage(stderr, PROG, "--map: '%s' is not MAJ,MIN=PATH", arg);
		m.dev = BR_MKDEV(ma, mi);
		m.path = arg + used;
	}
	if (grow((void **)&o->maps, o->nmaps, sizeof *o->maps))
		return 1;
	o->maps[o->nmaps++] = m;
	return 0;
}

static int check_ab(replay_opts *o)
{
	if (o->nmaps || o->report)
		return br_cli_usage(stderr, PROG, "%s", "--ab names the targets: no -d, --map or --report beside it");
	if (!o->output)
		return br_cli_usage(stderr, PROG, "%s", "--ab needs -o DIR, the folder for the rounds and the report");
	if (o->nlabels == 1)
		return br_cli_usage(stderr, PROG, "%s", "--ab: give -l twice (A, then B) or not at all");
	if (o->nlabels == 2 && strcmp(o->labels[0], o->labels[1]) == 0)
		return br_cli_usage(stderr, PROG, "%s", "--ab: the two labels must differ");
	if (o->no_stall && o->closed)
		return br_cli_usage(stderr, PROG, "%s", "--no-stall and --closed do not go together");
	if (!o->nlabels) {
		o->labels[0] = "A";
		o->labels[1] = "B";
	}
	if (!o->rounds)
		o->rounds = 3;
	return CLI_OK;
}

int cli_read(int argc, char **argv, replay_opts *o)
{
	static const struct option longopts[] = {
		{ "device", required_argument, NULL, 'd' },
		{ "map", required_argument, NULL, OPT_MAP },
		{ "write", no_argument, NULL, 'w' },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "offset", required_argument, NULL, OPT_OFFSET },
		{ "wrap", no_argument, NULL, OPT_WRAP },
		{ "scale", no_argument, NULL, OPT_SCALE },
		{ "buffered", no_argument, NULL, OPT_BUFFERED },
		{ "source", required_argument, NULL, OPT_SOURCE },
		{ "speed", required_argument, NULL, OPT_SPEED },
		{ "no-stall", no_argument, NULL, OPT_NO_STALL },
		{ "max-inflight", required_argument, NULL, OPT_MAX_INFLIGHT },
		{ "closed", no_argument, NULL, OPT_CLOSED },
		{ "spin", required_argument, NULL, OPT_SPIN },
		{ "engine", required_argument, NULL, OPT_ENGINE },
		{ "threads", required_argument, NULL, OPT_THREADS },
		{ "stop-on-error", no_argument, NULL, OPT_STOP_ON_ERROR },
		{ "output", required_argument, NULL, 'o' },
		{ "report", required_argument, NULL, OPT_REPORT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "ab", required_argument, NULL, OPT_AB },
		{ "label", required_argument, NULL, 'l' },
		{ "rounds", required_argument, NULL, OPT_ROUNDS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	memset(o, 0, sizeof *o);
	o->speed = 1.0;
	o->spin_ns = 150000;
	o->progress = true;
	int c, rc;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":d:wo:l:qhV", longopts, NULL)) != -1) {
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
				return br_cli_usage(stderr, PROG, "--offset: '%s' is not a size (e.g. 4k, 1M)", optarg);
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
				return br_cli_usage(stderr, PROG, "--source: '%s' is not D or Q", optarg);
			break;
		case OPT_SPEED:
			o->speed = strtod(optarg, &end);
			if (*end || end == optarg || !(o->speed > 0) || o->speed > 1e6)
				return br_cli_usage(stderr, PROG, "--speed: '%s' is not a positive factor", optarg);
			break;
		case OPT_NO_STALL: o->no_stall = true; break;
		case OPT_MAX_INFLIGHT:
			if ((rc = br_cli_count(stderr, PROG, "--max-inflight", optarg, 1, 4096, &v)))
				return rc;
			o->max_inflight = (unsigned)v;
			break;
		case OPT_CLOSED: o->closed = true; break;
		case OPT_SPIN:
			if (br_parse_duration_ns(optarg, &v) || v > 1000000000ull)
				return br_cli_usage(stderr, PROG, "--spin: '%s' is not a duration (e.g. 150us, 1ms)", optarg);
			o->spin_ns = v;
			break;
		case OPT_ENGINE:
			if (strcmp(optarg, "io_uring") && strcmp(optarg, "threads"))
				return br_cli_usage(stderr, PROG, "--engine: '%s' is not io_uring or threads", optarg);
			o->engine = optarg;
			break;
		case OPT_THREADS:
			if ((rc = br_cli_count(stderr, PROG, "--threads", optarg, 1, 1024, &v)))
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
				return br_cli_usage(stderr, PROG, "%s", "--ab takes two targets: --ab DEV_A DEV_B");
			o->ab[0] = optarg;
			o->ab[1] = argv[optind++];
			break;
		case 'l':
			if (o->nlabels == 2)
				return br_cli_usage(stderr, PROG, "%s", "-l: one label for A, one for B");
			if (!*optarg || strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._+-") !=
					     strlen(optarg) || strlen(optarg) > 32)
				return br_cli_usage(stderr, PROG, "-l: '%s' is not a label (letters, digits, . _ + -; "
						    "up to 32: it names files)", optarg);
			o->labels[o->nlabels++] = optarg;
			break;
		case OPT_ROUNDS:
			if ((rc = br_cli_count(stderr, PROG, "--rounds", optarg, 2, 16, &v)))
				return rc;
			o->rounds = (unsigned)v;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		case 'V':
			puts("blkreel-replay " BLKREEL_VERSION);
			return CLI_EXIT_OK;
		case ':':
		default:
			return br_cli_bad_option(stderr, PROG, c, argv[optind - 1]);
		}
	}
	for (int i = optind; i < argc; i++) {
		if (grow((void **)&o->inputs, o->ninputs, sizeof *o->inputs))
			return 1;
		o->inputs[o->ninputs++] = argv[i];
	}
	if (o->ninputs == 0)
		return br_cli_usage(stderr, PROG, "%s", "no trace given");
	if (o->ab[0])
		return check_ab(o);
	if (o->nlabels || o->rounds)
		return br_cli_usage(stderr, PROG, "%s", "-l and --rounds go with --ab");
	if (o->nmaps == 0)
		return br_cli_usage(stderr, PROG, "%s", "no target: give -d PATH or --map MAJ,MIN=PATH");
	size_t any = 0;
	for (size_t i = 0; i < o->nmaps; i++)
		any += o->maps[i].any;
	if (any > 1 || (any && o->nmaps > 1))
		return br_cli_usage(stderr, PROG, "%s", "give one -d, or --map for each device, not both");
	if (o->nmaps > PLAN_MAX_TARGETS)
		return br_cli_usage(stderr, PROG, "%s", "too many --map targets");
	if (o->output && strcmp(o->output, "-") == 0 && !o->quiet)
		return br_cli_usage(stderr, PROG, "%s", "-o - and the text report would both go to standard output (add -q)");
	if (o->no_stall && o->closed)
		return br_cli_usage(stderr, PROG, "%s", "--no-stall and --closed do not go together");
	return CLI_OK;
}

void cli_free(replay_opts *o)
{
	free(o->inputs);
	free(o->maps);
	o->inputs = NULL;
	o->maps = NULL;
}
