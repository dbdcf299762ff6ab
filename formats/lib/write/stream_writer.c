/* BR_OUT_STREAM: every record, in the order given, in one file. */
#include "common/fdout.h"
#include "common/writer_impl.h"

typedef struct stream_writer {
	br_fdout out;
} stream_writer;

static int stream_open(void *state, const char *path, const br_writer_opts *opts, br_error *err)
{
	(void)opts;
	stream_writer *w = state;
	return br_fdout_open(&w->out, path, 1u << 20, err);
}

static int stream_write(void *state, const br_event *ev, const uint8_t *raw, size_t raw_len,
			br_error *err)
{
	(void)ev;
	stream_writer *w = state;
	return br_fdout_write(&w->out, raw, raw_len, err);
}


static int stream_close(void *state, br_error *err)
{
	stream_writer *w = state;
	if (!w->out.buf)
		return 0;
	return br_fdout_close(&w->out, err);
}

const br_writer_ops br_stream_writer_ops = {
	.name = "blk_io_trace stream",
	.state_size = sizeof(stream_writer),
	.open = stream_open,
	.write = stream_write,
	.close = stream_close,
};
