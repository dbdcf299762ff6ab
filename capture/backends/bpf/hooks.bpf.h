/* hooks.bpf.h — the kernel side of blkreel-capture's test and bench hooks
 * (capture/hooks.h): the bench's floors (programs that return at once or
 * only read the clock, programs that write no record, the map work pairing
 * in the kernel would add) and the tests' damage (events forced down the
 * interrupted-append path, completions left out).
 *
 * Only the test and bench object (clang -DBLKREEL_TEST_HOOKS, GNUmakefile)
 * has them as read-only data set from user space and the maps they use
 * (clock_slot, pair_probe). The object the release tools ship has neither:
 * the knobs the record path tests are constants 0 there (the compiler drops
 * their branches), and the floors' and pairing cost's calls are not built. */
#ifndef BLKREEL_HOOKS_BPF_H
#define BLKREEL_HOOKS_BPF_H

#ifdef BLKREEL_TEST_HOOKS

const volatile __u32 hook_empty = 0;        /* the floors: BCR_EMPTY_* */
const volatile bool hook_noring = false;    /* everything but the ring record */
const volatile bool hook_pair_cost = false; /* the map work pairing in the kernel would add */
const volatile __u32 hook_direct_every = 0; /* every Nth event takes the interrupted-append path */
const volatile __u32 hook_skip_c_every = 0; /* every Nth completion on a CPU left out, as if the kernel had not run us */

/* The clock floor's one store per event (a per-CPU slot, as the real
 * programs' control block lookup); the tests read it to see the clock was
 * read. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} clock_slot SEC(".maps");

/* A floor program's whole work: nothing, or the one clock read. */
static __always_inline int floor_only(void)
{
	if (hook_empty == BCR_EMPTY_CLOCK) {
		__u32 zero = 0;
		__u64 *slot = bpf_map_lookup_elem(&clock_slot, &zero);
		if (slot)
			*slot = bpf_ktime_get_ns();
	}
	return 0;
}

/* What pairing in the kernel would cost at least: an entry per IO made at
 * Q, found at G, D and C (a request's first bio is its key: block_getrq
 * has no request), removed at C. On top of the records. */
struct pair_times {
	__u64 t[6];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __u64);
	__type(value, struct pair_times);
} pair_probe SEC(".maps");

static __always_inline void pair_touch(__u64 key, __u8 kind)
{
	if (kind == BCR_QUEUE) {
		struct pair_times v = {};
		v.t[0] = key;
		bpf_map_update_elem(&pair_probe, &key, &v, BPF_ANY);
		return;
	}
	struct pair_times *v = bpf_map_lookup_elem(&pair_probe, &key);
	if (!v)
		return;
	v->t[kind == BCR_GETRQ ? 1 : kind == BCR_ISSUE ? 2 : 3] = key;
	if (kind == BCR_COMPLETE)
		bpf_map_delete_elem(&pair_probe, &key);
}

#else /* the release object */

/* the knobs the record path reads in line (the floors' and the pairing
 * cost's calls are inside #ifdef BLKREEL_TEST_HOOKS in capture.bpf.c) */
#define hook_noring false
#define hook_direct_every 0u
#define hook_skip_c_every 0u

#endif
#endif
