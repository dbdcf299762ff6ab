/* writer_impl.h (internal) — output backends behind br_writer.
 *
 * Contracts:
 *  open   state points at state_size zeroed bytes; path "-" = stdout where
 *         the backend allows it.
 *  write  one event; raw/raw_len is its encoded on-disk form (fixed part +
 *         pdu) in host order, so backends need not re-encode.
 *  flush  optional: end the current unit (the compressed writer's gzip
 *         member) so everything so far is readable; the tests use it to
 *         make many members out of few events.
 *  close  finish the output and free what open allocated (always called
 *         once, also after errors); return the first error.
 *  remove optional: delete every file this backend writes for path (after
 *         close, on abort); NULL means unlink(path) unless path is "-". */
#ifndef BLKREEL_WRITER_IMPL_H
#define BLKREEL_WRITER_IMPL_H

#include <stddef.h>
#include "blkreel/writer.h"

typedef struct br_writer_ops {
	const char *name;
	size_t state_size;
	int (*open)(void *state, const char *path, const br_writer_opts *opts, br_error *err);
	int (*write)(void *state, const br_event *ev, const uint8_t *raw, size_t raw_len,
		     br_error *err);
	int (*flush)(void *state, br_error *err);
	int (*close)(void *state, br_error *err);
	void (*remove)(const char *path);
} br_writer_ops;

extern const br_writer_ops br_stream_writer_ops;
extern const br_writer_ops br_split_writer_ops;
extern const br_writer_ops br_tgz_writer_ops;
extern const br_writer_ops br_iolog_writer_ops; /* out_iolog.c */
extern const br_writer_ops br_csv_writer_ops;   /* out_csv.c */
extern const br_writer_ops br_perfetto_writer_ops; /* out_perfetto.c */

#endif
