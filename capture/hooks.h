/* hooks.h — blkreel-capture's test and bench hooks: environment variables
 * that make a capture come out empty, damaged, out of order or slower on
 * purpose, so that the tests can reach the loss paths (bad records, skipped
 * runs, unrecorded completions, interrupted appends) and the bench can split
 * the cost between the kernel, the rings and user space.
 *
 * They exist only in builds compiled with -DBLKREEL_TEST_HOOKS: the test and
 * bench binary build/VARIANT/hooks/blkreel-capture (GNUmakefile, `make
 * hooks`). The release tools in bin/ have none of this code, read none of
 * these variables and ship a BPF object without the floors' maps; the only
 * variables they read are BLKREEL_BTF and BLKREEL_BPF_DEBUG (the man page).
 *
 * The environment is read once, in main, into one cap_hooks that goes down
 * through capture_cli and cap_config (their hooks pointer, NULL in release);
 * nothing reads the environment for a hook anywhere else. */
#ifndef BLKREEL_CAPTURE_HOOKS_H
#define BLKREEL_CAPTURE_HOOKS_H

#include <stdbool.h>
#include <stdint.h>

/* Every hook variable, for tests/capture/test_release_hooks.c (the release
 * binary must hold none of these names). A macro list emits nothing into
 * a binary that does not use it. */
#define CAP_HOOK_VARIABLES(X)                                                                                  \
	X(BLKREEL_BPF_ATTACH)                                                                                  \
	X(BLKREEL_BPF_RING)                                                                                    \
	X(BLKREEL_BPF_WAKEUP)                                                                                  \
	X(BLKREEL_BPF_STAGE)                                                                                   \
	X(BLKREEL_BPF_NAMES)                                                                                   \
	X(BLKREEL_BPF_SPOOL)                                                                                   \
	X(BLKREEL_BPF_EMPTY)                                                                                   \
	X(BLKREEL_BPF_NORING)                                                                                  \
	X(BLKREEL_BPF_PAIRCOST)                                                                                \
	X(BLKREEL_BPF_DIRECT_EVERY)                                                                            \
	X(BLKREEL_BPF_SKIP_C_EVERY)                                                                            \
	X(BLKREEL_BPF_SPOIL_EVERY)                                                                             \
	X(BLKREEL_BPF_MISSED_ADD)                                                                              \
	X(BLKREEL_BPF_USER)                                                                                    \
	X(BLKREEL_CAPTURE_NOMERGE)                                                                             \
	X(BLKREEL_SPOOL_SYNC)

#ifdef BLKREEL_TEST_HOOKS

/* BLKREEL_BPF_USER: where the bpf backend's records go in user space
 * instead of the sink: read from the rings and thrown away (discard),
 * decoded into events and thrown away (decode), walked as the raw spool
 * walks them and thrown away (walk), or spooled raw without the walk
 * (nowalk: no check, no names). */
enum cap_hook_user { CAP_USER_SINK, CAP_USER_DISCARD, CAP_USER_DECODE, CAP_USER_WALK, CAP_USER_NOWALK };

typedef struct cap_hooks {
	/* the bpf backend: modes kept for comparison */
	bool raw_tp;            /* BLKREEL_BPF_ATTACH=raw_tp: the raw_tp programs from the start */
	bool shared_ring;       /* BLKREEL_BPF_RING=shared: one ring for every CPU */
	bool wakeup;            /* BLKREEL_BPF_WAKEUP=1: a wakeup per record, read on poll */
	bool no_stage;          /* BLKREEL_BPF_STAGE=0: one ring record per event */
	bool no_names;          /* BLKREEL_BPF_NAMES=0: no comm map */
	bool spool_events;      /* BLKREEL_BPF_SPOOL=events: the live path to a file too */
	/* the bench's floors (the kernel side: capture/backends/bpf/hooks.bpf.h) */
	unsigned empty;         /* BLKREEL_BPF_EMPTY=1|clock: BCR_EMPTY_RETURN|BCR_EMPTY_CLOCK, else 0 */
	bool noring;            /* BLKREEL_BPF_NORING=1: everything but the ring record */
	bool pair_cost;         /* BLKREEL_BPF_PAIRCOST=1: the map work pairing in the kernel would add */
	enum cap_hook_user user; /* BLKREEL_BPF_USER */
	/* damage, for the tests of the loss paths */
	unsigned direct_every;  /* BLKREEL_BPF_DIRECT_EVERY=N: every Nth event as if it interrupted an append */
	unsigned skip_c_every;  /* BLKREEL_BPF_SKIP_C_EVERY=N: every Nth completion on a CPU left out */
	unsigned spoil_every;   /* BLKREEL_BPF_SPOIL_EVERY=N: every Nth ring record gets a bad record */
	uint64_t missed_add;    /* BLKREEL_BPF_MISSED_ADD=N: N more runs the kernel skipped */
	/* the spool */
	bool no_merge;          /* BLKREEL_CAPTURE_NOMERGE=1: live events spooled as read, unordered */
	bool no_sync;           /* BLKREEL_SPOOL_SYNC=0: no fdatasync of the spool */
} cap_hooks;

/* The hooks the environment asks for; a variable that is unset or holds
 * another value leaves its hook off (the release behaviour). */
void cap_hooks_read(cap_hooks *h);

#endif /* BLKREEL_TEST_HOOKS */

#endif
