/* tool/sibling.h — run another blkreel tool: the one installed beside this
 * program (its /proc/self/exe's folder) unless the user named another.
 * blkreel-report embeds blkreel-plot's figure in its HTML page and
 * blkreel-replay --ab draws its rounds with it; cairo and libpng stay
 * linked into blkreel-plot alone. */
#ifndef BLKREEL_TOOL_SIBLING_H
#define BLKREEL_TOOL_SIBLING_H

#include <stddef.h>

/* The program to run: override when given (an empty one: "not wanted"),
 * else NAME beside this program. NULL when there is none to run, with
 * why saying so ("blkreel-plot is not installed (PATH)"). */
const char *tool_sibling_find(const char *name, const char *override, const char *argv0, char *buf, size_t size,
			      char *why, size_t whysize);

/* Run argv (argv[0] the program's path) with its standard output on
 * /dev/null and wait for it. 0 when it ran and exited 0; else -1 with why
 * saying what went wrong. */
int tool_sibling_run(const char *const *argv, char *why, size_t whysize);

#endif
