#include "tracegen.h"

#include "blkreel/analysis.h"

#include <byteswap.h>
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put(tg_buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->data = realloc(b->data, b->cap);
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

void tg_append(tg_buf *b, const br_event *ev, bool swap)
{
	uint8_t raw[BR_RECORD_SIZE];
	br_record_encode(ev, raw);
	if (swap) {
		/* magic, sequence | time, sector | bytes..cpu | error, pdu_len */
		for (int off = 0; off < 8; off += 4) {
			uint32_t v;
			memcpy(&v, raw + off, 4);
			v = bswap_32(v);
			memcpy(raw + off, &v, 4);
		}
		for (int off = 8; off < 24; off += 8) {
			uint64_t v;
			memcpy(&v, raw + off, 8);
			v = bswap_64(v);
			memcpy(raw + off, &v, 8);
		}
		for (int off = 24; off < 44; off += 4) {
			uint32_t v;
			memcpy(&v, raw + off, 4);
			v = bswap_32(v);
			memcpy(raw + off, &v, 4);
		}
		for (int off = 44; off < 48; off += 2) {
			uint16_t v;
			memcpy(&v, raw + off, 2);
			v = bswap_16(v);
			memcpy(raw + off, &v, 2);
		}
	}
	put(b, raw, sizeof raw);
	if (ev->pdu_len)
		put(b, ev->pdu, ev->pdu_len);
}

br_event tg_io(uint64_t time, uint32_t device, uint32_t cpu, uint32_t action, uint64_t sector,
	       uint32_t bytes, uint32_t pid)
{
	br_event ev = { 0 };
	ev.time = time;
	ev.device = device;
	ev.cpu = cpu;
	ev.action = action;
	ev.sector = sector;
	ev.bytes = bytes;
	ev.pid = pid;
	return ev;
}

br_event tg_process(uint64_t time, uint32_t cpu, uint32_t pid, const char *name)
{
	br_event ev = { 0 };
	ev.time = time;
	ev.cpu = cpu;
	ev.pid = pid;
	ev.action = BLK_TN_PROCESS;
	ev.pdu = (const uint8_t *)name;
	ev.pdu_len = (uint16_t)(strlen(name) + 1);
	return ev;
}

br_event tg_remap(uint64_t time, uint32_t device, uint32_t action, uint64_t sector, uint32_t bytes,
		  uint32_t from_dev, uint32_t to_dev, uint64_t from_sector, uint8_t pdu[16])
{
	br_event ev = tg_io(time, device, 0, action, sector, bytes, 0);
	uint32_t v32 = htobe32(from_dev);
	memcpy(pdu, &v32, 4);
	v32 = htobe32(to_dev);
	memcpy(pdu + 4, &v32, 4);
	uint64_t v64 = htobe64(from_sector);
	memcpy(pdu + 8, &v64, 8);
	ev.pdu = pdu;
	ev.pdu_len = 16;
	return ev;
}

static int by_time_then_sequence(const void *a, const void *b)
{
	const br_event *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return (x->sequence > y->sequence) - (x->sequence < y->sequence);
}

void tg_append_sorted(tg_buf *b, br_event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ev[i].sequence = (uint32_t)i; /* the order given breaks ties */
	qsort(ev, n, sizeof *ev, by_time_then_sequence);
	for (size_t i = 0; i < n; i++) {
		ev[i].sequence = (uint32_t)(i + 1);
		tg_append(b, &ev[i], false);
	}
}

int tg_write(const tg_buf *b, const char *path)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	size_t w = b->len ? fwrite(b->data, 1, b->len, f) : 0;
	return (fclose(f) == 0 && w == b->len) ? 0 : -1;
}

void tg_free(tg_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

const char tg_hostile_a[] = "q\"b\\\x01\n\x7f\xff\xc3(";
const char tg_hostile_b[] = "\t\x1b[31m\xe2\x82";

int tg_write_hostile(const char *path, bool writes)
{
	tg_buf b = { 0 };
	br_event e = tg_process(0, 0, 10, tg_hostile_a);
	tg_append(&b, &e, false);
	e = tg_process(0, 0, 11, tg_hostile_b);
	tg_append(&b, &e, false);
	for (uint64_t i = 0; i < 40; i++) {
		uint64_t t = 1000 + i * 10000, sec = i * 8;
		uint32_t pid = 10 + (uint32_t)(i % 2);
		e = tg_io(t, BR_MKDEV(8, 0), 0, writes ? TG_Q_W : TG_Q_R, sec, 4096, pid);
		tg_append(&b, &e, false);
		e = tg_io(t + 10, BR_MKDEV(8, 0), 0, writes ? TG_D_W : TG_D_R, sec, 4096, pid);
		tg_append(&b, &e, false);
		e = tg_io(t + 5000, BR_MKDEV(8, 0), 0, writes ? TG_C_W : TG_C_R, sec, 4096, 0);
		tg_append(&b, &e, false);
	}
	int rc = tg_write(&b, path);
	tg_free(&b);
	return rc;
}

br_event *tg_run_put(tg_run *r, br_event ev)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 4096;
		tg_run_event *e = realloc(r->e, cap * sizeof *e);
		if (!e)
			return NULL;
		r->e = e;
		r->cap = cap;
	}
	r->e[r->n] = (tg_run_event){ .ev = ev, .order = r->n };
	return &r->e[r->n++].ev;
}

static int by_time_then_order(const void *x, const void *y)
{
	const tg_run_event *a = x, *b = y;
	if (a->ev.time != b->ev.time)
		return a->ev.time < b->ev.time ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

void tg_run_sort(tg_run *r)
{
	qsort(r->e, r->n, sizeof *r->e, by_time_then_order);
}

void tg_run_free(tg_run *r)
{
	free(r->e);
	*r = (tg_run){ 0 };
}

br_analysis *tg_run_analyse(const tg_run *r, br_error *err)
{
	br_analysis *a;
	if (br_analysis_new(&a, NULL, err))
		return NULL;
	for (size_t k = 0; k < r->n; k++)
		if (br_analysis_add(a, &r->e[k].ev, err))
			goto fail;
	if (br_analysis_finish(a, err))
		goto fail;
	return a;
fail:
	br_analysis_free(a);
	return NULL;
}
