/* backend.h — the contract between the capture core and a kernel interface.
 *
 * A backend turns one kernel tracing interface into br_events pushed into a
 * cap_sink, one per-CPU stream each (records of one stream must arrive in
 * time order). The core does everything else: filtering, sequence numbers,
 * process names, merging the streams by time, writing, status and drops.
 *
 * Hooks are called in this order: probe (any time), start, then any number
 * of fds/read, then stop, read until it returns 0 (drain), drops, close.
 * close is always called after a start that returned 0 and must undo every
 * kernel change start made (it is also what runs on signals and errors).
 *
 * capture/backends/ owns the kernel tracing interfaces: this contract, the
 * list in the order tried (backends.c), one file per backend (relay, bpf
 * with backend_bpf_btf.c and backend_bpf_devs.c, perf, tracefs), the BPF
 * programs (bpf/, built into the skeleton backend_bpf.c includes) and the
 * decoders of what the kernel hands back (bpf_decode.c, ftrace_page.c,
 * tp_format.c, rwbs.c). A backend may call: the sink it was given and the
 * process-name lookups (spool/sink.h, spool/names.h; the bpf backend hands
 * its ring records to the sink raw, in spool/raw_spool.h's frames); the
 * kernel-state journal and the tracefs helpers (kstate/), writing down each
 * kernel change before making it; the device helpers (devices.h,
 * dev_completions.h, tool/sysfs.h) and tool/clock.h; hooks.h, whose hooks
 * exist only in the hooks build. It opens no output file and writes no
 * record itself: that is spool/'s. It is called by capture_core.c (probe,
 * start, read, stop, drops, close), cleanup.c (salvage, after a kill -9)
 * and list_backends.c (probe); spool/raw_convert.c reuses bpf_decode.c
 * after tracing. */
#ifndef BLKREEL_CAPTURE_BACKEND_H
#define BLKREEL_CAPTURE_BACKEND_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkreel/error.h"
#include "blkreel/event.h"
#include "capture_config.h"
#include "dev_completions.h"
#include "kstate/kstate.h"
#include "spool/sink.h"

enum cap_backend_flags {
	CAP_GLOBAL_TRACER = 1 << 0, /* uses machine-wide state: take the tracer lock */
	CAP_HAS_SEQUENCE = 1 << 1,  /* records come with sequence numbers */
	CAP_HAS_NAMES = 1 << 2,     /* the kernel emits process-name records itself */
	CAP_KERNEL_FILTER = 1 << 3, /* action mask / pid / LBA range applied in the kernel */
};

typedef struct cap_backend_ops {
	const char *name;
	const char *summary;  /* one line for --list-backends */
	unsigned flags;
	size_t state_size;    /* zeroed bytes the core allocates for the hooks */

	/* Can it work here? 0 if it can, else a negative br_code with why in err
	 * (a best guess without touching the kernel state: the real test is start). */
	int (*probe)(br_error *err);
	/* Set up and start tracing every device of cfg. Kernel changes go through
	 * ks first (so a kill -9 leaves a record of them). On failure everything
	 * done so far is undone before returning. */
	int (*start)(void *st, const cap_config *cfg, cap_kstate *ks, br_error *err);
	/* Descriptors worth polling for input (POLLIN); returns how many were filled. */
	int (*fds)(void *st, struct pollfd *pfd, int max);
	/* Push whatever is ready without blocking. Returns records pushed (0 = none
	 * ready) or a negative br_code. */
	int (*read)(void *st, cap_sink *sink, br_error *err);
	/* Stop the kernel producing; what is buffered stays readable. */
	int (*stop)(void *st, br_error *err);
	/* Lost records per CPU (drops[0..ncpu-1] are added to). */
	void (*drops)(void *st, uint64_t *drops, unsigned ncpu);
	/* Optional: records the kernel handed over that did not parse (an
	 * unknown kind or device, damaged framing) and were left out. Lost
	 * events like drops: stored in the drops record and failing the run. */
	uint64_t (*bad_records)(void *st);
	/* Optional, read after stop: events the kernel did not run our program
	 * for (BPF's recursion guard skips a program already running on that
	 * CPU, e.g. a completion inside a completion through an interrupt's
	 * softirq, and counts it only in the program's recursion_misses). Said
	 * in the drops record (missed=N) and the summary, not counted as lost:
	 * the skipped run may have been for a device we do not trace. */
	uint64_t (*missed)(void *st);
	/* Optional: the completion check (dev_completions.h) while the backend
	 * keeps one, else NULL. Its C records are counted as each read round
	 * reads them, held back or not. After the drain: completions the traced
	 * devices counted while tracing (their sysfs stat) that no C record
	 * shows, lost events nothing else counted (the kernel did not run our
	 * program); beyond the dropped and bad records (which may have been C
	 * records), in the drops record (unrecorded=N) and lost like drops.
	 * While tracing the core counts the devices before a read round and
	 * checks the records read by its end (unrecorded_notes.h): a backend
	 * whose round left records of the kernel's unread sets check->behind. */
	const cap_dev_check *(*completions)(void *st);
	/* Process name for pid the backend knows (e.g. tracer's saved command
	 * lines); may be NULL. Writes a NUL-terminated name, returns true if known. */
	bool (*comm)(void *st, uint32_t pid, char *name, size_t size);
	/* Release everything and restore the kernel state start changed. */
	int (*close)(void *st, cap_kstate *ks, br_error *err);
	/* Optional, for --cleanup after a kill -9: stop the kernel producing for
	 * a dead capture of cfg and push what its buffers still hold (the
	 * tracer's ring outlives the process; perf's rings do not, so perf has
	 * none). The kernel state itself is restored by the caller afterwards. */
	int (*salvage)(const cap_config *cfg, cap_sink *sink, br_error *err);
	/* Optional, after start: can the backend hand its records raw to a
	 * spool (raw_spool.h) instead of pushing events while tracing? Writes
	 * the raw spool's header into buf and returns its length; 0 when not
	 * (then read pushes events as usual). With a raw sink, read hands its
	 * records to cap_sink_raw_frame. */
	size_t (*raw_header)(void *st, void *buf, size_t size);
} cap_backend_ops;

/* The backends in order of preference (relay, then the measured default). */
extern const cap_backend_ops *const cap_backends[];
extern const size_t cap_nbackends;

const cap_backend_ops *cap_backend_find(const char *name);
/* Check a table has every required hook (the core never calls a NULL one). */
bool cap_backend_valid(const cap_backend_ops *ops);

#endif
