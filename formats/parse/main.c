/* blkreel-parse: print, convert and summarise block-I/O traces. */
#include "parse_cli.h"
#include "parse_run.h"

int main(int argc, char **argv)
{
	parse_cli cli;
	bool run;
	int rc = parse_cli_read(argc, argv, &cli, &run);
	if (run)
		rc = parse_run(&cli);
	parse_cli_free(&cli);
	return rc;
}
