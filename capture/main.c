/* blkreel-capture: trace block devices while a workload runs. */
#include "capture_cli.h"
#include "capture_run.h"

int main(int argc, char **argv)
{
	capture_cli cli;
	bool run;
	int rc = capture_cli_read(argc, argv, &cli, &run);
	if (run)
		rc = capture_run(&cli);
	return rc;
}
