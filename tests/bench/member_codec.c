/* member_codec.c — zlib against libdeflate on the members of one compressed
 * trace file (docs/compressed-format.md), on one core, in one run:
 *   inflate every member's deflate data with each (and check CRC-32), then
 *   deflate every payload again at LEVEL with each.
 * Usage: member_codec FILE.blktrace.gz [LEVEL [REF_BYTES [OTHER_LEVELS]]]
 *   LEVEL default 6; REF_BYTES: a reference size (the bench passes gzip -6's
 *   of the same records) that each deflate line is compared with;
 *   OTHER_LEVELS: a comma list of libdeflate levels also timed (e.g. 4,5),
 *   to show what another level would trade.
 * Prints one line per codec and job: MB/s of payload, and the total
 * compressed size for the deflate lines. Members are walked by their BC
 * subfield; the writer's 60-byte header is assumed (bench input only). */
#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define HDR 60u
#define PAYLOAD_MAX 0xff00u

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

typedef struct member {
	const uint8_t *deflate; /* raw deflate data */
	size_t dlen;
	uint32_t crc, usize;
} member;

static void die(const char *what)
{
	fprintf(stderr, "member_codec: %s\n", what);
	exit(1);
}

/* Deflate every payload with libdeflate at level, as the writer does (raw
 * deflate and CRC-32); returns seconds, *size the file bytes it would make. */
static double libdeflate_members(const member *m, size_t nm, const uint8_t *payloads, int level,
				 uint8_t *z, uint64_t *size)
{
	struct libdeflate_compressor *c = libdeflate_alloc_compressor(level);
	if (!c)
		die("libdeflate: cannot allocate a compressor");
	*size = 0;
	double t = now();
	uint64_t at = 0;
	for (size_t i = 0; i < nm; i++) {
		size_t n = libdeflate_deflate_compress(c, payloads + at, m[i].usize, z, 1 << 17);
		if (!n)
			die("libdeflate: deflate failed");
		libdeflate_crc32(0, payloads + at, m[i].usize);
		*size += n + HDR + 8;
		at += m[i].usize;
	}
	t = now() - t;
	libdeflate_free_compressor(c);
	return t;
}

