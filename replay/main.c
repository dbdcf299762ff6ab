/* blkreel-replay: reissue a trace's IOs on a device or file, on the trace's
 * own timing, and report how faithfully that was done. */
#include "cli.h"
#include "run.h"

int main(int argc, char **argv)
{
	replay_opts o;
	bool run;
	int rc = cli_read(argc, argv, &o, &run);
	if (run)
		rc = replay_run(&o);
	cli_free(&o);
	return rc;
}
