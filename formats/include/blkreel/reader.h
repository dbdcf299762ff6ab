/* blkreel/reader.h — read any trace blkreel understands, in time order.
 *
 * One reader merges any number of inputs (files, per-CPU sets, standard
 * input) into a single time-ordered event stream. The kind of each input is
 * detected from its content, not its name:
 *   - a blk_io_trace stream in either byte order (a blktrace per-CPU file,
 *     a `blkparse -d` dump, a trace_pipe capture, standard input);
 *   - a per-CPU set NAME.blktrace.0..N, named as NAME or as any member
 *     NAME.blktrace.K (the files are merged by time, like blkparse does);
 *   - a rotated set NAME.00001.blktrace.gz, NAME.00002.blktrace.gz, ...
 *     (blkreel-capture --rotate: compressed files holding consecutive
 *     slices of one trace), named as NAME or NAME.blktrace.gz when no file
 *     of that name exists and NAME has no per-CPU set; read as one trace,
 *     one file after the other. Gaps in the numbering are allowed (--keep
 *     deletes the oldest); the file being written (.blktrace.spool,
 *     .blktrace.gz.part) is never read. A member named by its own path is
 *     read alone;
 *   - a glob pattern given as one path ('NAME.*.blktrace.gz', quoted so the
 *     shell leaves it alone), when no file has that exact name: its
 *     matches, sorted by name, are one input. Matches that are all members
 *     of one rotated set are read as that set; any other matches are
 *     opened each as above and merged by time;
 *   - the compressed trace file NAME.blktrace.gz (docs/compressed-format.md),
 *     inflated on several threads, seekable by time through its member
 *     headers; also any plain gzip of a blk_io_trace stream.
 * Events are handed out without per-event allocation: the br_event filled by
 * br_reader_next() points into reader-owned buffers valid until the next
 * call. Notify records (process names, messages, timestamps) are returned
 * too, so writers can pass them on; br_event_is_notify() tells them apart. */
#ifndef BLKREEL_READER_H
#define BLKREEL_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "blkreel/error.h"
#include "blkreel/event.h"

typedef struct br_reader br_reader;

/* Most devices one reader can be asked to keep (br_reader_opts.devices). */
#define BR_READER_MAX_DEVICES 16

typedef struct br_reader_opts {
	unsigned threads;   /* inflate threads for compressed inputs; 0 = online CPUs */
	bool salvage;       /* compressed input: report a damaged member and go on past it */
	bool has_from;      /* window start, ns after the trace's first event */
	uint64_t from_ns;
	bool has_to;        /* window end (inclusive), ns after the trace's first event */
	uint64_t to_ns;
	const char *format; /* force an input kind by name (see br_input_format_names); NULL = detect */
	bool skip_bad;      /* text formats: skip malformed lines (counted) instead of failing */
	/* ndevices > 0: hand out only the records that belong to one of
	 * devices[0..ndevices) by br_event_on_device (process names of every
	 * device, other notes of these). The trace then starts at their first
	 * event (the window and relative times count from there), as it does
	 * in the file that keeps only them. */
	unsigned ndevices;
	uint32_t devices[BR_READER_MAX_DEVICES]; /* BR_MKDEV encoding */
} br_reader_opts;

enum br_input_kind {
	BR_INPUT_STREAM = 1,     /* one blk_io_trace stream (file, dump, pipe) */
	BR_INPUT_CPUSET,         /* NAME.blktrace.0..N */
	BR_INPUT_COMPRESSED,     /* our gzip-member file (or a plain gzip stream) */
	BR_INPUT_FOREIGN,        /* another tool's trace format, converted on the fly */
	BR_INPUT_ROTATED,        /* NAME.NNNNN.blktrace.gz, read one after the other */
	BR_INPUT_PATTERN,        /* the files a glob pattern matched, merged by time */
};

/* A stretch of a compressed input that could not be read. */
typedef struct br_damage {
	int64_t offset;          /* byte offset of the damaged member in the file */
	int64_t length;          /* bytes skipped */
	bool range_known;        /* the member header survived: times/records below are exact */
	uint64_t first_time;     /* absolute trace-clock ns (when range_known) */
	uint64_t last_time;
	uint64_t records;        /* records lost (when range_known) */
	const char *file;        /* the file offset is in, when not the input's path
				  * (a rotated set's member, a pattern's match); else NULL */
} br_damage;

/* Member numbers first..last of a rotated set (both included). */
typedef struct br_number_range {
	uint64_t first, last;
} br_number_range;

typedef struct br_input_info {
	const char *path;        /* as given ("-" for standard input) */
	enum br_input_kind kind;
	unsigned files;          /* per-CPU set: how many files; rotated set and
				  * pattern: how many files it names */
	bool byteswapped;        /* written on a machine of the other endianness */
	bool indexed;            /* compressed with blkreel member headers */
	uint64_t members;        /* compressed: gzip members seen (or in the index) */
	uint64_t members_skipped;/* compressed: members skipped by the time window without inflating */
	uint64_t compressed_bytes;
	uint64_t raw_bytes;      /* blk_io_trace bytes read */
	size_t ndamage;
	const br_damage *damage; /* salvage: what was lost */
	const char *format_name; /* e.g. "blk_io_trace stream", "fio iolog v3" */
	const char *note;        /* how a foreign format was mapped (e.g. one event per IO), or NULL */
	uint64_t bad_records_skipped; /* with skip_bad */
	/* BR_INPUT_ROTATED: which members the set has. set_name is NAME with
	 * its directory as the members spell it (path up to ".NNNNN.blktrace.gz");
	 * set_first and set_last are the numbers of the first and last member
	 * read, set_digits how many digits their names have; set_gaps lists
	 * the numbers in between that have no file. */
	const char *set_name;
	uint64_t set_first, set_last;
	unsigned set_digits;
	size_t nset_gaps;
	const br_number_range *set_gaps;
} br_input_info;

/* Names accepted by br_reader_opts.format, NULL-terminated. */
extern const char *const br_input_format_names[];

/* True when name is one of br_input_format_names. */
bool br_input_format_known(const char *name);

/* Open one or more inputs. paths[i] may be "-" for standard input (at most
 * once). opts may be NULL for defaults. */
int br_reader_open(br_reader **out, const char *const *paths, size_t npaths,
		   const br_reader_opts *opts, br_error *err);

/* Next event in time order: returns 1 with *ev filled, 0 at the end, or a
 * negative br_code with err naming the file and byte offset. After an
 * error the reader is finished (further calls return the same code). */
int br_reader_next(br_reader *r, br_event *ev, br_error *err);

/* Absolute time of the trace's first event (the origin of the window and of
 * blkparse's relative timestamps); valid after open. 0 for an empty trace. */
uint64_t br_reader_start_time(const br_reader *r);

size_t br_reader_ninputs(const br_reader *r);
const br_input_info *br_reader_input(const br_reader *r, size_t i);

/* With br_reader_opts.devices: how many IO events (not notify records) of
 * devices[i] were handed out so far (a remap between two of them counts
 * for both). 0 when i is not below ndevices. */
uint64_t br_reader_device_events(const br_reader *r, size_t i);

/* The process name recorded for pid, or NULL. */
const char *br_reader_comm(const br_reader *r, uint32_t pid);

/* Frees everything; NULL is fine. */
void br_reader_close(br_reader *r);

#endif
