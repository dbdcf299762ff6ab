/* backend_bpf_btf.c — tracepoint prototypes from the btf_trace_<name>
 * typedefs the kernel's BTF carries for every tracepoint. */
#include "backends/backend_bpf_btf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bpf_btf_path(void)
{
	const char *p = getenv("BLKREEL_BTF");
	return p && *p ? p : BPF_BTF_DEFAULT;
}

/* The struct a parameter points to, or NULL (modifiers and typedefs skipped). */
static const char *pointee_struct(const struct btf *btf, __u32 type_id)
{
	int rid = btf__resolve_type(btf, type_id);
	const struct btf_type *t = rid < 0 ? NULL : btf__type_by_id(btf, (__u32)rid);
	if (!t || !btf_is_ptr(t))
		return NULL;
	int id = btf__resolve_type(btf, t->type);
	if (id < 0)
		return NULL;
	const struct btf_type *s = btf__type_by_id(btf, (__u32)id);
	if (!s || !btf_is_struct(s))
		return NULL;
	return btf__name_by_offset(btf, s->name_off);
}

int bpf_btf_tp_args(const struct btf *btf, const char *tp, const char *want, bpf_tp_args *a, br_error *err)
{
	memset(a, 0, sizeof *a);
	a->main = a->x1 = a->x2 = -1;
	char name[128];
	snprintf(name, sizeof name, "btf_trace_%s", tp);
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return 0;
	const struct btf_type *t = btf__type_by_id(btf, (__u32)id);
	t = t ? btf__type_by_id(btf, t->type) : NULL;
	if (t && btf_is_ptr(t))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t))
		return br_error_set(err, BR_EUNSUP, 0, bpf_btf_path(), -1, "%s is not a function prototype", name);
	const struct btf_param *p = btf_params(t);
	int n = btf_vlen(t);
	/* parameter 0 is the tracepoint's void *data */
	int last_ptr = -1;
	for (int i = 1; i < n; i++) {
		const char *s = pointee_struct(btf, p[i].type);
		if (!s)
			continue;
		if (a->main < 0 && strcmp(s, want) == 0)
			a->main = i - 1;
		last_ptr = i - 1;
	}
	a->nargs = n - 1;
	if (a->main < 0)
		return br_error_set(err, BR_EUNSUP, 0, bpf_btf_path(), -1, "%s has no struct %s * argument", name, want);
	if (last_ptr + 1 < a->nargs)
		a->x1 = last_ptr + 1;
	if (last_ptr + 2 < a->nargs)
		a->x2 = last_ptr + 2;
	if (a->nargs > 5)
		return br_error_set(err, BR_EUNSUP, 0, bpf_btf_path(), -1, "%s has %d arguments (at most 5 expected)",
				    name, a->nargs);
	a->present = true;
	return 0;
}
