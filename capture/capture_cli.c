#include "capture_cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "blkreel/event.h"
#include "blkreel/units.h"
#include "blkreel/cli.h"

#define PROG "blkreel-capture"

static const char usage_text[] =
	"Usage: blkreel-capture [OPTION]... -d DEVICE... [-- COMMAND [ARG]...]\n"
	"Trace block devices while COMMAND runs (or for -w seconds, or until Ctrl-C)\n"
	"and write the compressed trace file NAME.blktrace.gz. To a file, records are\n"
	"spooled raw to NAME.blktrace.spool while tracing and compressed afterwards,\n"
	"so the workload does not pay for compression.\n"
	"\n"
	"  -d, --dev=DEVICE        trace DEVICE (a block device); repeat for more, all\n"
	"                          go into one file\n"
	"  -o, --output=NAME       write NAME.blktrace.gz (default: the first device's\n"
	"                          name); - streams the compressed file to stdout\n"
	"  -D, --output-dir=DIR    put the output files in DIR\n"
	"      --split             also write the classic per-CPU set NAME.blktrace.<cpu>\n"
	"                          (blkparse, btt and iowatcher read it as it is)\n"
	"  -w, --stopwatch=TIME    stop after TIME (30, 1.5s, 250ms, 2m); a COMMAND still\n"
	"                          running then gets SIGTERM\n"
	"  -a, --act-mask=ACTIONS  only events in these categories (comma list, or\n"
	"                          repeat): read write flush sync queue requeue issue\n"
	"                          complete fs pc notify ahead meta discard drv_data fua\n"
	"      --pid=PID           only events of this process\n"
	"      --start-lba=SECTOR  only events at or after this sector\n"
	"      --end-lba=SECTOR    only events at or before this sector\n"
	"  -b, --buffer-size=SIZE  per-CPU buffer size (512K, 1M; a bare number is KiB)\n"
	"  -n, --num-buffers=N     buffers per CPU (total per CPU = SIZE x N)\n"
	"      --backend=NAME      use this kernel interface: relay, bpf, perf, tracefs\n"
	"      --list-backends     say which backends work here and why the others don't\n"
	"                          (with -d DEVICE each is started and stopped for real)\n"
	"      --allow-drops       exit 0 even when events were lost\n"
	"      --cleanup           after a killed capture: restore the kernel state it\n"
	"                          changed and make its .gz file (and --split set)\n"
	"                          from its spool\n"
	"  -l, --level=N           compression level 1..9 (default 6; 1 when streaming\n"
	"                          to stdout, where compression runs during tracing)\n"
	"  -j, --threads=N         compression threads (default: all CPUs once tracing\n"
	"                          stops; 1 when streaming)\n"
	"  -q, --quiet             no status line, no summary (errors still show)\n"
	"      --no-progress       no live status line\n"
	"  -h, --help              show this help and exit\n"
	"  -V, --version           show the version and exit\n"
	"\n"
	"Examples:\n"
	"  blkreel-capture -d /dev/sdb -o run1 -- fio job.fio\n"
	"  blkreel-capture -d /dev/sdb -d /dev/sdc -o run2 -w 60\n"
	"  blkreel-capture -d /dev/sdb -o - | ssh host 'cat > t.blktrace.gz'\n"
	"  zcat run1.blktrace.gz | blkparse -i -\n"
	"\n"
	"Exit status: with COMMAND, its exit status (128+N if killed by signal N);\n"
	"otherwise 0 ok, also when ended by Ctrl-C, SIGTERM or SIGHUP, 1 runtime\n"
	"failure (refused, no backend works, write error, events lost without\n"
	"--allow-drops), 2 usage error.\n";

static const struct {
	const char *name;
	uint16_t bit;
} mask_names[] = {
	{ "read", BLK_TC_READ },       { "write", BLK_TC_WRITE },     { "flush", BLK_TC_FLUSH },
	{ "barrier", BLK_TC_FLUSH },   { "sync", BLK_TC_SYNC },       { "queue", BLK_TC_QUEUE },
	{ "requeue", BLK_TC_REQUEUE }, { "issue", BLK_TC_ISSUE },     { "complete", BLK_TC_COMPLETE },
	{ "fs", BLK_TC_FS },           { "pc", BLK_TC_PC },           { "notify", BLK_TC_NOTIFY },
	{ "ahead", BLK_TC_AHEAD },     { "meta", BLK_TC_META },       { "discard", BLK_TC_DISCARD },
	{ "drv_data", BLK_TC_DRV_DATA }, { "fua", BLK_TC_FUA },
};

int capture_parse_mask(const char *text, uint16_t *mask)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", text);
	uint16_t m = 0;
	for (char *save, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i;
		for (i = 0; i < sizeof mask_names / sizeof mask_names[0]; i++)
			if (strcasecmp(tok, mask_names[i].name) == 0)
				break;
		if (i == sizeof mask_names / sizeof mask_names[0])
			return -1;
		m |= mask_names[i].bit;
	}
	if (!m)
		return -1;
	*mask = m;
	return 0;
}

enum {
	OPT_SPLIT = 256, OPT_PID, OPT_START_LBA, OPT_END_LBA, OPT_BACKEND, OPT_LIST,
	OPT_ALLOW_DROPS, OPT_CLEANUP, OPT_NO_PROGRESS,
};

