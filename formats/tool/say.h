/* tool/say.h — how a blkreel tool speaks on stderr: "TOOL: MESSAGE" for a
 * runtime failure or a warning, the same plus "Try 'TOOL --help' ..." for a
 * usage error (the GNU shape), and the option-argument checks that end in
 * such a usage error. The library never prints; this is where its errors
 * (br_error) are put into words for the user. */
#ifndef BLKREEL_TOOL_SAY_H
#define BLKREEL_TOOL_SAY_H

#include <stdbool.h>
#include <stdint.h>

#include "blkreel/error.h"
#include "blkreel/reader.h"
#include "tool/exit.h"

/* "PROG: MESSAGE\n" on stderr. */
void tool_say(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "PROG: WHAT: ERROR\n" (or "PROG: ERROR\n" when what is NULL) on stderr,
 * err put into words by br_error_format; returns TOOL_EXIT_FAIL. */
tool_exit tool_say_error(const char *prog, const char *what, const br_error *err);

/* A usage error on stderr; returns TOOL_EXIT_USAGE. */
tool_exit tool_usage(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A whole number from lo to hi for option (e.g. "--threads") into *out:
 * TOOL_EXIT_OK, or the usage error "OPTION: 'ARG' is not a count from LO
 * to HI" and TOOL_EXIT_USAGE. */
tool_exit tool_arg_count(const char *prog, const char *option, const char *arg, uint64_t lo,
			 uint64_t hi, uint64_t *out);

/* --from (to false) or --to (to true) ARG, a time after the trace's start,
 * into the reader's window, or the usage error "--from: 'ARG' is not a time
 * (...)". */
tool_exit tool_arg_window(const char *prog, bool to, const char *arg, br_reader_opts *o);

/* After the options: the usage error "--to is before --from" when it is. */
tool_exit tool_window_check(const char *prog, const br_reader_opts *o);

/* A device number for a per-device option (--dev): "MAJ,MIN" or "MAJ:MIN",
 * into *dev (BR_MKDEV encoding), or the usage error "OPTION: 'ARG' is not
 * MAJ,MIN" or "OPTION: 'ARG' is out of range" (a major from 0 to 4095, a
 * minor from 0 to 1048575, what blk_io_trace can hold). */
tool_exit tool_arg_device(const char *prog, const char *option, const char *arg, uint32_t *dev);

#endif
