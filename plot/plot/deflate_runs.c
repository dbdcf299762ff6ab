/* Deflate for filtered figure rows (see deflate_runs.h). Written from RFC
 * 1951: greedy matches at distance 1 (a byte repeated) or 3 (an RGB pixel
 * repeated), blocks of up to BLOCK_TOKENS symbols, each with Huffman codes
 * built from its own symbol counts and limited to 15 bits (7 for the code
 * length code). */
#include "deflate_runs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_TOKENS 32768
#define MIN_MATCH 3
#define MAX_MATCH 258
#define NLITLEN 286
#define NDIST 30
#define NCL 19
#define MATCH_FLAG 0x80000000u

/* Lengths 3..258: base of each length symbol (257 + index) and its extra bits. */
static const uint16_t len_base[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
				       35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
static const uint8_t len_bits[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2,
				      3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
/* The order the code length code's lengths are sent in. */
static const uint8_t cl_order[NCL] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };

typedef struct bits {
	deflate_out *o;
	uint64_t acc;
	unsigned n;
} bits;

/* Room for `need` more bytes (and the caller's spare). */
static int reserve(deflate_out *o, size_t need)
{
	if (o->cap - o->len >= need + o->spare)
		return 0;
	size_t cap = o->cap ? o->cap : 4096;
	while (cap - o->len < need + o->spare)
		cap *= 2;
	unsigned char *p = realloc(o->p, cap);
	if (!p)
		return -1;
	o->p = p;
	o->cap = cap;
	return 0;
}

/* LSB first, as deflate packs bits; at most 16 bits a call. The caller
 * reserved the room. */
static inline void put(bits *b, uint32_t v, unsigned n)
{
	b->acc |= (uint64_t)v << b->n;
	b->n += n;
	if (b->n >= 32) {
		unsigned char *q = b->o->p + b->o->len;
		q[0] = (unsigned char)b->acc;
		q[1] = (unsigned char)(b->acc >> 8);
		q[2] = (unsigned char)(b->acc >> 16);
		q[3] = (unsigned char)(b->acc >> 24);
		b->o->len += 4;
		b->acc >>= 32;
		b->n -= 32;
	}
}

/* Pad to a byte boundary and write out what is held. */
static void align(bits *b)
{
	while (b->n > 0) {
		b->o->p[b->o->len++] = (unsigned char)b->acc;
		b->acc >>= 8;
		b->n = b->n > 8 ? b->n - 8 : 0;
	}
	b->acc = 0;
}

typedef struct leaf {
	uint32_t freq;
	uint16_t sym;
} leaf;

static int leaf_cmp(const void *a, const void *b)
{
	const leaf *x = a, *y = b;
	if (x->freq != y->freq)
		return x->freq < y->freq ? -1 : 1;
	return x->sym < y->sym ? -1 : x->sym > y->sym;
}

/* Code lengths for freq[0..n) of at most maxbits bits, 0 for symbols not
 * used. At least two symbols always get a code (symbols 0 and 1 stand in
 * when fewer are used), so every code is complete, as decoders want. */
static void huff_lengths(const uint32_t *freq, unsigned n, unsigned maxbits, uint8_t *len)
{
	leaf lv[NLITLEN];
	unsigned m = 0;
	for (unsigned s = 0; s < n; s++)
		if (freq[s])
			lv[m++] = (leaf){ freq[s], (uint16_t)s };
	for (unsigned s = 0; m < 2; s++) {
		bool have = false;
		for (unsigned k = 0; k < m; k++)
			have |= lv[k].sym == s;
		if (!have)
			lv[m++] = (leaf){ 1, (uint16_t)s };
	}
	qsort(lv, m, sizeof(leaf), leaf_cmp);

	/* Huffman's merging with two queues: the leaves in ascending order,
	 * and the merged nodes, made in ascending order too. Nodes 0..m-1 are
	 * the leaves, m..2m-2 the merged ones; a parent comes after its
	 * children, so depths follow in one backward pass. */
	uint32_t w[2 * NLITLEN];
	uint16_t parent[2 * NLITLEN];
	uint8_t depth[2 * NLITLEN];
	for (unsigned k = 0; k < m; k++)
		w[k] = lv[k].freq;
	unsigned li = 0, ii = m;
	for (unsigned next = m; next < 2 * m - 1; next++) {
		unsigned pick[2];
		for (int t = 0; t < 2; t++) {
			if (li < m && (ii >= next || w[li] <= w[ii]))
				pick[t] = li++;
			else
				pick[t] = ii++;
		}
		w[next] = w[pick[0]] + w[pick[1]];
		parent[pick[0]] = parent[pick[1]] = (uint16_t)next;
	}
	depth[2 * m - 2] = 0;
	for (int k = (int)(2 * m) - 3; k >= 0; k--)
		depth[k] = (uint8_t)(depth[parent[k]] + 1 > 32 ? 32 : depth[parent[k]] + 1);

	/* How many codes of each length; longer than maxbits are cut to it,
	 * then the code is made whole again (Kraft sum back to one) by moving
	 * shorter codes down a level. */
	unsigned cnt[33] = { 0 };
	for (unsigned k = 0; k < m; k++)
		cnt[depth[k] > maxbits ? maxbits : depth[k]]++;
	uint64_t total = 0;
	for (unsigned l = 1; l <= maxbits; l++)
		total += (uint64_t)cnt[l] << (maxbits - l);
	while (total > (1ull << maxbits)) {
		cnt[maxbits]--;
		for (unsigned l = maxbits - 1; l > 0; l--)
			if (cnt[l]) {
				cnt[l]--;
				cnt[l + 1] += 2;
				break;
			}
		total--;
	}
	/* the rarest symbols get the longest codes */
	memset(len, 0, n);
	unsigned k = 0;
	for (unsigned l = maxbits; l > 0; l--)
		for (unsigned c = 0; c < cnt[l]; c++)
			len[lv[k++].sym] = (uint8_t)l;
}

/* Canonical codes from lengths, bit-reversed for LSB-first output. */
static void huff_codes(const uint8_t *len, unsigned n, uint16_t *code)
{
	unsigned cnt[16] = { 0 }, next[16];
	for (unsigned s = 0; s < n; s++)
		cnt[len[s]]++;
	cnt[0] = 0;
	unsigned c = 0;
	for (unsigned l = 1; l < 16; l++) {
		c = (c + cnt[l - 1]) << 1;
		next[l] = c;
	}
	for (unsigned s = 0; s < n; s++) {
		unsigned l = len[s];
		if (!l)
			continue;
		unsigned v = next[l]++, r = 0;
		for (unsigned i = 0; i < l; i++)
			r |= ((v >> i) & 1) << (l - 1 - i);
		code[s] = (uint16_t)r;
	}
}

typedef struct block {
	uint32_t lit[NLITLEN], dist[NDIST];
	uint8_t llen[NLITLEN], dlen[NDIST];
	uint16_t lcode[NLITLEN], dcode[NDIST];
} block;

/* The lengths of both codes, run-length coded with the code length code's
 * symbols 16 (repeat the last 3-6 times), 17 (3-10 zeros) and 18 (11-138
 * zeros), then that code and the symbols. */
static void put_header(bits *b, block *k, unsigned nlit, unsigned ndist, bool final)
{
	uint8_t all[NLITLEN + NDIST];
	memcpy(all, k->llen, nlit);
	memcpy(all + nlit, k->dlen, ndist);
	unsigned total = nlit + ndist, ns = 0;
	uint8_t sym[NLITLEN + NDIST], extra[NLITLEN + NDIST];
	uint32_t cf[NCL] = { 0 };
	for (unsigned i = 0; i < total;) {
		unsigned v = all[i], run = 1;
		while (i + run < total && all[i + run] == v)
			run++;
		i += run;
		if (v == 0) {
			while (run >= 11) {
				unsigned r = run > 138 ? 138 : run;
				sym[ns] = 18, extra[ns++] = (uint8_t)(r - 11);
				run -= r;
			}
			if (run >= 3) {
				sym[ns] = 17, extra[ns++] = (uint8_t)(run - 3);
				run = 0;
			}
		} else {
			sym[ns] = (uint8_t)v, extra[ns++] = 0;
			run--;
			while (run >= 3) {
				unsigned r = run > 6 ? 6 : run;
				sym[ns] = 16, extra[ns++] = (uint8_t)(r - 3);
				run -= r;
			}
		}
		while (run--)
			sym[ns] = (uint8_t)v, extra[ns++] = 0;
	}
	for (unsigned i = 0; i < ns; i++)
		cf[sym[i]]++;
	uint8_t clen[NCL];
	uint16_t ccode[NCL];
	huff_lengths(cf, NCL, 7, clen);
	huff_codes(clen, NCL, ccode);
	unsigned ncl = NCL;
	while (ncl > 4 && !clen[cl_order[ncl - 1]])
		ncl--;
	put(b, final, 1);
	put(b, 2, 2); /* dynamic Huffman codes */
	put(b, nlit - 257, 5);
	put(b, ndist - 1, 5);
	put(b, ncl - 4, 4);
	for (unsigned i = 0; i < ncl; i++)
		put(b, clen[cl_order[i]], 3);
	for (unsigned i = 0; i < ns; i++) {
		put(b, ccode[sym[i]], clen[sym[i]]);
		if (sym[i] == 16)
			put(b, extra[i], 2);
		else if (sym[i] == 17)
			put(b, extra[i], 3);
		else if (sym[i] == 18)
			put(b, extra[i], 7);
	}
}

static int put_block(bits *b, block *k, const uint32_t *tok, size_t nt, const uint8_t *lsym, bool final)
{
	k->lit[256]++; /* end of block */
	huff_lengths(k->lit, NLITLEN, 15, k->llen);
	huff_lengths(k->dist, NDIST, 15, k->dlen);
	huff_codes(k->llen, NLITLEN, k->lcode);
	huff_codes(k->dlen, NDIST, k->dcode);
	unsigned nlit = NLITLEN, ndist = NDIST;
	while (nlit > 257 && !k->llen[nlit - 1])
		nlit--;
	while (ndist > 1 && !k->dlen[ndist - 1])
		ndist--;
	/* a header takes under 640 bytes (316 lengths of at most 14 bits and
	 * the fixed fields), a symbol under 5 */
	if (reserve(b->o, 640 + 5 * nt + 16))
		return -1;
	put_header(b, k, nlit, ndist, final);
	for (size_t i = 0; i < nt; i++) {
		uint32_t t = tok[i];
		if (!(t & MATCH_FLAG)) {
			put(b, k->lcode[t], k->llen[t]);
			continue;
		}
		unsigned len = t & 0xffff, dsym = (t >> 16) & 0x7fff, ls = lsym[len];
		put(b, k->lcode[257 + ls], k->llen[257 + ls]);
		if (len_bits[ls])
			put(b, len - len_base[ls], len_bits[ls]);
		put(b, k->dcode[dsym], k->dlen[dsym]);
	}
	put(b, k->lcode[256], k->llen[256]);
	memset(k->lit, 0, sizeof(k->lit));
	memset(k->dist, 0, sizeof(k->dist));
	return 0;
}

/* How far in[i..n) repeats the byte before it. */
static size_t run1(const unsigned char *in, size_t i, size_t n)
{
	uint64_t pat = 0x0101010101010101ull * in[i - 1];
	size_t j = i;
	while (j + 8 <= n) {
		uint64_t v;
		memcpy(&v, in + j, 8);
		v ^= pat;
		if (v)
			return j - i + (size_t)(__builtin_ctzll(v) >> 3);
		j += 8;
	}
	while (j < n && in[j] == in[i - 1])
		j++;
	return j - i;
}

/* How far in[i..n) repeats the 3 bytes before it. */
static size_t run3(const unsigned char *in, size_t i, size_t n)
{
	size_t j = i;
	while (j < n && in[j] == in[j - 3])
		j++;
	return j - i;
}

#define ADLER_MOD 65521u

int deflate_runs(const unsigned char *in, size_t n, bool last, deflate_out *out, uint32_t *adler)
{
	/* Adler-32 sums, reduced at each match; between matches they grow by
	 * at most 255 (s1) and s1 (s2) a literal, so 2^24 literals in a row
	 * cannot overflow 64 bits before the forced reduction */
	uint64_t s1 = 1, s2 = 0;
	unsigned lits = 0;
	uint8_t lsym[MAX_MATCH + 1];
	for (unsigned s = 0; s < 29; s++)
		for (unsigned l = len_base[s]; l < (s < 28 ? len_base[s + 1] : 259u); l++)
			lsym[l] = (uint8_t)s;
	uint32_t *tok = malloc(BLOCK_TOKENS * sizeof(uint32_t));
	block *k = calloc(1, sizeof(block));
	int rc = -1;
	if (!tok || !k || reserve(out, 16))
		goto out;
	bits b = { .o = out };
	size_t nt = 0;
	bool final_sent = false;
	for (size_t i = 0; i < n;) {
		size_t len = 0;
		unsigned dsym = 0;
		if (i >= 1 && in[i] == in[i - 1])
			len = run1(in, i, n);
		if (len < MIN_MATCH && i >= 3 && in[i] == in[i - 3]) {
			len = run3(in, i, n);
			dsym = 2; /* distance 3 */
		}
		if (len < MIN_MATCH) {
			s1 += in[i];
			s2 += s1;
			if (++lits == 1u << 24) {
				s1 %= ADLER_MOD;
				s2 %= ADLER_MOD;
				lits = 0;
			}
			k->lit[in[i]]++;
			tok[nt++] = in[i++];
		} else {
			/* whole matches of up to 258; a tail under 3 goes as literals
			 * on the next turns */
			while (len >= MIN_MATCH && nt < BLOCK_TOKENS) {
				unsigned l = len > MAX_MATCH ? MAX_MATCH : (unsigned)len;
				k->lit[257 + lsym[l]]++;
				k->dist[dsym]++;
				tok[nt++] = MATCH_FLAG | dsym << 16 | l;
				if (dsym == 0) {
					/* l bytes of b: s1 grows by b each, s2 by each new s1 */
					uint64_t v = in[i - 1];
					s2 += l * s1 + v * l * (l + 1) / 2;
					s1 += l * v;
				} else {
					for (unsigned q = 0; q < l; q++) {
						s1 += in[i + q];
						s2 += s1;
					}
				}
				s1 %= ADLER_MOD;
				s2 %= ADLER_MOD;
				lits = 0;
				i += l;
				len -= l;
			}
		}
		if (nt == BLOCK_TOKENS) {
			final_sent = last && i == n;
			if (put_block(&b, k, tok, nt, lsym, final_sent))
				goto out;
			nt = 0;
		}
	}
	/* the rest; or an empty block to carry the final bit */
	if ((nt || (last && !final_sent)) && put_block(&b, k, tok, nt, lsym, last))
		goto out;
	if (reserve(out, 16))
		goto out;
	if (!last) {
		/* an empty stored block: the stream continues on a byte boundary */
		put(&b, 0, 3);
		align(&b);
		memcpy(out->p + out->len, "\x00\x00\xff\xff", 4);
		out->len += 4;
	} else {
		align(&b);
	}
	*adler = (uint32_t)((s2 % ADLER_MOD) << 16 | (s1 % ADLER_MOD));
	rc = 0;
out:
	free(tok);
	free(k);
	return rc;
}
