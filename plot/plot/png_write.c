/* The PNG encoder of the figures, written by hand rather than through
 * libpng so the deflating can run on every core: the image is cut into
 * horizontal strips of rows, each strip is filtered and deflated on its
 * own (deflate_runs.c) into a part of a raw deflate stream that ends on a
 * byte boundary (as Z_SYNC_FLUSH would; the last part with the final
 * block), and the parts are laid end to end behind one zlib header, each in
 * its own IDAT chunk, with the Adler-32 of the whole combined from the
 * strips' (adler32_combine). A decoder sees one ordinary zlib stream. The
 * APNG movie (movie.c) writes each frame's stream the same way, as fdAT.
 * Spec: https://www.w3.org/TR/png/ (chunks, filters, zlib wrapper). */
#include "deflate_runs.h"
#include "output.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define PNG_MAX_THREADS 4
#define STRIPS_PER_THREAD 4
/* a chunk's length field is 31 bits */
#define PNG_CHUNK_MAX 0x7fffffffu

typedef struct strip {
	int y0, y1;                 /* rows [y0, y1) */
	unsigned char *z;           /* this strip's part of the zlib stream */
	size_t zlen, zcap;
	uLong adler, rawlen;        /* of the filtered rows */
	bool failed;                /* out of memory */
} strip;

typedef struct png_job {
	const unsigned char *data;
	int w, h, stride;
	strip *s;
	unsigned ns;
	atomic_uint next;
} png_job;

static void be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* Pixel v's R, G, B as the bytes of a little-endian word (the fourth
 * byte is junk, overwritten by the next store). */
static inline uint32_t rgb_word(uint32_t v)
{
	return __builtin_bswap32(v) >> 8;
}

/* Row y as PNG filtered bytes: filter type, then RGB, written a pixel a
 * word at a time (o has a byte to spare at the end). Up (the difference
 * from the row above) turns the figure's many repeated rows into runs of
 * zeros, which cost deflate_runs a few bits per 258 bytes; the first row
 * has nothing above it and goes unfiltered. An opaque figure's
 * premultiplied ARGB is its straight RGB. */
static void filter_row(const png_job *j, int y, unsigned char *o)
{
	const uint32_t *s = (const uint32_t *)(j->data + (size_t)y * j->stride);
	int w = j->w;
	if (y == 0) {
		*o++ = 0;
		for (int x = 0; x < w; x++, o += 3) {
			uint32_t v = rgb_word(s[x]);
			memcpy(o, &v, 4);
		}
		return;
	}
	const uint32_t *p = (const uint32_t *)(j->data + (size_t)(y - 1) * j->stride);
	*o++ = 2;
	if (!memcmp(s, p, (size_t)w * 4)) {
		memset(o, 0, (size_t)w * 3);
		return;
	}
	for (int x = 0; x < w; x++, o += 3) {
		/* byte-wise a - b (mod 256) in one word: no borrow crosses bytes */
		uint32_t a = s[x], b = p[x], h = 0x80808080u;
		uint32_t d = rgb_word(((a | h) - (b & ~h)) ^ ((a ^ ~b) & h));
		memcpy(o, &d, 4);
	}
}

static int encode_strip(const png_job *j, strip *st, bool first, bool last, unsigned char **buf,
			size_t *bufcap)
{
	size_t rb = 1 + 3 * (size_t)j->w;
	size_t len = (size_t)(st->y1 - st->y0) * rb;
	if (len + 1 > *bufcap) {
		unsigned char *b = realloc(*buf, len + 1); /* filter_row's spare byte */
		if (!b)
			return -1;
		*buf = b;
		*bufcap = len + 1;
	}
	for (int y = st->y0; y < st->y1; y++)
		filter_row(j, y, *buf + (size_t)(y - st->y0) * rb);
	st->rawlen = (uLong)len;
	/* figures pack to a few percent: start small, deflate_runs grows it */
	deflate_out o = { .cap = len / 16 + 1024, .spare = 8 };
	o.p = malloc(o.cap);
	if (!o.p)
		return -1;
	if (first) {
		/* zlib header: deflate, 32 KiB window, "fastest" (informative),
		 * no dictionary; 0x7801 is a multiple of 31 as required */
		o.p[0] = 0x78;
		o.p[1] = 0x01;
		o.len = 2;
	}
	uint32_t adler;
	int rc = deflate_runs(*buf, len, last, &o, &adler);
	st->adler = adler;
	st->z = o.p;
	st->zlen = o.len;
	st->zcap = o.cap;
	return rc ? -1 : 0;
}

