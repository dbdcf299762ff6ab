/* fmt_text.h (internal) — the shared machinery of the foreign text readers.
 *
 * Every text format (blkparse output, blkreplay .load, DiskSim ASCII, MSR
 * Cambridge CSV, FIU, fio iolog) is a fmt_format: a name, a note saying how
 * it maps to events, and a parse hook called once per line. The framework
 * (fmt_source.c) does the rest the same way for all of them:
 *   - reads lines fast from the br_input (plain or gzip), keeping the line
 *     number and byte offset for errors;
 *   - sorts the events a line produces through a min-heap on time, so a
 *     completion synthesised at issue + response time comes out in its
 *     place. Events leave the heap once more than FMT_WINDOW lines' own
 *     events are waiting, which sorts inputs that are out of order by up to
 *     that many lines; anything further back is an error ("not in time
 *     order"), as the reader's merge needs each source in time order;
 *   - a malformed line stops with an error naming line and byte offset, or
 *     with skip_bad is skipped and counted. */
#ifndef BLKREEL_FMT_TEXT_H
#define BLKREEL_FMT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "common/source.h"

#define FMT_WINDOW 4096     /* lines of reordering tolerated */
#define FMT_LINE_MAX 65536  /* longer lines are malformed */
#define FMT_PDU_MAX 32      /* remap payloads and process names fit */
#define FMT_COMM_MAX 16     /* the kernel's TASK_COMM_LEN */

enum { FMT_OK = 0, FMT_BAD = 1, FMT_END = 2 };

typedef struct fmt_source fmt_source;

/* What a parse hook works with. */
typedef struct fmt_ctx {
	fmt_source *src;
	uint64_t lineno;      /* 1-based */
	char msg[256];        /* why a line is bad (set with fmt_bad) */
	char note[256];       /* the hook may refine the format's note */
} fmt_ctx;

typedef struct fmt_format {
	const char *name;     /* e.g. "blkreplay load" */
	const char *note;     /* how it maps to events (br_input_info.note) */
	size_t state_size;    /* zeroed per-source state handed to the hooks */
	bool keeps_sequence;  /* the format has its own sequence numbers */
	/* Parse one line: line[len] is NUL, no newline or CR. Emit events with
	 * fmt_emit*, then return FMT_OK, FMT_BAD (via fmt_bad, emitting
	 * nothing), FMT_END (ignore the rest of the input), or a negative
	 * br_code for a hard failure. */
	int (*parse)(void *state, fmt_ctx *c, char *line, size_t len);
	void (*free_state)(void *state); /* optional */
} fmt_format;

/* Queue an event (pdu copied, at most FMT_PDU_MAX bytes). primary: the
 * line's own time (counts for the sort window); false for synthesised
 * completions. 0 or a negative br_code. */
int fmt_emit(fmt_ctx *c, const br_event *ev, bool primary);
/* A process-name notify record for pid at time, queued only when the name
 * differs from the last one given for pid (FIU, blkparse text). */
int fmt_emit_comm(fmt_ctx *c, uint64_t time, uint32_t pid, uint32_t device,
		  const char *name, size_t len);
/* Issue (D) at time and, when has_response, a completion (C) at time +
 * response: the mapping of every one-event-per-IO format. */
int fmt_emit_io(fmt_ctx *c, uint64_t time, uint32_t device, uint64_t sector, uint32_t bytes,
		uint32_t category, uint32_t pid, bool has_response, uint64_t response_ns);
/* Fill c->msg and return FMT_BAD. */
int fmt_bad(fmt_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Open a source reading `in` as format f (takes in on success). */
int fmt_source_open(br_source **out, br_input *in, const fmt_format *f,
		    const br_reader_opts *opts, br_error *err);

/* ---- content probes (on the first bytes of the text) ------------------ */

/* Split the probe window into up to max complete lines (a final partial
 * line counts only if the window holds no newline at all). Returns the
 * count; starts/lens are filled. */
size_t fmt_probe_lines(const uint8_t *data, size_t len, const char **starts, size_t *lens,
		       size_t max);
/* True when the bytes look like text (printable, tabs, newlines). */
bool fmt_looks_text(const uint8_t *data, size_t len);

/* blkparse's RWBS column ("WS", "FWFS", "RA", "D", "N") → BLK_TC_* bits
 * (unshifted). R and N set BLK_TC_READ like the kernel does for every
 * non-write; D sets DISCARD and WRITE. Letters that only older kernels and
 * blkparse versions printed map to the nearest bits and are reported in
 * *legacy (FMT_RWBS_* bits; legacy may be NULL): B, a barrier (2.6 kernels,
 * "WBS"), becomes FLUSH, the bit BLK_TC_BARRIER was renamed to; E, a secure
 * erase ("DE"), becomes DISCARD. False when it is not an RWBS. */
enum { FMT_RWBS_BARRIER = 1, FMT_RWBS_SECURE_ERASE = 2 };
bool fmt_rwbs_category(const char *tok, size_t len, uint32_t *category, unsigned *legacy);

/* The formats (fmt_<name>.c). */
extern const fmt_format fmt_blkparse, fmt_blkreplay, fmt_disksim, fmt_msr, fmt_fiu, fmt_fio;
bool fmt_blkparse_probe(const char *line, size_t len);
bool fmt_blkreplay_probe(const char *line, size_t len);
bool fmt_disksim_probe(const char *line, size_t len);
bool fmt_msr_probe(const char *line, size_t len);
bool fmt_fiu_probe(const char *line, size_t len);
bool fmt_fio_probe(const char *line, size_t len);

#endif
