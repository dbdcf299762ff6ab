/* Colours of the figure. Okabe & Ito, "Color Universal Design" (2008). */
#include "render.h"

#define HEX(v) { ((v) >> 16 & 255) / 255.0, ((v) >> 8 & 255) / 255.0, ((v) & 255) / 255.0 }

const rgb PAL_READ = HEX(0x0072B2);   /* blue */
const rgb PAL_WRITE = HEX(0xE69F00);  /* orange */
const rgb PAL_OTHER = HEX(0x999999);  /* grey: discards and the rest */
const rgb PAL_TOTAL = HEX(0x333333);
const rgb PAL_D2C = HEX(0x009E73);    /* bluish green */
const rgb PAL_Q2C = HEX(0xCC79A7);    /* reddish purple */
const rgb PAL_TRACE[PLOT_MAX_TRACES] = {
	HEX(0x0072B2), HEX(0xD55E00), HEX(0x009E73), HEX(0xCC79A7),
	HEX(0x56B4E9), HEX(0xE69F00), HEX(0x000000), HEX(0xF0E442),
};
/* The shade of each trace for writes in a comparison's io panel (reads
 * take PAL_TRACE, the hue of the trace's lines): a lighter tint of the
 * same hue, so hue tells the trace and lightness the direction, which
 * survives every kind of colour blindness. The first two pairs are both
 * Okabe-Ito colours; the tints are distinct from every read hue for up to
 * four traces. */
const rgb PAL_TRACE_WRITE[PLOT_MAX_TRACES] = {
	HEX(0x56B4E9), HEX(0xE69F00), HEX(0x8FDCC4), HEX(0xEBBAD6),
	HEX(0xB3DDF5), HEX(0xF5D27F), HEX(0x8C8C8C), HEX(0xF8F2A6),
};
const rgb PAL_GRID = HEX(0xE8E8E8);
const rgb PAL_AXIS = HEX(0x666666);
const rgb PAL_TEXT = HEX(0x222222);
const rgb PAL_MUTED = HEX(0x666666);
