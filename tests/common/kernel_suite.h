/* kernel_suite.h — the main() of every suite that touches the kernel's
 * machine-wide state (the blk tracer, tracefs mounted or not, --cleanup of
 * dead captures, loop devices and the CPU time a timing-sensitive test
 * measures). Included by each kernel suite's own file (test_capture.c,
 * test_replay_kernel.c, test_diagnosis_kernel.c, ...), never by a fixture:
 * a fixture is in its module's archive, which CPU suites link too. So a
 * kernel suite is safe however it is started:
 *  - one test at a time, whatever --jobs or CRITERION_JOBS says: one test's
 *    teardown must never unmount tracefs or --cleanup a capture under a
 *    test beside it (Criterion 2.4 honours jobs set after its arguments
 *    are parsed; the options it parsed are otherwise kept);
 *  - one kernel suite binary at a time on the machine: the runner holds
 *    tu_kernel_suite_lock while its tests run, before any test's timeout
 *    starts, so waiting for another suite costs no test its time.
 * tests/run-suites.sh finds kernel suites by the marker string below. */
#ifndef BLKREEL_TEST_KERNEL_SUITE_H
#define BLKREEL_TEST_KERNEL_SUITE_H

#include <criterion/criterion.h>
#include <criterion/options.h>

#include "testutil.h"

/* read by tests/run-suites.sh (grep -a) to run this binary in the kernel lane */
__attribute__((used)) static const char kernel_suite_marker[] = "BLKREEL_KERNEL_SUITE";

int main(int argc, char *argv[])
{
	struct criterion_test_set *tests = criterion_initialize();
	int result = 0;
	if (criterion_handle_args(argc, argv, true)) {
		criterion_options.jobs = 1;
		int lock = tu_kernel_suite_lock();
		result = !criterion_run_all_tests(tests);
		tu_tracer_unlock(lock);
	}
	criterion_finalize(tests);
	return result;
}

#endif
