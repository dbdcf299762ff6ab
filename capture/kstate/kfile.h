/* kfile.h — reading and writing one small kernel file (sysfs, tracefs):
 * the values the journal (kstate.h) records before it changes them and
 * writes back when it restores them. Depends on nothing but the error
 * convention. */
#ifndef BLKREEL_CAPTURE_KFILE_H
#define BLKREEL_CAPTURE_KFILE_H

#include <stddef.h>

#include "blkreel/error.h"

/* Read a small kernel file into buf without the trailing newline;
 * buffer_size_kb's "7 (expanded: 1408)" gives "1408". */
int cap_kstate_read(const char *path, char *buf, size_t size, br_error *err);

/* Write value to it (one write, as the kernel wants: no partial values). */
int cap_kstate_write_file(const char *path, const char *value, br_error *err);

#endif
