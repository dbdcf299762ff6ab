/* hooks.c — the test and bench hooks from the environment (hooks.h). The
 * whole file is empty unless the build defines BLKREEL_TEST_HOOKS: the
 * release tools must not hold these names. */
#ifdef BLKREEL_TEST_HOOKS
#include "hooks.h"

#include <stdlib.h>
#include <string.h>

#include "backends/bpf/capture_record.h"

static bool env_is(const char *name, const char *value)
{
	const char *v = getenv(name);
	return v && strcmp(v, value) == 0;
}

static uint64_t env_count(const char *name)
{
	const char *v = getenv(name);
	return v ? strtoull(v, NULL, 10) : 0;
}

void cap_hooks_read(cap_hooks *h)
{
	*h = (cap_hooks){
		.raw_tp = env_is("BLKREEL_BPF_ATTACH", "raw_tp"),
		.shared_ring = env_is("BLKREEL_BPF_RING", "shared"),
		.wakeup = env_is("BLKREEL_BPF_WAKEUP", "1"),
		.no_stage = env_is("BLKREEL_BPF_STAGE", "0"),
		.no_names = env_is("BLKREEL_BPF_NAMES", "0"),
		.spool_events = env_is("BLKREEL_BPF_SPOOL", "events"),
		.empty = env_is("BLKREEL_BPF_EMPTY", "1")       ? BCR_EMPTY_RETURN
			 : env_is("BLKREEL_BPF_EMPTY", "clock") ? BCR_EMPTY_CLOCK
								 : 0,
		.noring = env_is("BLKREEL_BPF_NORING", "1"),
		.pair_cost = env_is("BLKREEL_BPF_PAIRCOST", "1"),
		.user = env_is("BLKREEL_BPF_USER", "discard")  ? CAP_USER_DISCARD
			: env_is("BLKREEL_BPF_USER", "decode") ? CAP_USER_DECODE
			: env_is("BLKREEL_BPF_USER", "walk")   ? CAP_USER_WALK
			: env_is("BLKREEL_BPF_USER", "nowalk") ? CAP_USER_NOWALK
								: CAP_USER_SINK,
		.direct_every = (unsigned)env_count("BLKREEL_BPF_DIRECT_EVERY"),
		.skip_c_every = (unsigned)env_count("BLKREEL_BPF_SKIP_C_EVERY"),
		.spoil_every = (unsigned)env_count("BLKREEL_BPF_SPOIL_EVERY"),
		.missed_add = env_count("BLKREEL_BPF_MISSED_ADD"),
		.no_merge = env_is("BLKREEL_CAPTURE_NOMERGE", "1"),
		.no_sync = env_is("BLKREEL_SPOOL_SYNC", "0"),
	};
}
#endif
