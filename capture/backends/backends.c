/* backends.c — the list of capture backends, in the order automatic choice
 * tries them: relay (the classic interface, complete records) where the
 * kernel allows it; then perf, measured cheaper than tracefs here and free
 * of machine-wide state (capture/README.md has the numbers); tracefs last. */
#include <string.h>

#include "backends/backend.h"

extern const cap_backend_ops cap_backend_relay;
extern const cap_backend_ops cap_backend_bpf;
extern const cap_backend_ops cap_backend_perf;
extern const cap_backend_ops cap_backend_tracefs;

const cap_backend_ops *const cap_backends[] = {
	&cap_backend_relay,
	&cap_backend_bpf,
	&cap_backend_perf,
	&cap_backend_tracefs,
};
const size_t cap_nbackends = sizeof cap_backends / sizeof cap_backends[0];

const cap_backend_ops *cap_backend_find(const char *name)
{
	for (size_t i = 0; i < cap_nbackends; i++)
		if (strcmp(cap_backends[i]->name, name) == 0)
			return cap_backends[i];
	return NULL;
}

bool cap_backend_valid(const cap_backend_ops *ops)
{
	return ops->name && ops->probe && ops->start && ops->fds && ops->read && ops->stop &&
	       ops->drops && ops->close;
}
