/* deflate_runs.h — a deflate (RFC 1951) encoder for PNG-filtered figure
 * rows. Figures are flat colour, so after the Up filter nearly every byte
 * repeats the one before it or the pixel before it: matches at distances 1
 * and 3 only, found a word at a time, in dynamic Huffman blocks. Several
 * times faster than zlib's Z_RLE (which also pays for hash tables it never
 * uses) and a little smaller, as it also finds pixel runs. */
#ifndef BLKREEL_PLOT_DEFLATE_RUNS_H
#define BLKREEL_PLOT_DEFLATE_RUNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct deflate_out {
	unsigned char *p;         /* malloc'd; grown as needed */
	size_t len, cap;
	size_t spare;             /* bytes always left free after len */
} deflate_out;

/* Append in[0..n) to out as one part of a raw deflate stream: the last
 * part ends with the final block, the others with an empty stored block
 * (as Z_SYNC_FLUSH does), so parts made apart can be laid end to end.
 * Matches stay inside the part. *adler gets the Adler-32 of in (zlib's
 * adler32 started from 1), which the zlib wrapper needs: computed from the
 * runs, it costs per symbol, not per byte. 0, or -1 when out of memory. */
int deflate_runs(const unsigned char *in, size_t n, bool last, deflate_out *out, uint32_t *adler);

#endif
