#include "capture_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "blkreel/event.h"
#include "blkreel/units.h"
#include "tool/opts.h"
#include "tool/say.h"

#define PROG "blkreel-capture"

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
	OPT_SPLIT = TOOL_KEY_LONG, OPT_PID, OPT_START_LBA, OPT_END_LBA, OPT_BACKEND, OPT_LIST,
	OPT_ALLOW_DROPS, OPT_CLEANUP, OPT_NO_PROGRESS, OPT_ROTATE, OPT_KEEP, OPT_KEEP_SIZE, OPT_MAX_DISK,
	OPT_RESERVE, OPT_ON_FULL, OPT_FLIGHT, OPT_FLIGHT_AFTER, OPT_TRIGGER_ON, OPT_TRIGGER, OPT_STATUS_FILE,
};

static const tool_opt options[] = {
	{ 'd', "device", "DEVICE", "trace DEVICE (a block device); repeat for more, all\n"
				   "go into one file" },
	{ 'd', "dev", "DEVICE", "the same as --device (its older spelling)", .alias = true },
	{ 'o', "output", "NAME", "write NAME.blktrace.gz (default: the first device's\n"
				 "name); - streams the compressed file to stdout" },
	{ 'D', "output-dir", "DIR", "put the output files in DIR" },
	{ OPT_SPLIT, "split", NULL, "also write the classic per-CPU set NAME.blktrace.<cpu>\n"
				    "(blkparse, btt and iowatcher read it as it is)" },
	{ OPT_ROTATE, "rotate", "TIME|SIZE", "write a series of files NAME.00001.blktrace.gz, ...:\n"
					    "a new one every TIME of trace (10m, 1h, 30s) or at\n"
					    "about SIZE compressed (1G, 200M); each finished while\n"
					    "tracing goes on (10m is minutes, 10M MiB)" },
	{ OPT_KEEP, "keep", "N", "with --rotate: keep the newest N files, remove older" },
	{ OPT_KEEP_SIZE, "keep-size", "SIZE", "with --rotate: remove the oldest files while the set\n"
					      "holds more than SIZE" },
	{ OPT_MAX_DISK, "max-disk", "SIZE", "the capture's files and spools may take SIZE at most" },
	{ OPT_RESERVE, "reserve", "PCT", "leave PCT % of the output filesystem free (default 5)" },
	{ OPT_ON_FULL, "on-full", "stop|drop", "at --max-disk or the reserve: stop the capture and\n"
					       "keep what it has (default), or go on tracing and\n"
					       "count the events not written (lost: exit 1 unless\n"
					       "--allow-drops) until there is room again" },
	{ OPT_FLIGHT, "flight", "TIME", "flight recorder: keep only the last TIME of trace\n"
					 "and write it, with --flight-after more, to\n"
					 "NAME.flight-NNNNN.blktrace.gz when triggered (by\n"
					 "--trigger-on, SIGUSR1 or --trigger); go on" },
	{ OPT_FLIGHT_AFTER, "flight-after", "TIME", "with --flight: keep TIME after a trigger too (5s)" },
	{ OPT_TRIGGER_ON, "trigger-on", "RULE", "with --flight: trigger when RULE holds on the\n"
						"stream: d2c>50ms, q2c>1s, inflight>128, idle>2s\n"
						"(repeat for more)" },
	{ OPT_TRIGGER, "trigger", NULL, "trigger the flight captures running on this machine\n"
					"(with -o NAME, those writing NAME) and exit" },
	{ OPT_STATUS_FILE, "status-file", "PATH", "rewrite PATH every second with one status line\n"
						  "(events, rates, drops, files, disk); SIGUSR2 prints\n"
						  "it on stderr" },
	{ 'w', "stopwatch", "TIME", "stop after TIME (30, 1.5s, 250ms, 2m); a COMMAND still\n"
				    "running then gets SIGTERM" },
	{ 'a', "act-mask", "ACTIONS", "only events in these categories (comma list, or\n"
				      "repeat): read write flush sync queue requeue issue\n"
				      "complete fs pc notify ahead meta discard drv_data fua" },
	{ OPT_PID, "pid", "PID", "only events of this process" },
	{ OPT_START_LBA, "start-lba", "SECTOR", "only events at or after this sector" },
	{ OPT_END_LBA, "end-lba", "SECTOR", "only events at or before this sector" },
	{ 'b', "buffer-size", "SIZE", "per-CPU buffer size (512K, 1M; a bare number is KiB)" },
	{ 'n', "num-buffers", "N", "buffers per CPU (total per CPU = SIZE x N)" },
	{ OPT_BACKEND, "backend", "NAME", "use this kernel interface: relay, bpf, perf, tracefs" },
	{ OPT_LIST, "list-backends", NULL, "say which backends work here and why the others don't\n"
					   "(with -d DEVICE each is started and stopped for real)" },
	{ OPT_ALLOW_DROPS, "allow-drops", NULL, "exit 0 even when events were lost" },
	{ OPT_CLEANUP, "cleanup", NULL, "after a killed capture: restore the kernel state it\n"
					"changed and make its .gz file (and --split set)\n"
					"from its spool" },
	{ 'l', "level", "N", "compression level 1..9 (default 6; 1 when streaming\n"
			     "to stdout, where compression runs during tracing)" },
	{ 'j', "threads", "N", "compression threads (default: all CPUs once tracing\n"
			       "stops; 1 when streaming)" },
	{ 'q', "quiet", NULL, "no status line, no summary (errors still show)" },
	TOOL_OPT_NO_PROGRESS(OPT_NO_PROGRESS),
	TOOL_OPTS_END,
};

