#include "blkreel/writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/writer_impl.h"

struct br_writer {
	const br_writer_ops *ops;
	char *path;
	uint64_t events, bytes;
	int sticky;
	uint8_t raw[BR_RECORD_SIZE + BR_PDU_MAX];
	max_align_t state[]; /* ops->state_size bytes */
};

static const br_writer_ops *ops_for(enum br_output_kind kind)
{
	switch (kind) {
	case BR_OUT_STREAM: return &br_stream_writer_ops;
	case BR_OUT_SPLIT: return &br_split_writer_ops;
	case BR_OUT_COMPRESSED: return &br_tgz_writer_ops;
	case BR_OUT_FIO_IOLOG: return &br_iolog_writer_ops;
	case BR_OUT_CSV: return &br_csv_writer_ops;
	case BR_OUT_PERFETTO: return &br_perfetto_writer_ops;
	}
	return NULL;
}

enum br_output_kind br_output_kind_for_path(const char *path)
{
	size_t n = strlen(path);
	if (n >= 3 && strcmp(path + n - 3, ".gz") == 0)
		return BR_OUT_COMPRESSED;
	if (n >= 6 && strcmp(path + n - 6, ".iolog") == 0)
		return BR_OUT_FIO_IOLOG;
	if (n >= 4 && strcmp(path + n - 4, ".csv") == 0)
		return BR_OUT_CSV;
	if (n >= 14 && strcmp(path + n - 14, ".perfetto.json") == 0)
		return BR_OUT_PERFETTO;
	return BR_OUT_STREAM;
}

int br_writer_open(br_writer **out, enum br_output_kind kind, const char *path,
		   const br_writer_opts *opts, br_error *err)
{
	*out = NULL;
	const br_writer_ops *ops = ops_for(kind);
	if (!ops)
		return br_error_set(err, BR_EINVAL, 0, path, -1, "unknown output kind %d", kind);
	br_writer_opts o = { 0 };
	if (opts)
		o = *opts;
	if (o.level == 0)
		o.level = BR_LEVEL_DEFAULT;
	if (o.level < 1 || o.level > 9)
		return br_error_set(err, BR_EINVAL, 0, path, -1,
				    "compression level %d is not in 1..9", o.level);
	br_writer *w = calloc(1, sizeof *w + ops->state_size);
	if (!w)
		return br_error_set(err, BR_ENOMEM, ENOMEM, path, -1, "out of memory");
	w->ops = ops;
	w->path = strdup(path);
	int rc = w->path ? ops->open(w->state, path, &o, err)
			 : br_error_set(err, BR_ENOMEM, ENOMEM, path, -1, "out of memory");
	if (rc) {
		free(w->path);
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

int br_writer_write(br_writer *w, const br_event *ev, br_error *err)
{
	if (w->sticky)
		return br_error_set(err, w->sticky, 0, NULL, -1, "writer failed earlier");
	if (ev->pdu_len > BR_PDU_MAX || (ev->pdu_len && !ev->pdu))
		return br_error_set(err, BR_EINVAL, 0, NULL, -1, "bad pdu (length %u)",
				    ev->pdu_len);
	br_record_encode(ev, w->raw);
	if (ev->pdu_len)
		memcpy(w->raw + BR_RECORD_SIZE, ev->pdu, ev->pdu_len);
	size_t len = BR_RECORD_SIZE + ev->pdu_len;
	int rc = w->ops->write(w->state, ev, w->raw, len, err);
	if (rc) {
		if (rc != BR_EORDER)
			w->sticky = rc;
		return rc;
	}
	w->events++;
	w->bytes += len;
	return 0;
}

int br_writer_close(br_writer *w, br_error *err)
{
	if (!w)
		return 0;
	int rc = w->ops->close(w->state, err);
	if (!rc && w->sticky)
		rc = w->sticky;
	free(w->path);
	free(w);
	return rc;
}

void br_writer_abort(br_writer *w)
{
	if (!w)
		return;
	br_error ignored;
	w->ops->close(w->state, &ignored);
	if (w->ops->remove)
		w->ops->remove(w->path);
	else if (strcmp(w->path, "-") != 0)
		unlink(w->path);
	free(w->path);
	free(w);
}

uint64_t br_writer_events(const br_writer *w)
{
	return w->events;
}

uint64_t br_writer_bytes(const br_writer *w)
{
	return w->bytes;
}
