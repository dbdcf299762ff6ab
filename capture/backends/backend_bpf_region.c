/* backend_bpf_region.c — reading the bpf backend's per-CPU event regions
 * (backend_bpf_region.h). */
#include "backends/backend_bpf_region.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define REGION_MAP_MAX ((uint64_t)2 << 30)

uint64_t bpf_region_bytes(uint64_t want, unsigned ncpu)
{
	uint64_t bytes = want < BCR_REGION_ELEM ? BCR_REGION_ELEM : want;
	while (bytes > BCR_REGION_ELEM && (uint64_t)ncpu * bytes > REGION_MAP_MAX)
		bytes /= 2;
	return bytes;
}

static size_t page_round(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	return (n + page - 1) / page * page;
}

int bpf_regions_map(bpf_regions *r, int ctl_fd, int data_fd, unsigned ncpu, unsigned elems, br_error *err)
{
	if (ncpu > sizeof r->heads / sizeof r->heads[0])
		return br_error_set(err, BR_EUNSUP, 0, NULL, -1, "more than %zu CPUs",
				    sizeof r->heads / sizeof r->heads[0]);
	r->ncpu = ncpu;
	r->elems = elems;
	r->mask = ((uint64_t)elems << BCR_REGION_SHIFT) - 1;
	r->ctl_bytes = page_round((size_t)ncpu * sizeof(struct bcr_ctl));
	r->data_bytes = page_round((size_t)ncpu * elems * sizeof(struct bcr_region_elem));
	void *ctl = mmap(NULL, r->ctl_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, ctl_fd, 0);
	if (ctl == MAP_FAILED)
		return br_error_set(err, BR_ESYS, errno, NULL, -1, "mapping the BPF control blocks");
	r->ctl = ctl;
	void *data = mmap(NULL, r->data_bytes, PROT_READ, MAP_SHARED, data_fd, 0);
	if (data == MAP_FAILED) {
		int e = errno;
		bpf_regions_unmap(r);
		return br_error_set(err, BR_ESYS, e, NULL, -1, "mapping the BPF event regions (%zu MiB)",
				    r->data_bytes >> 20);
	}
	r->data = data;
	return 0;
}

void bpf_regions_unmap(bpf_regions *r)
{
	if (r->ctl)
		munmap(r->ctl, r->ctl_bytes);
	if (r->data)
		munmap((void *)r->data, r->data_bytes);
	r->ctl = NULL;
	r->data = NULL;
}

void bpf_regions_snapshot(bpf_regions *r, uint8_t *flushed)
{
	for (unsigned c = 0; r->ctl && c < r->ncpu; c++) {
		/* busy before head: a program that timed its event before this
		 * call and is not busy now has published it */
		uint32_t busy = __atomic_load_n(&r->ctl[c].busy, __ATOMIC_ACQUIRE);
		r->heads[c] = __atomic_load_n(&r->ctl[c].head, __ATOMIC_ACQUIRE);
		flushed[c] = busy == 0;
	}
}

static int hand_on(bpf_region_fn fn, void *arg, uint8_t *batch, size_t len, unsigned nrec)
{
	struct bcr_batch b = { .len = (uint32_t)len, .nrec = (uint16_t)nrec, .how = BCR_BATCH_STAGED };
	memcpy(batch, &b, sizeof b);
	return fn(arg, batch, sizeof b + len);
}

int bpf_regions_read(bpf_regions *r, bpf_region_fn fn, void *arg, uint64_t *bad)
{
	int batches = 0;
	const size_t room = sizeof r->batch - sizeof(struct bcr_batch);
	for (unsigned c = 0; r->ctl && c < r->ncpu; c++) {
		uint64_t t = r->ctl[c].tail, h = r->heads[c];
		if (h - t > r->mask + 1) { /* cannot happen: the programs keep within the region */
			++*bad;
			t = h;
		}
		size_t len = 0;
		unsigned nrec = 0;
		uint8_t *out = r->batch + sizeof(struct bcr_batch);
		while (t < h) {
			uint64_t pos = t & r->mask;
			const uint8_t *rec = r->data + ((size_t)c * r->elems + (size_t)(pos >> BCR_REGION_SHIFT)) *
							       sizeof(struct bcr_region_elem) +
					     (pos & (BCR_REGION_ELEM - 1));
			unsigned kind = ((const struct bcr_event *)rec)->kind;
			size_t size = bcr_has_payload(kind) ? sizeof(struct bcr_event_ext) : sizeof(struct bcr_event);
			if (kind >= BCR_NKINDS || h - t < size) {
				++*bad;
				break;
			}
			if (len + size > room) {
				int rc = hand_on(fn, arg, r->batch, len, nrec);
				if (rc < 0)
					return rc;
				batches++;
				len = 0;
				nrec = 0;
			}
			memcpy(out + len, rec, size);
			len += size;
			nrec++;
			t += size;
		}
		if (nrec) {
			int rc = hand_on(fn, arg, r->batch, len, nrec);
			if (rc < 0)
				return rc;
			batches++;
		}
		__atomic_store_n(&r->ctl[c].tail, h, __ATOMIC_RELEASE);
	}
	return batches;
}
