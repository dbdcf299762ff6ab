/* backend_bpf_btf.h — the block tracepoints' prototypes, read from the
 * kernel's BTF at load time (their arguments changed between kernels: the
 * request_queue went first until 5.11, block_bio_complete gained one). */
#ifndef BLKREEL_CAPTURE_BACKEND_BPF_BTF_H
#define BLKREEL_CAPTURE_BACKEND_BPF_BTF_H

#include <bpf/btf.h>
#include <stdbool.h>

#include "blkreel/error.h"

#define BPF_BTF_DEFAULT "/sys/kernel/btf/vmlinux"

/* Where the kernel's BTF is: $BLKREEL_BTF (for tests and odd machines), or
 * the default. */
const char *bpf_btf_path(void);

/* Positions of a tracepoint's arguments (counted without the leading
 * void *): the first pointer to struct `want` (bio, request, request_queue),
 * then the scalars that follow the last struct pointer. */
typedef struct bpf_tp_args {
	bool present;   /* the kernel has this tracepoint */
	int main, x1, x2; /* -1 when absent */
	int nargs;
} bpf_tp_args;

/* Fill a for tracepoint tp; a->present false when this kernel lacks it.
 * Fails only on a prototype we cannot read (a reason in err). */
int bpf_btf_tp_args(const struct btf *btf, const char *tp, const char *want, bpf_tp_args *a, br_error *err);

#endif
