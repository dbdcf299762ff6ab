/* fdout.h (internal) — a buffered writer on a file descriptor that reports
 * errors with the file name and the byte offset where they happened. */
#ifndef BLKREEL_FDOUT_H
#define BLKREEL_FDOUT_H

#include <stddef.h>
#include <stdint.h>
#include "blkreel/error.h"

typedef struct br_fdout {
	int fd;
	int owns_fd;
	char name[512];
	uint8_t *buf;
	size_t len, cap;
	uint64_t written;   /* bytes handed to write(2) so far */
} br_fdout;

/* path "-" = standard output. Creates/truncates a file. */
int br_fdout_open(br_fdout *o, const char *path, size_t bufsize, br_error *err);
int br_fdout_write(br_fdout *o, const void *data, size_t len, br_error *err);
int br_fdout_flush(br_fdout *o, br_error *err);
/* Flushes (unless an error is pending), closes, frees; returns first error. */
int br_fdout_close(br_fdout *o, br_error *err);

/* write(2) all of data, retrying on EINTR and short writes. */
int br_write_all(int fd, const void *data, size_t len, const char *name, uint64_t offset,
		 br_error *err);

#endif