static const tool_desc desc = {
	.prog = PROG,
	.opts = options,
	.column = 26,
	.mode = '+', /* stop at the first non-option, so COMMAND's own options are its */
	.head = "Usage: blkreel-capture [OPTION]... -d DEVICE... [-- COMMAND [ARG]...]\n"
		"Trace block devices while COMMAND runs (or for -w seconds, or until Ctrl-C)\n"
		"and write the compressed trace file NAME.blktrace.gz. To a file, records are\n"
		"spooled raw to NAME.blktrace.spool while tracing and compressed afterwards,\n"
		"so the workload does not pay for compression.\n"
		"\n",
	.tail = "\n"
		"Examples:\n"
		"  blkreel-capture -d /dev/sdb -o run1 -- fio job.fio\n"
		"  blkreel-capture -d /dev/sdb -d /dev/sdc -o run2 -w 60\n"
		"  blkreel-capture -d /dev/sdb -o - | ssh host 'cat > t.blktrace.gz'\n"
		"  blkreel-capture -d /dev/sdb -o prod --rotate 10m --keep 144 --max-disk 20G\n"
		"  blkreel-capture -d /dev/sdb -o stall --flight 30s --trigger-on 'd2c>50ms'\n"
		"  zcat run1.blktrace.gz | blkparse -i -\n"
		"\n"
		"Exit status: with COMMAND, its exit status (128+N if killed by signal N);\n"
		"otherwise 0 ok, also when ended by Ctrl-C, SIGTERM or SIGHUP, 1 runtime\n"
		"failure (refused, no backend works, write error, events lost without\n"
		"--allow-drops), 2 usage error.\n",
};

