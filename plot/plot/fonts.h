/* fonts.h — the figure's two faces (DejaVu Sans and its bold), loaded
 * straight from their files with FreeType: asking fontconfig costs more
 * than drawing a small figure (it parses every /etc/fonts file and scans
 * the font folders). When the files are nowhere to be found, cairo's toy
 * face "DejaVu Sans" (through fontconfig) stands in. */
#ifndef BLKREEL_PLOT_FONTS_H
#define BLKREEL_PLOT_FONTS_H

#include <cairo.h>
#include <ft2build.h>
#include FT_FREETYPE_H
#include <stdbool.h>

typedef struct plot_fonts {
	FT_Library ft;                 /* our reference; NULL in the fallback */
	cairo_font_face_t *face[2];    /* regular, bold */
	bool fontconfig;               /* the toy faces (fontconfig) are in use */
	char dir[256];                 /* where the files were found, or "" */
} plot_fonts;

/* Folders tried in order (Debian, Fedora, older Fedora, Arch), NULL-ended. */
extern const char *const plot_font_dirs[];

/* Fill f from the first folder of dirs (NULL: plot_font_dirs) holding both
 * DejaVuSans.ttf and DejaVuSans-Bold.ttf, else with the toy faces. Never
 * fails: a face that cannot be made shows up as a cairo error when drawn. */
void plot_fonts_open(plot_fonts *f, const char *const *dirs);
/* Drop f's references (NULL is fine). The FreeType faces live on while
 * cairo's caches hold them and go with the last reference. */
void plot_fonts_close(plot_fonts *f);

/* Make cr draw with face 0 or 1 at size, with fixed options (grey
 * antialiasing, slight hinting, hinted metrics: what Debian's fontconfig
 * gives), so the look does not depend on the system's font config. */
void plot_fonts_setup(const plot_fonts *f, cairo_t *cr);
void plot_fonts_use(const plot_fonts *f, cairo_t *cr, double size, bool bold);

#endif
