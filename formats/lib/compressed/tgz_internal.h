/* tgz_internal.h (internal) — pieces of the compressed trace file codec
 * (docs/compressed-format.md): member header build/parse, the worker pool
 * shared by writer and reader, and the buffered input the reader walks. */
#ifndef BLKREEL_TGZ_INTERNAL_H
#define BLKREEL_TGZ_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "blkreel/error.h"
#include "common/input.h"

/* ---- format constants (see the spec) ---------------------------------- */
#define TGZ_MEMBER_MAX 65536u       /* BSIZE is 16 bits: size - 1 */
#define TGZ_PAYLOAD_MAX 0xff00u     /* uncompressed bytes per member */
#define TGZ_HEADER_LEN 60u          /* header as the writer emits it */
#define TGZ_TRAILER_LEN 8u
#define TGZ_EVENTS_MAX (TGZ_PAYLOAD_MAX / 48u) /* records a payload can hold */
#define TGZ_EOF_LEN 70u             /* header + 03 00 + trailer */
#define TGZ_BR_LEN 36u              /* version-1 BR subfield data */
#define TGZ_VERSION 1u

#define TGZ_FLAG_EOF 0x01u          /* BR flags: end-of-file member */
#define TGZ_FLAG_BIG_ENDIAN 0x02u   /* BR flags: records are big-endian */

#define GZ_FTEXT 0x01u
#define GZ_FHCRC 0x02u
#define GZ_FEXTRA 0x04u
#define GZ_FNAME 0x08u
#define GZ_FCOMMENT 0x10u

/* What a member's BR subfield says. */
typedef struct tgz_meta {
	unsigned version;
	unsigned flags;
	uint32_t records;
	uint32_t usize;
	uint64_t first_time;
	uint64_t last_time;
	uint64_t record_base;
} tgz_meta;

/* A parsed member header. */
typedef struct tgz_hdr {
	size_t hdr_len;         /* bytes before the deflate data */
	bool has_bc, has_br;
	uint32_t member_size;   /* BSIZE + 1 (when has_bc) */
	tgz_meta meta;          /* when has_br */
} tgz_hdr;

/* ---- tgz_member.c --------------------------------------------------------- */

/* Write the 60-byte header for a member of member_size bytes. */
void tgz_header_build(uint8_t out[TGZ_HEADER_LEN], const tgz_meta *m, uint32_t member_size);

/* Build the 70-byte end-of-file member into out. */
void tgz_eof_build(uint8_t out[TGZ_EOF_LEN], uint64_t last_time, uint64_t record_base,
		   bool big_endian);

enum {
	TGZ_PARSE_NEED = 0,     /* *need bytes are required (more than len) */
	TGZ_PARSE_BAD = -1,     /* not a valid gzip header (*why says what) */
};
/* Parse a gzip member header at buf[0..len). Returns the header length (> 0)
 * with *h filled, TGZ_PARSE_NEED with *need set, or TGZ_PARSE_BAD with *why.
 * Only gzip validity is checked here; tgz_hdr_check() checks the blkreel
 * parts. */
int tgz_header_parse(const uint8_t *buf, size_t len, tgz_hdr *h, size_t *need,
		     const char **why);

/* The blkreel constraints on a parsed header (BC and BR present, version,
 * sizes, times). Returns NULL when fine, else what is wrong. A version other
 * than 1 returns "unsupported BR version" and sets *unsupported. */
const char *tgz_hdr_check(const tgz_hdr *h, bool *unsupported);

/* Little-endian helpers. */
static inline uint16_t tgz_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t tgz_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t tgz_le64(const uint8_t *p)
{
	return (uint64_t)tgz_le32(p) | (uint64_t)tgz_le32(p + 4) << 32;
}
static inline void tgz_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void tgz_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static inline void tgz_put64(uint8_t *p, uint64_t v)
{
	tgz_put32(p, (uint32_t)v);
	tgz_put32(p + 4, (uint32_t)(v >> 32));
}

/* ---- tgz_pool.c: a FIFO of jobs run by worker threads --------------------
 * Ordering is the caller's business: it keeps its jobs in a ring and waits
 * for the oldest. With 0 threads, submit runs the job inline. */
typedef struct tgz_job tgz_job;
struct tgz_job {
	void (*run)(tgz_job *job);
	tgz_job *next;          /* pool queue link */
	bool done;              /* set under the pool lock */
	/* which worker runs the job, 0..threads-1 (0 inline), set before run:
	 * lets a job use per-thread state (the writer's compressors) */
	unsigned worker;
};

typedef struct tgz_pool tgz_pool;

