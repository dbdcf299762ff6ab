#include "backend.h"
static int perf_probe(br_error *err) { return br_error_set(err, BR_EUNSUP, 0, NULL, -1, "not yet"); }
static int perf_start(void *st, const cap_config *cfg, cap_kstate *ks, br_error *err) { (void)st; (void)cfg; (void)ks; return perf_probe(err); }
static int perf_fds(void *st, struct pollfd *pfd, int max) { (void)st; (void)pfd; (void)max; return 0; }
static int perf_read(void *st, cap_sink *s, br_error *err) { (void)st; (void)s; (void)err; return 0; }
static int perf_stop(void *st, br_error *err) { (void)st; (void)err; return 0; }
static void perf_drops(void *st, uint64_t *d, unsigned n) { (void)st; (void)d; (void)n; }
static int perf_close(void *st, cap_kstate *ks, br_error *err) { (void)st; (void)ks; (void)err; return 0; }
const cap_backend_ops cap_backend_perf = { .name = "perf", .summary = "stub", .state_size = 8,
	.probe = perf_probe, .start = perf_start, .fds = perf_fds, .read = perf_read, .stop = perf_stop, .drops = perf_drops, .close = perf_close };
