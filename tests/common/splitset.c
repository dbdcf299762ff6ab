#include "splitset.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blkreel/reader.h"
#include "blkreel/writer.h"

void ss_load(const char *path, ss_trace *t)
{
	memset(t, 0, sizeof *t);
	br_reader *r;
	br_error err;
	const char *p[] = { path };
	cr_assert_eq(br_reader_open(&r, p, 1, NULL, &err), 0, "%s: %s", path, err.msg);
	size_t cap = 0;
	br_event ev;
	int rc;
	while ((rc = br_reader_next(r, &ev, &err)) == 1) {
		if (t->n == cap) {
			cap = cap ? 2 * cap : 4096;
			t->ev = realloc(t->ev, cap * sizeof *t->ev);
			cr_assert(t->ev);
		}
		br_event *e = &t->ev[t->n++];
		*e = ev;
		if (ev.pdu_len) {
			uint8_t *pdu = malloc(ev.pdu_len);
			cr_assert(pdu);
			memcpy(pdu, ev.pdu, ev.pdu_len);
			e->pdu = pdu;
		}
		e->comm = ev.comm ? strdup(ev.comm) : NULL;
	}
	cr_assert_eq(rc, 0, "%s: %s", path, err.msg);
	br_reader_close(r);
}

void ss_free(ss_trace *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free((void *)t->ev[i].pdu);
		free((void *)t->ev[i].comm);
	}
	free(t->ev);
	memset(t, 0, sizeof *t);
}

void ss_write(const ss_trace *t, size_t from, size_t to, const char *path)
{
	br_writer *w;
	br_error err;
	br_writer_opts o = { .threads = 1 };
	cr_assert_eq(br_writer_open(&w, BR_OUT_COMPRESSED, path, &o, &err), 0, "%s: %s", path,
		     err.msg);
	for (size_t i = from; i < to; i++)
		cr_assert_eq(br_writer_write(w, &t->ev[i], &err), 0, "%s: %s", path, err.msg);
	cr_assert_eq(br_writer_close(w, &err), 0, "%s: %s", path, err.msg);
}

const char *ss_member(const char *name, unsigned number)
{
	static char buf[4][4096];
	static int next;
	char *b = buf[next++ % 4];
	snprintf(b, sizeof buf[0], "%s.%05u.blktrace.gz", name, number);
	return b;
}

void ss_split(const ss_trace *t, const char *name, size_t k, unsigned first, size_t *cuts)
{
	cuts[0] = 0;
	for (size_t i = 1; i < k; i++) {
		size_t c = t->n * i / k;
		/* records of one time stay in one member */
		while (c > 0 && c < t->n && t->ev[c].time == t->ev[c - 1].time)
			c++;
		cr_assert(c > cuts[i - 1] && c < t->n, "%zu records do not cut into %zu members",
			  t->n, k);
		cuts[i] = c;
	}
	cuts[k] = t->n;
	for (size_t i = 0; i < k; i++)
		ss_write(t, cuts[i], cuts[i + 1], ss_member(name, first + (unsigned)i));
}