tool_exit capture_cli_read(int argc, char **argv, capture_cli *cli, bool *run)
{
	memset(cli, 0, sizeof *cli);
	cli->act_mask = 0xffff;
	cli->progress = true;
	cli->reserve = 0.05;
	/* 0 = chosen by the output: see outputs.c */
	cli->write.level = 0;
	cli->write.threads = 0;
	cli->flight_after_ns = 5ull * 1000 * 1000 * 1000;
	bool after_given = false;
	*run = false;
	tool_args args;
	tool_args_start(&args, &desc, argc, argv);
	int c;
	while ((c = tool_args_next(&args)) >= 0) {
		uint64_t v;
		tool_exit rc;
		switch (c) {
		case 'd':
			if (cli->ndevices == CAP_MAX_DEVICES)
				return tool_usage(PROG, "too many devices (at most %s)", "64");
			cli->devices[cli->ndevices++] = optarg;
			break;
		case 'o': cli->output = optarg; break;
		case 'D': cli->dir = optarg; break;
		case OPT_SPLIT: cli->split = true; break;
		case 'w':
			if (br_parse_duration_ns(optarg, &v) || v == 0)
				return tool_usage(PROG, "-w: '%s' is not a time (e.g. 30, 1.5s, 250ms)", optarg);
			cli->stop_after_ns = v;
			break;
		case 'a': {
			uint16_t m;
			if (capture_parse_mask(optarg, &m))
				return tool_usage(PROG, "-a: '%s' is not a list of actions (see --help)", optarg);
			cli->act_mask = cli->act_mask == 0xffff ? m : (uint16_t)(cli->act_mask | m);
			break;
		}
		case OPT_PID:
			if (br_parse_uint(optarg, 1, UINT32_MAX, &v))
				return tool_usage(PROG, "--pid: '%s' is not a process id", optarg);
			cli->pid = (uint32_t)v;
			break;
		case OPT_START_LBA:
			if (br_parse_uint(optarg, 0, UINT64_MAX, &cli->start_lba))
				return tool_usage(PROG, "--start-lba: '%s' is not a sector number", optarg);
			break;
		case OPT_END_LBA:
			if (br_parse_uint(optarg, 0, UINT64_MAX, &cli->end_lba))
				return tool_usage(PROG, "--end-lba: '%s' is not a sector number", optarg);
			break;
		case 'b': {
			/* blktrace takes KiB: a bare number means KiB here too. */
			bool bare = br_parse_uint(optarg, 0, UINT64_MAX / 1024, &v) == 0;
			if (!bare && br_parse_size(optarg, &v))
				return tool_usage(PROG, "-b: '%s' is not a size (512K, 1M)", optarg);
			if (bare)
				v *= 1024;
			if (v < 4096 || v > (1ull << 30))
				return tool_usage(PROG, "-b: '%s' is out of range (4K..1G)", optarg);
			cli->buf_size = v;
			break;
		}
		case 'n':
			if ((rc = tool_arg_count(PROG, "-n", optarg, 1, 1024, &v)))
				return rc;
			cli->buf_count = (unsigned)v;
			break;
		case OPT_ROTATE:
			if (br_parse_duration_ns(optarg, &v) == 0 && v >= 1000000000ull / 10)
				cli->rotate_ns = v;
			else if (br_parse_size(optarg, &v) == 0 && v >= 64 * 1024)
				cli->rotate_bytes = v;
			else
				return tool_usage(PROG, "--rotate: '%s' is not a time of at least 100ms (10m, 1h) "
						  "or a size of at least 64K (1G, 200M)", optarg);
			break;
		case OPT_KEEP:
			if ((rc = tool_arg_count(PROG, "--keep", optarg, 1, 1000000, &v)))
				return rc;
			cli->keep = (unsigned)v;
			break;
		case OPT_KEEP_SIZE:
			if (br_parse_size(optarg, &cli->keep_bytes) || cli->keep_bytes == 0)
				return tool_usage(PROG, "--keep-size: '%s' is not a size (20G, 500M)", optarg);
			break;
		case OPT_MAX_DISK:
			if (br_parse_size(optarg, &cli->max_disk) || cli->max_disk < 1024 * 1024)
				return tool_usage(PROG, "--max-disk: '%s' is not a size of at least 1M (20G, 500M)", optarg);
			break;
		case OPT_RESERVE: {
			char *end;
			double pct = strtod(optarg, &end);
			if (end == optarg || (*end && strcmp(end, "%")) || !(pct >= 0 && pct < 100))
				return tool_usage(PROG, "--reserve: '%s' is not a percentage from 0 to 99", optarg);
			cli->reserve = pct / 100;
			break;
		}
		case OPT_ON_FULL:
			if (strcmp(optarg, "stop") && strcmp(optarg, "drop"))
				return tool_usage(PROG, "--on-full: '%s' is neither stop nor drop", optarg);
			cli->on_full_drop = strcmp(optarg, "drop") == 0;
			break;
		case OPT_FLIGHT:
			if (br_parse_duration_ns(optarg, &v) || v < 1000000000ull)
				return tool_usage(PROG, "--flight: '%s' is not a time of at least 1s (30s, 5m)", optarg);
			cli->flight_ns = v;
			break;
		case OPT_FLIGHT_AFTER:
			if (br_parse_duration_ns(optarg, &v))
				return tool_usage(PROG, "--flight-after: '%s' is not a time (5s, 500ms, 0)", optarg);
			cli->flight_after_ns = v;
			after_given = true;
			break;
		case OPT_TRIGGER_ON:
			if (cli->nrules == CAP_MAX_RULES)
				return tool_usage(PROG, "too many --trigger-on rules (at most %s)", "8");
			if (watch_rule_parse(optarg, &cli->rules[cli->nrules]))
				return tool_usage(PROG, "--trigger-on: '%s' is not a rule (d2c>50ms, q2c>1s, inflight>128, "
						  "idle>2s)", optarg);
			cli->nrules++;
			break;
		case OPT_TRIGGER: cli->trigger = true; break;
		case OPT_STATUS_FILE: cli->status_file = optarg; break;
		case OPT_BACKEND: cli->backend = optarg; break;
		case OPT_LIST: cli->list_backends = true; break;
		case OPT_ALLOW_DROPS: cli->allow_drops = true; break;
		case OPT_CLEANUP: cli->cleanup = true; break;
		case 'l':
			if (br_parse_uint(optarg, 1, 9, &v))
				return tool_usage(PROG, "--level: '%s' is not a level from 1 to 9", optarg);
			cli->write.level = (int)v;
			break;
		case 'j':
			if ((rc = tool_arg_count(PROG, "--threads", optarg, 1, 256, &v)))
				return rc;
			cli->write.threads = (unsigned)v;
			break;
		case 'q': cli->quiet = true; cli->progress = false; break;
		case OPT_NO_PROGRESS: cli->progress = false; break;
		}
	}
	if (c == TOOL_ARGS_STOP)
		return args.exit;
	if (optind < argc)
		cli->command = &argv[optind];
	if (cli->list_backends || cli->cleanup || cli->trigger) {
		*run = true;
		return TOOL_EXIT_OK;
	}
	if (cli->ndevices == 0)
		return tool_usage(PROG, "%s", "no device given (-d DEVICE)");
	if (cli->end_lba && cli->end_lba < cli->start_lba)
		return tool_usage(PROG, "%s", "--end-lba is before --start-lba");
	if (cli->output && strcmp(cli->output, "-") == 0 && cli->split)
		return tool_usage(PROG, "%s", "--split needs a file name, not -o -");
	if (cli->output && strcmp(cli->output, "-") == 0 && cli->dir)
		return tool_usage(PROG, "%s", "-D makes no sense with -o -");
	bool rotating = cli->rotate_ns || cli->rotate_bytes;
	if (rotating && cli->output && strcmp(cli->output, "-") == 0)
		return tool_usage(PROG, "%s", "--rotate writes files: it needs a name, not -o -");
	if (rotating && cli->split)
		return tool_usage(PROG, "%s", "--rotate and --split do not go together (blkparse reads the rotated "
				  "files as they are: zcat NAME.*.blktrace.gz | blkparse -i -)");
	if (!rotating && (cli->keep || cli->keep_bytes))
		return tool_usage(PROG, "%s", "--keep and --keep-size need --rotate");
	if (cli->output && strcmp(cli->output, "-") == 0 && (cli->max_disk || cli->on_full_drop))
		return tool_usage(PROG, "%s", "--max-disk and --on-full are for files, not -o -");
	if (!cli->flight_ns && (cli->nrules || after_given))
		return tool_usage(PROG, "%s", "--trigger-on and --flight-after need --flight");
	if (cli->flight_ns && rotating)
		return tool_usage(PROG, "%s", "--flight and --rotate do not go together (a flight capture writes a file "
				  "per trigger)");
	if (cli->flight_ns && cli->output && strcmp(cli->output, "-") == 0)
		return tool_usage(PROG, "%s", "--flight writes files: it needs a name, not -o -");
	if (cli->flight_ns && cli->split)
		return tool_usage(PROG, "%s", "--flight and --split do not go together");
	*run = true;
	return TOOL_EXIT_OK;
}