static void *png_worker(void *arg)
{
	png_job *j = arg;
	unsigned char *buf = NULL;
	size_t cap = 0;
	for (;;) {
		unsigned i = atomic_fetch_add(&j->next, 1);
		if (i >= j->ns)
			break;
		strip *st = &j->s[i];
		st->failed = encode_strip(j, st, i == 0, i == j->ns - 1, &buf, &cap) != 0;
	}
	free(buf);
	return NULL;
}

static void put_chunk_head(FILE *fp, const char *type, uint32_t len)
{
	unsigned char h[8];
	be32(h, len);
	memcpy(h + 4, type, 4);
	fwrite(h, 1, 8, fp);
}

static void put_chunk(FILE *fp, const char *type, const unsigned char *data, uint32_t len)
{
	put_chunk_head(fp, type, len);
	if (len)
		fwrite(data, 1, len, fp);
	unsigned char c[4];
	uLong crc = crc32(0, (const Bytef *)type, 4);
	if (len) /* crc32 of a NULL buffer is the initial value, not crc */
		crc = crc32(crc, data, len);
	be32(c, (uint32_t)crc);
	fwrite(c, 1, 4, fp);
}

/* iTXt: keyword, NUL, not compressed (0, 0), empty language tag and
 * translated keyword (each NUL-ended), the UTF-8 text. */
static int put_itxt(FILE *fp, const png_text_kv *kv, const char *path, br_error *err)
{
	size_t kl = strlen(kv->key), vl = strlen(kv->value);
	if (kl < 1 || kl > 79)
		return br_error_set(err, BR_EINVAL, 0, path, -1,
				    "PNG text key \"%.80s\" must be 1 to 79 bytes long", kv->key);
	if (vl > PNG_CHUNK_MAX - kl - 5)
		return br_error_set(err, BR_EINVAL, 0, path, -1, "PNG text \"%s\" is too long", kv->key);
	uint32_t len = (uint32_t)(kl + 5 + vl);
	unsigned char *b = malloc(len);
	if (!b)
		return br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory writing PNG text");
	memcpy(b, kv->key, kl);
	memset(b + kl, 0, 5);
	memcpy(b + kl + 5, kv->value, vl);
	put_chunk(fp, "iTXt", b, len);
	free(b);
	return 0;
}

/* Online CPUs, at most PNG_MAX_THREADS. */
static unsigned default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > PNG_MAX_THREADS ? PNG_MAX_THREADS : (unsigned)n;
}

struct png_image_z {
	strip *s;
	unsigned ns;
};

void png_image_z_free(png_image_z *z)
{
	if (!z)
		return;
	for (unsigned i = 0; i < z->ns; i++)
		free(z->s[i].z);
	free(z->s);
	free(z);
}

int png_image_z_encode(png_image_z **out, const unsigned char *data, int w, int h, int stride,
		       unsigned strips, unsigned threads, const char *path, br_error *err)
{
	*out = NULL;
	if (w < 1 || h < 1 || (uint64_t)w * 3 + 1 > PNG_CHUNK_MAX)
		return br_error_set(err, BR_EINVAL, 0, path, -1, "cannot write a %dx%d PNG", w, h);
	if (!threads)
		threads = default_threads();
	if (!strips)
		strips = threads * STRIPS_PER_THREAD;
	if (strips > (unsigned)h)
		strips = (unsigned)h;
	if (threads > strips)
		threads = strips;
	png_job j = { .data = data, .w = w, .h = h, .stride = stride, .ns = strips };
	atomic_init(&j.next, 0);
	png_image_z *z = calloc(1, sizeof *z);
	j.s = calloc(strips, sizeof(strip));
	if (!z || !j.s) {
		free(z);
		free(j.s);
		return br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory writing PNG");
	}
	z->s = j.s;
	z->ns = strips;
	for (unsigned i = 0; i < strips; i++) {
		j.s[i].y0 = (int)((uint64_t)h * i / strips);
		j.s[i].y1 = (int)((uint64_t)h * (i + 1) / strips);
	}
	/* this thread works too; a thread that cannot start leaves its share
	 * to the others */
	pthread_t tid[PNG_MAX_THREADS];
	unsigned nt = 0;
	while (nt + 1 < threads && nt < PNG_MAX_THREADS && !pthread_create(&tid[nt], NULL, png_worker, &j))
		nt++;
	png_worker(&j);
	for (unsigned t = 0; t < nt; t++)
		pthread_join(tid[t], NULL);

	uLong adler = 0;
	int rc = 0;
	for (unsigned i = 0; i < strips; i++) {
		const strip *st = &j.s[i];
		if (st->failed) {
			rc = br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory compressing PNG rows %d-%d",
					  st->y0, st->y1 - 1);
			break;
		}
		/* room for a sequence number (fdAT) in the same chunk */
		if (st->zlen + 8 > PNG_CHUNK_MAX) {
			rc = br_error_set(err, BR_EINVAL, 0, path, -1,
					  "PNG rows %d-%d compress to more than a chunk can hold", st->y0, st->y1 - 1);
			break;
		}
		adler = i ? adler32_combine(adler, st->adler, (z_off_t)st->rawlen) : st->adler;
	}
	if (rc) {
		png_image_z_free(z);
		return rc;
	}
	strip *last = &j.s[strips - 1];
	be32(last->z + last->zlen, (uint32_t)adler); /* deflate_runs kept room */
	last->zlen += 4;
	*out = z;
	return 0;
}

