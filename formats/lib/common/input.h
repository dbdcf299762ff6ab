/* input.h (internal) — an opened input file with a peek window.
 *
 * Content detection needs the first bytes of a file before we know which
 * source will read it; standard input cannot be rewound, so the bytes peeked
 * are kept and handed out first by br_input_read(). */
#ifndef BLKREEL_INPUT_H
#define BLKREEL_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "blkreel/error.h"

#define BR_INPUT_PEEK_MAX 4096

typedef struct br_input {
	int fd;
	bool owns_fd;          /* false for standard input */
	bool seekable;         /* regular file: pread works */
	int64_t size;          /* regular file size, else -1 */
	char name[512];        /* path or "<stdin>" for error messages */
	uint8_t peek[BR_INPUT_PEEK_MAX];
	size_t peek_len;       /* bytes held in peek */
	size_t peek_pos;       /* bytes of peek already consumed */
	int64_t offset;        /* bytes consumed by the caller so far */
} br_input;

/* path "-" means standard input. */
int br_input_open(br_input *in, const char *path, br_error *err);

/* Make at least n bytes (n <= BR_INPUT_PEEK_MAX) available at *data
 * without consuming them. Returns how many are available (fewer at EOF) or
 * a negative br_code. Only valid before the first br_input_read(). */
ssize_t br_input_peek(br_input *in, size_t n, const uint8_t **data, br_error *err);

/* Read up to n bytes; returns bytes read (0 at EOF, short only at EOF) or
 * a negative br_code. Advances in->offset. */
ssize_t br_input_read(br_input *in, void *buf, size_t n, br_error *err);

/* For seekable inputs: read exactly at an absolute offset, independent of
 * the sequential position. Returns bytes read (short at EOF). */
ssize_t br_input_pread(br_input *in, void *buf, size_t n, int64_t off, br_error *err);

/* Sequential skip to an absolute offset >= current (lseek when seekable,
 * else read and discard). */
int br_input_skip_to(br_input *in, int64_t off, br_error *err);

void br_input_close(br_input *in);

#endif
