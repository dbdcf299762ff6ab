#include "blkreel/cli.h"

#include <stdarg.h>

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
