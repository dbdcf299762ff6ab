/* capture_cli.h — blkreel-capture's command line. */
#ifndef BLKREEL_CAPTURE_CLI_H
#define BLKREEL_CAPTURE_CLI_H

#include <stdbool.h>
#include <stdint.h>

#include "blkreel/writer.h"
#include "capture_config.h"
#include "flight/watch.h"
#include "tool/exit.h"

#define CAP_MAX_RULES 8

typedef struct capture_cli {
	const char *devices[CAP_MAX_DEVICES];
	unsigned ndevices;
	const char *output;       /* -o NAME (NAME.blktrace.gz) or "-" */
	const char *dir;          /* -D DIR */
	bool split;               /* --split: also NAME.blktrace.<cpu> */
	uint64_t stop_after_ns;   /* -w; 0 = until the command ends or a signal */
	uint16_t act_mask;        /* -a; 0xffff = all */
	uint32_t pid;             /* --pid */
	uint64_t start_lba, end_lba;
	uint64_t buf_size;        /* -b (bytes) */
	unsigned buf_count;       /* -n */
	const char *backend;      /* --backend; NULL = choose */
	bool list_backends, cleanup, allow_drops, quiet, progress;
	uint64_t rotate_ns;       /* --rotate TIME: a new file every TIME of trace; 0 = none */
	uint64_t rotate_bytes;    /* --rotate SIZE: a new file at about SIZE compressed; 0 = none */
	unsigned keep;            /* --keep N: the newest N files of a rotated set; 0 = all */
	uint64_t keep_bytes;      /* --keep-size SIZE; 0 = no limit */
	uint64_t max_disk;        /* --max-disk SIZE: what the capture may have on disk; 0 = no limit */
	double reserve;           /* --reserve PCT: free space left on the output's filesystem (fraction) */
	bool on_full_drop;        /* --on-full drop: go on tracing, count what is not written */
	uint64_t flight_ns;       /* --flight TIME: keep the last TIME, write it when triggered; 0 = off */
	uint64_t flight_after_ns; /* --flight-after TIME */
	watch_rule rules[CAP_MAX_RULES]; /* --trigger-on */
	unsigned nrules;
	bool trigger;             /* --trigger: signal running flight captures, then exit */
	const char *status_file;  /* --status-file PATH */
	br_writer_opts write;
	char **command;           /* after --; NULL when none */
	const struct cap_hooks *hooks; /* not an option: main's, in test and bench builds (hooks.h) */
} capture_cli;

/* Fills cli and sets *run when the tool is to run; otherwise what main
 * returns now (0 after --help/--version, a usage error said on stderr). */
tool_exit capture_cli_read(int argc, char **argv, capture_cli *cli, bool *run);

/* "queue,issue,complete" → BLK_TC_* bits; 0 and a message on error. */
int capture_parse_mask(const char *text, uint16_t *mask);

#endif