static void vs_ref(double ref, uint64_t size)
{
	if (ref > 0)
		printf(" %+7.2f %%", ((double)size / ref - 1) * 100);
	printf("\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 5)
		die("usage: member_codec FILE.blktrace.gz [LEVEL [REF_BYTES [OTHER_LEVELS]]]");
	int level = argc >= 3 ? atoi(argv[2]) : 6;
	double ref = argc >= 4 ? atof(argv[3]) : 0;
	const char *others = argc >= 5 ? argv[4] : "";
	if (level < 1 || level > 9)
		die("LEVEL must be in 1..9");
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		die("cannot open the file");
	fseek(f, 0, SEEK_END);
	long fsize = ftell(f);
	rewind(f);
	uint8_t *file = malloc((size_t)fsize);
	if (!file || fread(file, 1, (size_t)fsize, f) != (size_t)fsize)
		die("cannot read the file");
	fclose(f);

	size_t nm = 0, cap = 1024;
	member *m = malloc(cap * sizeof *m);
	uint64_t total = 0;
	for (size_t off = 0; off + HDR + 8 <= (size_t)fsize;) {
		const uint8_t *p = file + off;
		if (p[0] != 0x1f || p[1] != 0x8b || p[12] != 'B' || p[13] != 'C')
			die("not a file written by blkreel (no BC subfield where expected)");
		size_t size = (size_t)(p[16] | p[17] << 8) + 1;
		if (off + size > (size_t)fsize)
			die("truncated member");
		if (nm == cap)
			m = realloc(m, (cap *= 2) * sizeof *m);
		m[nm] = (member){ p + HDR, size - HDR - 8, le32(p + size - 8), le32(p + size - 4) };
		total += m[nm].usize;
		nm++;
		off += size;
	}
	uint8_t *out = malloc(PAYLOAD_MAX), *payloads = malloc(total), *z = malloc(1 << 17);
	if (!out || !payloads || !z)
		die("out of memory");

	/* inflate with zlib (raw deflate, then crc32, as the reader did) */
	z_stream zs = { 0 };
	inflateInit2(&zs, -15);
	double t = now();
	for (size_t i = 0; i < nm; i++) {
		inflateReset(&zs);
		zs.next_in = (Bytef *)m[i].deflate;
		zs.avail_in = (uInt)m[i].dlen;
		zs.next_out = out;
		zs.avail_out = PAYLOAD_MAX;
		if (inflate(&zs, Z_FINISH) != Z_STREAM_END ||
		    crc32(0, out, PAYLOAD_MAX - zs.avail_out) != m[i].crc)
			die("zlib: a member does not inflate");
	}
	double t_zi = now() - t;
	inflateEnd(&zs);

	/* inflate with libdeflate (raw deflate, then libdeflate_crc32, as the reader does) */
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	t = now();
	for (size_t i = 0; i < nm; i++) {
		size_t got;
		if (libdeflate_deflate_decompress(d, m[i].deflate, m[i].dlen, out, PAYLOAD_MAX,
						  &got) != LIBDEFLATE_SUCCESS ||
		    libdeflate_crc32(0, out, got) != m[i].crc)
			die("libdeflate: a member does not inflate");
	}
	double t_li = now() - t;
	/* the payloads, to deflate them again (not timed) */
	uint64_t at = 0;
	for (size_t i = 0; i < nm; i++) {
		size_t got;
		libdeflate_deflate_decompress(d, m[i].deflate, m[i].dlen, payloads + at, PAYLOAD_MAX,
					      &got);
		at += got;
	}
	libdeflate_free_decompressor(d);

	/* deflate every payload again at the level */
	z_stream ds = { 0 };
	deflateInit2(&ds, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
	uint64_t zsize = 0, lsize = 0;
	t = now();
	at = 0;
	for (size_t i = 0; i < nm; i++) {
		deflateReset(&ds);
		ds.next_in = payloads + at;
		ds.avail_in = m[i].usize;
		ds.next_out = z;
		ds.avail_out = 1 << 17;
		if (deflate(&ds, Z_FINISH) != Z_STREAM_END)
			die("zlib: deflate failed");
		crc32(0, payloads + at, m[i].usize);
		zsize += ds.total_out + HDR + 8;
		at += m[i].usize;
	}
	double t_zd = now() - t;
	deflateEnd(&ds);
	double t_ld = libdeflate_members(m, nm, payloads, level, z, &lsize);

	double mb = (double)total / 1e6;
	printf("%zu members, %.0f MB of records, one core\n", nm, mb);
	printf("%-34s %9s %9s %14s%s\n", "job", "seconds", "MB/s", "file bytes",
	       ref > 0 ? "  vs ref" : "");
	printf("%-34s %9.3f %9.0f %14s\n", "inflate + CRC, zlib", t_zi, mb / t_zi, "");
	printf("%-34s %9.3f %9.0f %14s\n", "inflate + CRC, libdeflate", t_li, mb / t_li, "");
	char name[64];
	snprintf(name, sizeof name, "deflate -%d per member, zlib", level);
	printf("%-34s %9.3f %9.0f %14llu", name, t_zd, mb / t_zd, (unsigned long long)zsize);
	vs_ref(ref, zsize);
	snprintf(name, sizeof name, "deflate -%d per member, libdeflate", level);
	printf("%-34s %9.3f %9.0f %14llu", name, t_ld, mb / t_ld, (unsigned long long)lsize);
	vs_ref(ref, lsize);
	for (const char *o = others; *o;) {
		char *end;
		long other = strtol(o, &end, 10);
		if (end == o || other < 1 || other > 12)
			die("OTHER_LEVELS: a comma list of libdeflate levels 1..12");
		uint64_t osize;
		double t_o = libdeflate_members(m, nm, payloads, (int)other, z, &osize);
		snprintf(name, sizeof name, "deflate -%ld per member, libdeflate", other);
		printf("%-34s %9.3f %9.0f %14llu", name, t_o, mb / t_o, (unsigned long long)osize);
		vs_ref(ref, osize);
		printf("%-34s %23.2fx zlib -%d's speed\n", "", t_zd / t_o, level);
		o = *end == ',' ? end + 1 : end;
	}
	printf("libdeflate vs zlib: inflate %.2fx, deflate %.2fx (level %d)\n", t_zi / t_li, t_zd / t_ld,
	       level);
	free(file);
	free(m);
	free(out);
	free(payloads);
	free(z);
	return 0;
}
