/* blkreel-capture: trace block devices while a workload runs. */
#include "capture_cli.h"
#include "capture_run.h"
#include "hooks.h"

int main(int argc, char **argv)
{
	capture_cli cli;
	bool run;
	int rc = capture_cli_read(argc, argv, &cli, &run);
#ifdef BLKREEL_TEST_HOOKS
	/* the one read of the hook variables; the release build has none */
	cap_hooks hooks;
	cap_hooks_read(&hooks);
	cli.hooks = &hooks;
#endif
	if (run)
		rc = capture_run(&cli);
	return rc;
}
