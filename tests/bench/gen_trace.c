/* gen_trace.c — a synthetic block trace for the plot benchmark:
 *   gen_trace OUT NEVENTS SECONDS
 * writes OUT.blktrace.0 (a one-CPU blktrace set, what blkparse, iowatcher
 * and seekwatcher read) and OUT.blktrace.gz (blkreel's compressed file).
 * IOs are Q, D, C triples: three sequential streams and random IO over
 * 100 GB, 60 % reads, 4-128 KiB, up to ~6 in flight. */
#include <stdio.h>
#include <stdlib.h>
#include "blkreel/writer.h"

typedef struct pend {
	uint64_t t, sector;
	uint32_t bytes, action, pid;
} pend;

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int put(br_writer **w, int nw, uint64_t t, uint64_t sector, uint32_t bytes, uint32_t action,
	       uint32_t pid, uint32_t *seq)
{
	br_event ev = { .time = t, .sector = sector, .bytes = bytes, .action = action, .pid = pid,
			.device = BR_MKDEV(8, 0), .cpu = 0, .sequence = ++*seq };
	br_error err;
	for (int i = 0; i < nw; i++)
		if (br_writer_write(w[i], &ev, &err) < 0) {
			char buf[1024];
			fprintf(stderr, "gen_trace: %s\n", br_error_format(&err, buf, sizeof buf));
			return -1;
		}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: gen_trace OUT NEVENTS SECONDS\n");
		return 2;
	}
	uint64_t nev = strtoull(argv[2], NULL, 10);
	double secs = atof(argv[3]);
	uint64_t nio = nev / 3, s = 88172645463325252ull;
	uint64_t dt = (uint64_t)(secs * 1e9 / (double)nio);
	char p0[4096], p1[4096];
	snprintf(p0, sizeof p0, "%s.blktrace.0", argv[1]);
	snprintf(p1, sizeof p1, "%s.blktrace.gz", argv[1]);
	br_writer *w[2];
	br_error err;
	if (br_writer_open(&w[0], BR_OUT_STREAM, p0, NULL, &err) < 0 ||
	    br_writer_open(&w[1], BR_OUT_COMPRESSED, p1, &(br_writer_opts){ .level = 1 }, &err) < 0) {
		char buf[1024];
		fprintf(stderr, "gen_trace: %s\n", br_error_format(&err, buf, sizeof buf));
		return 1;
	}
	pend q[64];
	size_t nq = 0;
	uint64_t stream[3] = { 1000000, 50000000, 120000000 };
	uint32_t seq = 0;
	uint64_t t = 1000000000ull;
	for (uint64_t i = 0; i < nio; i++) {
		t += dt / 2 + rnd(&s) % dt;
		/* completions due before this IO */
		while (nq && q[0].t <= t) {
			if (put(w, 2, q[0].t, q[0].sector, q[0].bytes, q[0].action, q[0].pid, &seq))
				return 1;
			for (size_t k = 1; k < nq; k++)
				q[k - 1] = q[k];
			nq--;
		}
		uint64_t r = rnd(&s);
		uint32_t bytes = (uint32_t)(4096u << (r % 6));
		uint32_t rw = r >> 8 & 1 ? BLK_TC_ACT(BLK_TC_READ) : (r >> 9) % 10 < 2 ? BLK_TC_ACT(BLK_TC_READ) : BLK_TC_ACT(BLK_TC_WRITE);
		uint64_t sector;
		int st = (int)((r >> 16) % 10);
		if (st < 7) {
			sector = stream[st % 3];
			stream[st % 3] += bytes / 512;
		} else {
			sector = (r >> 20) % (100ull * 1000 * 1000 * 1000 / 512) & ~7ull;
		}
		uint32_t pid = 1000 + st % 4;
		if (put(w, 2, t, sector, bytes, rw | __BLK_TA_QUEUE, pid, &seq))
			return 1;
		t += 2000;
		while (nq && q[0].t <= t) {
			if (put(w, 2, q[0].t, q[0].sector, q[0].bytes, q[0].action, q[0].pid, &seq))
				return 1;
			for (size_t k = 1; k < nq; k++)
				q[k - 1] = q[k];
			nq--;
		}
		if (put(w, 2, t, sector, bytes, rw | __BLK_TA_ISSUE, pid, &seq))
			return 1;
		uint64_t ct = t + dt + rnd(&s) % (5 * dt);
		if (nq == 64) { /* keep the queue bounded */
			ct = q[nq - 1].t;
			nq--;
		}
		size_t k = nq;
		while (k && q[k - 1].t > ct) {
			q[k] = q[k - 1];
			k--;
		}
		q[k] = (pend){ ct, sector, bytes, rw | __BLK_TA_COMPLETE, pid };
		nq++;
	}
	for (size_t k = 0; k < nq; k++)
		if (put(w, 2, q[k].t, q[k].sector, q[k].bytes, q[k].action, q[k].pid, &seq))
			return 1;
	for (int i = 0; i < 2; i++)
		if (br_writer_close(w[i], &err) < 0) {
			char buf[1024];
			fprintf(stderr, "gen_trace: %s\n", br_error_format(&err, buf, sizeof buf));
			return 1;
		}
	return 0;
}
