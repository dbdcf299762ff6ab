#include "blkreel/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *br_strerror(int code)
{
	switch (code) {
	case BR_OK: return "success";
	case BR_ESYS: return "system error";
	case BR_EFORMAT: return "not a valid trace";
	case BR_ETRUNC: return "truncated input";
	case BR_ECORRUPT: return "damaged compressed data";
	case BR_ENOMEM: return "out of memory";
	case BR_EINVAL: return "invalid argument";
	case BR_EUNSUP: return "unsupported";
	case BR_EORDER: return "events out of time order";
	default: return "unknown error";
	}
}

void br_error_clear(br_error *err)
{
	if (!err)
		return;
	err->code = 0;
	err->sys_errno = 0;
	err->offset = -1;
	err->file[0] = 0;
	err->msg[0] = 0;
}

int br_error_set(br_error *err, int code, int sys_errno, const char *file,
		 int64_t offset, const char *fmt, ...)
{
	if (!err)
		return code;
	err->code = code;
	err->sys_errno = sys_errno;
	err->offset = offset;
	snprintf(err->file, sizeof err->file, "%s", file ? file : "");
	if (fmt) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
	} else {
		snprintf(err->msg, sizeof err->msg, "%s", br_strerror(code));
	}
	return code;
}

char *br_error_format(const br_error *err, char *buf, size_t size)
{
	size_t n = 0;
	if (!size)
		return buf;
	buf[0] = 0;
#define APPEND(...)                                                        \
	do {                                                               \
		if (n < size) {                                            \
			int w = snprintf(buf + n, size - n, __VA_ARGS__);  \
			if (w > 0)                                         \
				n += (size_t)w;                            \
		}                                                          \
	} while (0)
	if (!err) {
		APPEND("unknown error");
		return buf;
	}
	if (err->file[0])
		APPEND("%s: ", err->file);
	if (err->offset >= 0)
		APPEND("byte %lld: ", (long long)err->offset);
	APPEND("%s", err->msg[0] ? err->msg : br_strerror(err->code));
	if (err->sys_errno)
		APPEND(": %s", strerror(err->sys_errno));
#undef APPEND
	return buf;
}
