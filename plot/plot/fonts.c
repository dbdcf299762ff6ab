/* The figure's faces from their files (see fonts.h). The FreeType library
 * is reference counted: one reference is ours, one belongs to each face,
 * so it is freed with whichever goes last, ours or cairo's cached fonts. */
#include "fonts.h"

#include <cairo-ft.h>
#include FT_MODULE_H
#include <stdio.h>
#include <stdlib.h>

const char *const plot_font_dirs[] = {
	"/usr/share/fonts/truetype/dejavu",
	"/usr/share/fonts/dejavu-sans-fonts",
	"/usr/share/fonts/dejavu",
	"/usr/share/fonts/TTF",
	NULL,
};

static const char *const font_files[2] = { "DejaVuSans.ttf", "DejaVuSans-Bold.ttf" };

static void *ft_alloc(FT_Memory m, long size)
{
	(void)m;
	return malloc((size_t)size);
}

static void ft_free(FT_Memory m, void *block)
{
	(void)m;
	free(block);
}

static void *ft_realloc(FT_Memory m, long cur, long size, void *block)
{
	(void)m;
	(void)cur;
	return realloc(block, (size_t)size);
}

/* FT_New_Library rather than FT_Init_FreeType: only a library made this way
 * may be released by reference (FT_Done_Library); FT_Done_FreeType would
 * also free the memory record under the faces cairo still holds. The
 * record is constant, so one serves every library. */
static struct FT_MemoryRec_ ft_memory = { NULL, ft_alloc, ft_free, ft_realloc };

static const cairo_user_data_key_t ft_face_key;

/* cairo drops the last reference to a face: the FreeType face and its
 * reference to the library go with it. */
static void ft_face_done(void *p)
{
	FT_Face face = p;
	FT_Library lib = face->glyph->library;
	FT_Done_Face(face);
	FT_Done_Library(lib);
}

static cairo_font_face_t *face_from_file(FT_Library lib, const char *path)
{
	FT_Face face;
	if (FT_New_Face(lib, path, 0, &face))
		return NULL;
	cairo_font_face_t *cf = cairo_ft_font_face_create_for_ft_face(face, 0);
	FT_Reference_Library(lib);
	if (cairo_font_face_status(cf) != CAIRO_STATUS_SUCCESS ||
	    cairo_font_face_set_user_data(cf, &ft_face_key, face, ft_face_done) != CAIRO_STATUS_SUCCESS) {
		cairo_font_face_destroy(cf);
		ft_face_done(face);
		return NULL;
	}
	return cf;
}

static bool load_from(plot_fonts *f, const char *dir)
{
	for (int k = 0; k < 2; k++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", dir, font_files[k]);
		f->face[k] = face_from_file(f->ft, path);
		if (!f->face[k]) {
			if (k)
				cairo_font_face_destroy(f->face[0]);
			f->face[0] = NULL;
			return false;
		}
	}
	snprintf(f->dir, sizeof(f->dir), "%s", dir);
	return true;
}

void plot_fonts_open(plot_fonts *f, const char *const *dirs)
{
	*f = (plot_fonts){ 0 };
	if (!dirs)
		dirs = plot_font_dirs;
	if (!FT_New_Library(&ft_memory, &f->ft)) {
		FT_Add_Default_Modules(f->ft);
		for (size_t i = 0; dirs[i]; i++)
			if (load_from(f, dirs[i]))
				return;
		FT_Done_Library(f->ft);
		f->ft = NULL;
	}
	f->fontconfig = true;
	for (int k = 0; k < 2; k++)
		f->face[k] = cairo_toy_font_face_create("DejaVu Sans", CAIRO_FONT_SLANT_NORMAL,
							k ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
}

void plot_fonts_close(plot_fonts *f)
{
	if (!f)
		return;
	for (int k = 0; k < 2; k++) {
		cairo_font_face_destroy(f->face[k]);
		f->face[k] = NULL;
	}
	if (f->ft)
		FT_Done_Library(f->ft);
	f->ft = NULL;
}

void plot_fonts_setup(const plot_fonts *f, cairo_t *cr)
{
	(void)f;
	cairo_font_options_t *fo = cairo_font_options_create();
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_ON);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);
}

void plot_fonts_use(const plot_fonts *f, cairo_t *cr, double size, bool bold)
{
	cairo_set_font_face(cr, f->face[bold]);
	cairo_set_font_size(cr, size);
}