/* nthreads 0 = no threads (inline). */
int tgz_pool_create(tgz_pool **out, unsigned nthreads);
/* Distinct values job->worker can take: nthreads, or 1 inline. */
unsigned tgz_pool_workers(const tgz_pool *p);
void tgz_pool_submit(tgz_pool *p, tgz_job *job);
void tgz_pool_wait(tgz_pool *p, tgz_job *job);
void tgz_pool_free(tgz_pool *p);

/* Threads to use for a threads option: 0 = online CPUs. */
unsigned tgz_threads_resolve(unsigned threads);

/* ---- tgz_buf.c: buffered sequential reading over a br_input -------------- */
typedef struct tgz_buf {
	br_input *in;
	uint8_t *data;
	size_t cap;
	size_t pos, len;        /* unread bytes are data[pos..len) */
	int64_t off;            /* file offset of data[0] */
	bool eof;               /* the input returned end of file */
} tgz_buf;

int tgz_buf_init(tgz_buf *b, br_input *in, size_t cap);
void tgz_buf_free(tgz_buf *b);
/* Make at least need bytes available at data+pos (fewer only at EOF).
 * Returns the number available or a negative br_code. */
ssize_t tgz_buf_fill(tgz_buf *b, size_t need, br_error *err);
static inline int64_t tgz_buf_tell(const tgz_buf *b) { return b->off + (int64_t)b->pos; }
static inline size_t tgz_buf_avail(const tgz_buf *b) { return b->len - b->pos; }
/* Move the read position forward to absolute offset off (>= tell), without
 * keeping the bytes in between: lseek on files, read-and-discard on pipes.
 * Returns 0, BR_ETRUNC when the input ends first, or another br_code. */
int tgz_buf_skip_to(tgz_buf *b, int64_t off, br_error *err);

/* ---- the reader (tgz_source.c, tgz_fetch.c, tgz_inflate.c, tgz_plain.c) -- */
#include <libdeflate.h>
#include <zlib.h>
#include "common/source.h"
#include "blkreel/event.h"

enum tgz_slot_kind {
	TGZ_SLOT_MEMBER,        /* a member to inflate (header passed checks) */
	TGZ_SLOT_DAMAGE,        /* unreadable stretch: bad header, truncation */
	TGZ_SLOT_ERROR,         /* fatal even with salvage (I/O, unsupported) */
	TGZ_SLOT_END,           /* clean end of the file */
};

/* One member in flight: what the fetcher read, then what a worker made of it. */
typedef struct tgz_rslot {
	tgz_job job;            /* first: the job pointer is the slot pointer */
	int kind;
	int64_t off;            /* file offset of the member */
	uint64_t index;         /* member number in the file, from 0 */
	tgz_hdr hdr;
	uint8_t *cdata;         /* the whole member, TGZ_MEMBER_MAX bytes */
	size_t clen;
	uint8_t *out;           /* inflated payload, TGZ_PAYLOAD_MAX bytes */
	size_t out_len;
	/* the payload's records decoded by the worker (pdu pointing into out),
	 * TGZ_EVENTS_MAX of them: the consumer only copies them out */
	br_event *events;
	size_t nevents;
	struct libdeflate_decompressor *inflater;
	/* worker verdict for MEMBER slots */
	int code;               /* 0, BR_ECORRUPT or BR_EFORMAT */
	char why[200];
	bool swapped;           /* first record is byte-swapped */
	/* DAMAGE / ERROR slots */
	br_damage damage;
	br_error err;
} tgz_rslot;

/* Sequential walk over members: positions, seeking, resynchronising. */
typedef struct tgz_fetch {
	tgz_buf buf;
	const char *name;
	uint64_t members;       /* members passed so far (next member's number) */
	uint64_t skipped;       /* members hopped over by seek without inflating */
	bool after_eof_member;  /* the last member was an end-of-file member */
	bool done;
	bool have_prev;         /* a good header seen: bounds for damage ranges */
	uint64_t prev_last_time;
	uint64_t prev_end_record;
	bool seeking;           /* hop members whose last_time < seek_t */
	uint64_t seek_t;
} tgz_fetch;

/* Fill slot s with the next member or event (see enum tgz_slot_kind). */
void tgz_fetch_next(tgz_fetch *f, tgz_rslot *s);

/* Worker job: inflate s->cdata and verify it and its records. */
void tgz_inflate_run(tgz_job *job);

/* Plain gzip of a blk_io_trace stream (tgz_plain.c); takes ownership of in
 * and of buf, which holds the first bytes of the file. */
int tgz_plain_open(br_source **out, br_input *in, tgz_buf *buf, br_error *err);

#endif
