#include "blkreel/cli.h"

#include <stdarg.h>
#include <string.h>

#include "blkreel/event.h"

#include "blkreel/units.h"

int br_cli_usage(FILE *err, const char *tool, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(err, "%s: ", tool);
	vfprintf(err, fmt, ap);
	fprintf(err, "\nTry '%s --help' for more information.\n", tool);
	va_end(ap);
	return BR_CLI_EXIT_USAGE;
}

int br_cli_bad_option(FILE *err, const char *tool, int getopt_result, const char *option)
{
	if (getopt_result == ':')
		return br_cli_usage(err, tool, "option '%s' needs an argument", option);
	return br_cli_usage(err, tool, "unknown option '%s'", option);
}

int br_cli_count(FILE *err, const char *tool, const char *option, const char *arg, uint64_t lo,
		 uint64_t hi, uint64_t *out)
{
	if (br_parse_uint(arg, lo, hi, out))
		return br_cli_usage(err, tool, "%s: '%s' is not a count from %llu to %llu", option, arg,
				    (unsigned long long)lo, (unsigned long long)hi);
	return 0;
}

int br_cli_window(FILE *err, const char *tool, const char *option, const char *arg, bool *has,
		  uint64_t *ns)
{
	if (br_parse_duration_ns(arg, ns))
		return br_cli_usage(err, tool, "%s: '%s' is not a time (e.g. 1.5, 250ms, 2s)", option,
				    arg);
	*has = true;
	return 0;
}

int br_cli_device(FILE *err, const char *tool, const char *option, const char *arg,
		  uint32_t *dev)
{
	size_t cut = strcspn(arg, ",:");
	char major[24];
	uint64_t ma, mi;
	if (!arg[cut] || cut >= sizeof major)
		return br_cli_usage(err, tool, "%s: '%s' is not MAJ,MIN", option, arg);
	memcpy(major, arg, cut);
	major[cut] = 0;
	if (br_parse_uint(major, 0, UINT64_MAX, &ma) || br_parse_uint(arg + cut + 1, 0, UINT64_MAX, &mi))
		return br_cli_usage(err, tool, "%s: '%s' is not MAJ,MIN", option, arg);
	if (ma >= (1u << (32 - BR_MINORBITS)) || mi >= (1u << BR_MINORBITS))
		return br_cli_usage(err, tool, "%s: '%s' is out of range", option, arg);
	*dev = BR_MKDEV(ma, mi);
	return 0;
}