int capture_cli_read(int argc, char **argv, capture_cli *cli)
{
	static const struct option longopts[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "output-dir", required_argument, NULL, 'D' },
		{ "split", no_argument, NULL, OPT_SPLIT },
		{ "stopwatch", required_argument, NULL, 'w' },
		{ "act-mask", required_argument, NULL, 'a' },
		{ "pid", required_argument, NULL, OPT_PID },
		{ "start-lba", required_argument, NULL, OPT_START_LBA },
		{ "end-lba", required_argument, NULL, OPT_END_LBA },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "num-buffers", required_argument, NULL, 'n' },
		{ "backend", required_argument, NULL, OPT_BACKEND },
		{ "list-backends", no_argument, NULL, OPT_LIST },
		{ "allow-drops", no_argument, NULL, OPT_ALLOW_DROPS },
		{ "cleanup", no_argument, NULL, OPT_CLEANUP },
		{ "level", required_argument, NULL, 'l' },
		{ "threads", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	memset(cli, 0, sizeof *cli);
	cli->act_mask = 0xffff;
	cli->progress = true;
	/* 0 = chosen by the output: see outputs.c */
	cli->write.level = 0;
	cli->write.threads = 0;
	int c;
	opterr = 0;
	/* '+': stop at the first non-option, so COMMAND's own options are its. */
	while ((c = getopt_long(argc, argv, "+:d:o:D:w:a:b:n:l:j:qhV", longopts, NULL)) != -1) {
		uint64_t v;
		int rc;
		switch (c) {
		case 'd':
			if (cli->ndevices == CAP_MAX_DEVICES)
				return br_cli_usage(stderr, PROG, "too many devices (at most %s)", "64");
			cli->devices[cli->ndevices++] = optarg;
			break;
		case 'o': cli->output = optarg; break;
		case 'D': cli->dir = optarg; break;
		case OPT_SPLIT: cli->split = true; break;
		case 'w':
			if (br_parse_duration_ns(optarg, &v) || v == 0)
				return br_cli_usage(stderr, PROG, "-w: '%s' is not a time (e.g. 30, 1.5s, 250ms)", optarg);
			cli->stop_after_ns = v;
			break;
		case 'a': {
			uint16_t m;
			if (capture_parse_mask(optarg, &m))
				return br_cli_usage(stderr, PROG, "-a: '%s' is not a list of actions (see --help)", optarg);
			cli->act_mask = cli->act_mask == 0xffff ? m : (uint16_t)(cli->act_mask | m);
			break;
		}
		case OPT_PID:
			if (br_parse_uint(optarg, 1, UINT32_MAX, &v))
				return br_cli_usage(stderr, PROG, "--pid: '%s' is not a process id", optarg);
			cli->pid = (uint32_t)v;
			break;
		case OPT_START_LBA:
			if (br_parse_uint(optarg, 0, UINT64_MAX, &cli->start_lba))
				return br_cli_usage(stderr, PROG, "--start-lba: '%s' is not a sector number", optarg);
			break;
		case OPT_END_LBA:
			if (br_parse_uint(optarg, 0, UINT64_MAX, &cli->end_lba))
				return br_cli_usage(stderr, PROG, "--end-lba: '%s' is not a sector number", optarg);
			break;
		case 'b': {
			/* blktrace takes KiB: a bare number means KiB here too. */
			bool bare = br_parse_uint(optarg, 0, UINT64_MAX / 1024, &v) == 0;
			if (!bare && br_parse_size(optarg, &v))
				return br_cli_usage(stderr, PROG, "-b: '%s' is not a size (512K, 1M)", optarg);
			if (bare)
				v *= 1024;
			if (v < 4096 || v > (1ull << 30))
				return br_cli_usage(stderr, PROG, "-b: '%s' is out of range (4K..1G)", optarg);
			cli->buf_size = v;
			break;
		}
		case 'n':
			if ((rc = br_cli_count(stderr, PROG, "-n", optarg, 1, 1024, &v)))
				return rc;
			cli->buf_count = (unsigned)v;
			break;
		case OPT_BACKEND: cli->backend = optarg; break;
		case OPT_LIST: cli->list_backends = true; break;
		case OPT_ALLOW_DROPS: cli->allow_drops = true; break;
		case OPT_CLEANUP: cli->cleanup = true; break;
		case 'l':
			if (br_parse_uint(optarg, 1, 9, &v))
				return br_cli_usage(stderr, PROG, "--level: '%s' is not a level from 1 to 9", optarg);
			cli->write.level = (int)v;
			break;
		case 'j':
			if ((rc = br_cli_count(stderr, PROG, "--threads", optarg, 1, 256, &v)))
				return rc;
			cli->write.threads = (unsigned)v;
			break;
		case 'q': cli->quiet = true; cli->progress = false; break;
		case OPT_NO_PROGRESS: cli->progress = false; break;
		case 'h':
			fputs(usage_text, stdout);
			return CLI_EXIT_OK;
		case 'V':
			puts("blkreel-capture " BLKREEL_VERSION);
			return CLI_EXIT_OK;
		case ':':
		default:
			return br_cli_bad_option(stderr, PROG, c, argv[optind - 1]);
		}
	}
	if (optind < argc)
		cli->command = &argv[optind];
	if (cli->list_backends || cli->cleanup)
		return CLI_OK;
	if (cli->ndevices == 0)
		return br_cli_usage(stderr, PROG, "%s", "no device given (-d DEVICE)");
	if (cli->end_lba && cli->end_lba < cli->start_lba)
		return br_cli_usage(stderr, PROG, "%s", "--end-lba is before --start-lba");
	if (cli->output && strcmp(cli->output, "-") == 0 && cli->split)
		return br_cli_usage(stderr, PROG, "%s", "--split needs a file name, not -o -");
	if (cli->output && strcmp(cli->output, "-") == 0 && cli->dir)
		return br_cli_usage(stderr, PROG, "%s", "-D makes no sense with -o -");
	return CLI_OK;
}
