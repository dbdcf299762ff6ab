/* bigbuf.h — zeroed buffers for whole images (the figure, the io panel's
 * counts), mapped so the kernel may back them with 2 MiB pages: a 6 MB
 * figure then costs a few page faults instead of 1,500, and here a fault
 * (~1.5 µs in a VM, with its cgroup accounting) costs more than zeroing
 * the page does. */
#ifndef BLKREEL_PLOT_BIGBUF_H
#define BLKREEL_PLOT_BIGBUF_H

#include <cairo.h>
#include <stddef.h>

/* n zeroed bytes, or NULL (errno set). Free with bigbuf_free(p, n). */
void *bigbuf_alloc(size_t n);
void bigbuf_free(void *p, size_t n);

/* An ARGB32 image surface over a bigbuf, freed with the surface; an error
 * surface when out of memory (as cairo_image_surface_create). */
cairo_surface_t *bigbuf_surface(int w, int h);

#endif
