/* blkreel-parse: print, convert and summarise block-I/O traces. */
#include "parse_cli.h"
#include "parse_run.h"

int main(int argc, char **argv)
{
	parse_cli cli;
	int rc = parse_cli_read(argc, argv, &cli);
	if (rc == CLI_OK)
		rc = parse_run(&cli);
	else if (rc == CLI_EXIT_OK)
		rc = 0;
	parse_cli_free(&cli);
	return rc;
}
