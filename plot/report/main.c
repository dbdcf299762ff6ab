/* blkreel-report: explain block-I/O traces, and why one outperforms another. */
#include "report_cli.h"
#include "report_run.h"

int main(int argc, char **argv)
{
	report_cli cli;
	bool run;
	int rc = report_cli_read(argc, argv, &cli, &run);
	if (run)
		rc = report_run(&cli, argv[0]);
	report_cli_free(&cli);
	return rc;
}