void png_image_z_put(FILE *fp, const png_image_z *z, uint32_t *seq)
{
	for (unsigned i = 0; i < z->ns; i++) {
		const strip *st = &z->s[i];
		const char *type = seq ? "fdAT" : "IDAT";
		unsigned char sq[4], c[4];
		put_chunk_head(fp, type, (uint32_t)st->zlen + (seq ? 4 : 0));
		uLong crc = crc32(0, (const Bytef *)type, 4);
		if (seq) {
			be32(sq, (*seq)++);
			fwrite(sq, 1, 4, fp);
			crc = crc32(crc, sq, 4);
		}
		fwrite(st->z, 1, st->zlen, fp);
		be32(c, (uint32_t)crc32_z(crc, st->z, st->zlen));
		fwrite(c, 1, 4, fp);
	}
}

int png_put_head(FILE *fp, int w, int h, const png_text_kv *kv, size_t nkv, const char *path,
		 br_error *err)
{
	static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	fwrite(sig, 1, 8, fp);
	unsigned char ihdr[13];
	be32(ihdr, (uint32_t)w);
	be32(ihdr + 4, (uint32_t)h);
	ihdr[8] = 8;  /* bits per sample */
	ihdr[9] = 2;  /* colour type: RGB */
	ihdr[10] = 0; /* deflate */
	ihdr[11] = 0; /* adaptive filtering (a filter type byte per row) */
	ihdr[12] = 0; /* not interlaced */
	put_chunk(fp, "IHDR", ihdr, 13);
	for (size_t i = 0; i < nkv; i++) {
		int rc = put_itxt(fp, &kv[i], path, err);
		if (rc)
			return rc;
	}
	return 0;
}

void png_put_chunk(FILE *fp, const char *type, const unsigned char *data, uint32_t len)
{
	put_chunk(fp, type, data, len);
}

int png_write_argb(FILE *fp, const unsigned char *data, int w, int h, int stride,
		   const png_text_kv *kv, size_t nkv, unsigned strips, unsigned threads,
		   const char *path, br_error *err)
{
	/* text keys first: a bad one fails before any work */
	for (size_t i = 0; i < nkv; i++) {
		size_t kl = strlen(kv[i].key);
		if (kl < 1 || kl > 79)
			return br_error_set(err, BR_EINVAL, 0, path, -1,
					    "PNG text key \"%.80s\" must be 1 to 79 bytes long", kv[i].key);
	}
	png_image_z *z;
	int rc = png_image_z_encode(&z, data, w, h, stride, strips, threads, path, err);
	if (rc)
		return rc;
	rc = png_put_head(fp, w, h, kv, nkv, path, err);
	if (!rc) {
		png_image_z_put(fp, z, NULL);
		put_chunk(fp, "IEND", NULL, 0);
		if (fflush(fp) || ferror(fp))
			rc = br_error_set(err, BR_ESYS, errno, path, -1, "write failed");
	}
	png_image_z_free(z);
	return rc;
}

int png_write_surface(FILE *fp, cairo_surface_t *img, const png_text_kv *kv, size_t nkv,
		      const char *path, br_error *err)
{
	cairo_surface_flush(img);
	return png_write_argb(fp, cairo_image_surface_get_data(img), cairo_image_surface_get_width(img),
			      cairo_image_surface_get_height(img), cairo_image_surface_get_stride(img), kv,
			      nkv, 0, 0, path, err);
}
