#include "tool/say.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "blkreel/event.h"
#include "blkreel/units.h"

void tool_say(const char *prog, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

tool_exit tool_say_error(const char *prog, const char *what, const br_error *err)
{
	char msg[1200];
	br_error_format(err, msg, sizeof msg);
	if (what)
		tool_say(prog, "%s: %s", what, msg);
	else
		tool_say(prog, "%s", msg);
	return TOOL_EXIT_FAIL;
}

tool_exit tool_usage(const char *prog, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry '%s --help' for more information.\n", prog);
	va_end(ap);
	return TOOL_EXIT_USAGE;
}

tool_exit tool_arg_count(const char *prog, const char *option, const char *arg, uint64_t lo,
			 uint64_t hi, uint64_t *out)
{
	if (br_parse_uint(arg, lo, hi, out))
		return tool_usage(prog, "%s: '%s' is not a count from %llu to %llu", option, arg,
				  (unsigned long long)lo, (unsigned long long)hi);
	return TOOL_EXIT_OK;
}

tool_exit tool_arg_window(const char *prog, bool to, const char *arg, br_reader_opts *o)
{
	uint64_t *ns = to ? &o->to_ns : &o->from_ns;
	if (br_parse_duration_ns(arg, ns))
		return tool_usage(prog, "%s: '%s' is not a time (e.g. 1.5, 250ms, 2s)",
				  to ? "--to" : "--from", arg);
	*(to ? &o->has_to : &o->has_from) = true;
	return TOOL_EXIT_OK;
}

tool_exit tool_window_check(const char *prog, const br_reader_opts *o)
{
	if (o->has_from && o->has_to && o->to_ns < o->from_ns)
		return tool_usage(prog, "--to is before --from");
	return TOOL_EXIT_OK;
}

tool_exit tool_arg_device(const char *prog, const char *option, const char *arg, uint32_t *dev)
{
	size_t cut = strcspn(arg, ",:");
	char major[24];
	uint64_t ma, mi;
	if (!arg[cut] || cut >= sizeof major)
		return tool_usage(prog, "%s: '%s' is not MAJ,MIN", option, arg);
	memcpy(major, arg, cut);
	major[cut] = 0;
	if (br_parse_uint(major, 0, UINT64_MAX, &ma) || br_parse_uint(arg + cut + 1, 0, UINT64_MAX, &mi))
		return tool_usage(prog, "%s: '%s' is not MAJ,MIN", option, arg);
	if (ma >= (1u << (32 - BR_MINORBITS)) || mi >= (1u << BR_MINORBITS))
		return tool_usage(prog, "%s: '%s' is out of range", option, arg);
	*dev = BR_MKDEV(ma, mi);
	return TOOL_EXIT_OK;
}
