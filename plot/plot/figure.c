/* Rendering the figure into a file: pick the output by extension, draw
 * into a temporary file beside the target, rename when complete. */
#include "output.h"
#include "render.h"
#include "summary_row.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int plot_make_tmp(const char *path, char *tmp, size_t n, br_error *err)
{
	snprintf(tmp, n, "%s.tmp-XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0)
		return br_error_set(err, BR_ESYS, errno, path, -1, "cannot create a file beside it");
	/* mkstemp makes 0600; the finished file gets the usual 0666 & ~umask */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask)) {
		int e = errno;
		close(fd);
		unlink(tmp);
		return br_error_set(err, BR_ESYS, e, tmp, -1, "cannot set permissions");
	}
	close(fd);
	return 0;
}

int plot_text_chunks(const plot_opts *o, const plot_data *d, png_text_kv *kv, char (*buf)[1024],
		     char (*keys)[32])
{
	int n = 0;
	kv[n].key = "Software";
	kv[n++].value = "blkreel-plot " BLKREEL_VERSION;
	if (o->cmdline) {
		kv[n].key = "Command";
		kv[n++].value = o->cmdline;
	}
	for (size_t t = 0; t < d->n; t++) {
		snprintf(keys[t], 32, "Trace %zu", t + 1);
		trace_row_text(&d->tr[t], buf[t], 1024);
		kv[n].key = keys[t];
		kv[n++].value = buf[t];
	}
	return n;
}

bool plot_output_ok(const char *path)
{
	return plot_output_for(path) != NULL;
}

int plot_write_figure(const plot_opts *o, const char *path, plot_draw_fn draw, const void *arg,
		      const png_text_kv *kv, size_t nkv, br_error *err)
{
	const plot_output *out = plot_output_for(path);
	if (!out)
		return br_error_set(err, BR_EINVAL, 0, path, -1,
				    "unknown output type (the name must end in .png, .svg or .pdf)");
	char tmp[4096];
	int rc = plot_make_tmp(path, tmp, sizeof(tmp), err);
	if (rc)
		return rc;
	double dpi = o->dpi > 0 ? o->dpi : 96;
	cairo_surface_t *s = out->create(tmp, o->width, o->height, dpi);
	cairo_t *cr = cairo_create(s);
	if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
		rc = br_error_set(err, BR_ESYS, 0, path, -1, "cannot create the figure: %s",
				  cairo_status_to_string(cairo_status(cr)));
		goto out;
	}
	if (out->ext[1] != 'p' || out->ext[2] != 'n')
		cairo_scale(cr, 72.0 / dpi, 72.0 / dpi);
	rc = draw(cr, o->width, o->height, out->pixel(dpi), arg, err);
	if (rc)
		goto out;
	cairo_destroy(cr);
	cr = NULL;
	rc = out->finish(s, tmp, kv, nkv, err);
	if (!rc && rename(tmp, path))
		rc = br_error_set(err, BR_ESYS, errno, path, -1, "cannot rename the finished file");
out:
	if (cr)
		cairo_destroy(cr);
	cairo_surface_destroy(s);
	if (rc) {
		unlink(tmp);
		if (!err->file[0])
			snprintf(err->file, sizeof(err->file), "%s", path);
	}
	return rc;
}

typedef struct figure_arg {
	const plot_opts *o;
	const plot_data *d;
	const plot_fonts *fonts;
} figure_arg;

static int draw_figure(cairo_t *cr, double W, double H, double px, const void *arg, br_error *err)
{
	const figure_arg *a = arg;
	return render_figure(cr, a->o, a->d, NULL, a->fonts, W, H, px, err);
}

int plot_render_file(const plot_opts *o, const plot_data *d, const plot_fonts *fonts, const char *path,
		     br_error *err)
{
	png_text_kv kv[2 + PLOT_MAX_TRACES];
	char buf[PLOT_MAX_TRACES][1024], keys[PLOT_MAX_TRACES][32];
	int nkv = plot_text_chunks(o, d, kv, buf, keys);
	figure_arg a = { o, d, fonts };
	return plot_write_figure(o, path, draw_figure, &a, kv, (size_t)nkv, err);
}

/* cairo and fontconfig keep font caches for the life of the process; give
 * them back at exit so leak checkers see a clean run. Our FreeType faces go
 * with cairo's last reference. FcFini comes from the fontconfig cairo
 * already loaded (looked up at run time, so the link line needs nothing
 * more), and is called only if the fallback faces went through it. */
void plot_release_static(plot_fonts *fonts)
{
	bool fc = !fonts || fonts->fontconfig;
	plot_fonts_close(fonts);
	cairo_debug_reset_static_data();
	void (*fc_fini)(void) = fc ? (void (*)(void))dlsym(RTLD_DEFAULT, "FcFini") : NULL;
	if (fc_fini)
		fc_fini();
}
