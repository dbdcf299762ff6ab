/* Image-sized buffers on huge pages where the kernel allows (see
 * bigbuf.h). With transparent huge pages set to "madvise" (Debian's
 * default) only madvised, 2 MiB-aligned ranges get them, so the mapping is
 * made larger and trimmed to an aligned start. */
#include "bigbuf.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)
/* below this, an ordinary allocation faults in few enough pages */
#define BIGBUF_MIN ((size_t)1 << 20)

static size_t round_up(size_t n)
{
	return (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

void *bigbuf_alloc(size_t n)
{
	if (n < BIGBUF_MIN)
		return calloc(1, n ? n : 1);
	size_t len = round_up(n);
	unsigned char *m = mmap(NULL, len + HUGE_PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	unsigned char *p = (unsigned char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	if (p > m)
		munmap(m, (size_t)(p - m));
	if (m + HUGE_PAGE > p)
		munmap(p + len, (size_t)(m + HUGE_PAGE - p));
	/* advice only: without huge pages this is an ordinary mapping */
	madvise(p, len, MADV_HUGEPAGE);
	return p;
}

void bigbuf_free(void *p, size_t n)
{
	if (!p)
		return;
	if (n < BIGBUF_MIN)
		free(p);
	else
		munmap(p, round_up(n));
}

typedef struct surface_buf {
	void *p;
	size_t n;
} surface_buf;

static const cairo_user_data_key_t surface_buf_key;

static void surface_buf_done(void *arg)
{
	surface_buf *b = arg;
	bigbuf_free(b->p, b->n);
	free(b);
}

cairo_surface_t *bigbuf_surface(int w, int h)
{
	int stride = cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, w);
	surface_buf *b = malloc(sizeof(*b));
	if (stride < 0 || h < 0 || !b) {
		free(b);
		return cairo_image_surface_create(CAIRO_FORMAT_ARGB32, -1, -1);
	}
	b->n = (size_t)stride * (size_t)h;
	b->p = bigbuf_alloc(b->n);
	if (!b->p) {
		free(b);
		return cairo_image_surface_create(CAIRO_FORMAT_ARGB32, -1, -1);
	}
	cairo_surface_t *s = cairo_image_surface_create_for_data(b->p, CAIRO_FORMAT_ARGB32, w, h, stride);
	if (cairo_surface_set_user_data(s, &surface_buf_key, b, surface_buf_done) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		surface_buf_done(b);
		return cairo_image_surface_create(CAIRO_FORMAT_ARGB32, -1, -1);
	}
	return s;
}
