/* blkreel/error.h — one error convention for the whole library.
 *
 * Every fallible call returns 0 (or a positive count) on success and a
 * negative br_code on failure, and fills a caller-owned br_error with the
 * specifics: which file, which byte offset, the errno if any, and a message.
 * The library never prints and never exits; tools format the record with
 * br_error_format() and choose the exit code. */
#ifndef BLKREEL_ERROR_H
#define BLKREEL_ERROR_H

#include <stddef.h>
#include <stdint.h>

enum br_code {
	BR_OK = 0,
	BR_ESYS = -1,      /* a system call failed; sys_errno says why */
	BR_EFORMAT = -2,   /* the input is not what it claims to be (bad magic, garbage) */
	BR_ETRUNC = -3,    /* the input ends in the middle of a record or member */
	BR_ECORRUPT = -4,  /* a compressed member is damaged (CRC, inflate error) */
	BR_ENOMEM = -5,
	BR_EINVAL = -6,    /* a bad argument from the caller */
	BR_EUNSUP = -7,    /* well-formed but not supported (unknown version) */
	BR_EORDER = -8,    /* events handed to a writer out of time order */
};

#define BR_ERROR_FILE_MAX 512
#define BR_ERROR_MSG_MAX 512

typedef struct br_error {
	int code;                        /* enum br_code, 0 when clear */
	int sys_errno;                   /* errno when code == BR_ESYS (or a cause), else 0 */
	int64_t offset;                  /* byte offset in file, -1 when not meaningful */
	char file[BR_ERROR_FILE_MAX];    /* path, "<stdin>", or "" */
	char msg[BR_ERROR_MSG_MAX];      /* specifics, without file/offset */
} br_error;

/* Generic text for a code ("truncated input", ...). */
const char *br_strerror(int code);

/* Clear an error record (NULL is fine). */
void br_error_clear(br_error *err);

/* Fill err (if not NULL) and return code, so callers can write
 * `return br_error_set(err, BR_EFORMAT, 0, path, off, "bad magic 0x%08x", m);`
 * file may be NULL; offset -1 when not meaningful. */
int br_error_set(br_error *err, int code, int sys_errno, const char *file,
		 int64_t offset, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* "FILE: byte OFFSET: MESSAGE: strerror(errno)" with the parts that are
 * present. Returns buf. */
char *br_error_format(const br_error *err, char *buf, size_t size);

#endif
