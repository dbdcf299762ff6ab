/* --movie: an animated PNG (APNG) of the io panel with a sliding time
 * window and a cursor on the line panels. Frames are drawn into two images
 * in turn: while one is drawn, the other is encoded (apng.c, libpng, one
 * thread) on a thread of its own, so the encoding hides behind the
 * drawing. */
#include "output.h"
#include "render.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define FRAME_DELAY_NUM 1
#define FRAME_DELAY_DEN 10 /* 10 frames per second */

bool plot_movie_name_ok(const char *path)
{
	size_t n = strlen(path);
	return (n > 4 && !strcasecmp(path + n - 4, ".png")) ||
	       (n > 5 && !strcasecmp(path + n - 5, ".apng"));
}

static int draw_frame(const plot_opts *o, const plot_data *d, const plot_fonts *fonts, unsigned i,
		      unsigned n, cairo_surface_t *img, int w, int h, br_error *err)
{
	uint64_t span = d->t1 - d->t0, win = span / 5 ? span / 5 : 1;
	uint64_t end = d->t0 + win + (n > 1 ? (span - win) * i / (n - 1) : span - win);
	frame_opts f = {
		.has_io_window = true, .io_t0 = end - win, .io_t1 = end,
		.has_cursor = true, .cursor = end,
		.panels = 1u << PANEL_IO | 1u << PANEL_TPUT | 1u << PANEL_IOPS | 1u << PANEL_LAT,
	};
	cairo_t *cr = cairo_create(img);
	int rc = render_figure(cr, o, d, &f, fonts, w, h, 1.0, err);
	cairo_destroy(cr);
	return rc;
}

/* One frame to encode, on the encoder thread. */
typedef struct encode_job {
	plot_apng *a;
	cairo_surface_t *img;
	int rc;
	br_error err;
} encode_job;

static void *encode_frame(void *arg)
{
	encode_job *j = arg;
	j->rc = plot_apng_frame(j->a, cairo_image_surface_get_data(j->img),
				cairo_image_surface_get_stride(j->img), FRAME_DELAY_NUM, FRAME_DELAY_DEN,
				&j->err);
	return NULL;
}

/* Wait for the frame being encoded, if any; its result. */
static int encode_wait(pthread_t *tid, bool *running, encode_job *j, br_error *err)
{
	if (!*running)
		return 0;
	pthread_join(*tid, NULL);
	*running = false;
	if (j->rc)
		*err = j->err;
	return j->rc;
}

int plot_write_movie(const plot_opts *o, const plot_data *d, const plot_fonts *fonts, const char *path,
		     br_error *err)
{
	int w = o->width > 960 ? 960 : (int)o->width;
	int h = (int)((double)o->height * w / o->width);
	if (h > 720)
		h = 720;
	if (h < 540)
		h = 540;
	unsigned n = o->movie_frames ? o->movie_frames : 60;
	char tmp[4096];
	int rc = plot_make_tmp(path, tmp, sizeof(tmp), err);
	if (rc)
		return rc;
	cairo_surface_t *img[2] = { cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h),
				    cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h) };
	FILE *fp = NULL;
	plot_apng *a = NULL;
	pthread_t tid;
	bool running = false;
	encode_job job = { 0 };
	if (cairo_surface_status(img[0]) != CAIRO_STATUS_SUCCESS ||
	    cairo_surface_status(img[1]) != CAIRO_STATUS_SUCCESS) {
		rc = br_error_set(err, BR_ENOMEM, 0, path, -1, "out of memory for the movie");
		goto out;
	}
	fp = fopen(tmp, "wb");
	if (!fp) {
		rc = br_error_set(err, BR_ESYS, errno, tmp, -1, "cannot create");
		goto out;
	}
	const png_text_kv txt[2] = {
		{ "Software", "blkreel-plot " BLKREEL_VERSION },
		{ "Comment", o->cmdline ? o->cmdline : "" },
	};
	rc = plot_apng_open(&a, fp, w, h, n, txt, 2, path, err);
	if (rc)
		goto out;
	for (unsigned i = 0; i < n; i++) {
		cairo_surface_t *im = img[i % 2];
		rc = draw_frame(o, d, fonts, i, n, im, w, h, err);
		if (rc)
			goto out;
		cairo_surface_flush(im);
		/* the previous frame, drawn into the other image, is done */
		rc = encode_wait(&tid, &running, &job, err);
		if (rc)
			goto out;
		job = (encode_job){ .a = a, .img = im };
		if (!pthread_create(&tid, NULL, encode_frame, &job)) {
			running = true;
		} else {
			encode_frame(&job); /* no thread: in turn */
			if (job.rc) {
				*err = job.err;
				rc = job.rc;
				goto out;
			}
		}
	}
	rc = encode_wait(&tid, &running, &job, err);
	if (!rc)
		rc = plot_apng_close(a, err);
	a = NULL;
out:
	if (running)
		pthread_join(tid, NULL); /* a failure while a frame was encoding */
	plot_apng_close(a, NULL);
	if (fp && fclose(fp) && !rc)
		rc = br_error_set(err, BR_ESYS, errno, tmp, -1, "write failed");
	if (!rc && rename(tmp, path))
		rc = br_error_set(err, BR_ESYS, errno, path, -1, "cannot rename the finished file");
	if (rc)
		unlink(tmp);
	cairo_surface_destroy(img[0]);
	cairo_surface_destroy(img[1]);
	return rc;
}
