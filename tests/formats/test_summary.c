/* The shared trace summary: counts by device, stage and direction. */
#include <criterion/criterion.h>

#include "blkreel/summary.h"
#include "tracegen.h"

Test(summary, counts_by_stage_direction_and_process)
{
	br_summary *s = br_summary_new();
	cr_assert(s);
	uint32_t dev = BR_MKDEV(8, 0);
	br_event evs[] = {
		tg_io(10, dev, 0, TG_Q_W, 0, 4096, 7),
		tg_io(20, dev, 0, TG_D_W, 0, 4096, 7),
		tg_io(30, dev, 1, TG_C_W, 0, 4096, 0),
		tg_io(40, dev, 0, TG_Q_R, 8, 8192, 8),
		tg_io(50, dev, 0, TG_D_R, 8, 8192, 8),
		tg_io(60, dev, 1, TG_C_R, 8, 8192, 0),
		/* an empty flush carries the read bit, as the kernel sets it */
		tg_io(70, dev, 0, BLK_TA_ISSUE | BLK_TC_ACT(BLK_TC_FLUSH) | BLK_TC_ACT(BLK_TC_READ), 0, 0, 9),
		tg_io(80, dev, 1, BLK_TA_COMPLETE | BLK_TC_ACT(BLK_TC_FLUSH) | BLK_TC_ACT(BLK_TC_READ), 0, 0, 0),
		tg_io(90, BR_MKDEV(8, 16), 0, BLK_TA_QUEUE | BLK_TC_ACT(BLK_TC_DISCARD), 64, 1 << 20, 7),
	};
	for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
		cr_assert_eq(br_summary_add(s, &evs[i]), 0);
	br_event named = tg_process(5, 0, 7, "fio");
	cr_assert_eq(br_summary_add(s, &named), 0);
	cr_expect_eq(br_summary_events(s), 10);
	cr_expect_eq(br_summary_notify_events(s), 1);
	cr_expect_eq(br_summary_first_time(s), 10);
	cr_expect_eq(br_summary_last_time(s), 90);
	cr_assert_eq(br_summary_ndevices(s), 2);
	const br_device_summary *d = br_summary_device(s, 0);
	cr_expect_eq(d->device, dev);
	cr_expect_eq(d->events, 8);
	cr_expect_eq(d->io[BR_KIND_Q][BR_DIR_WRITE].bytes, 4096);
	cr_expect_eq(d->io[BR_KIND_C][BR_DIR_READ].ios, 1);
	cr_expect_eq(d->io[BR_KIND_C][BR_DIR_READ].bytes, 8192);
	cr_expect_eq(d->io[BR_KIND_D][BR_DIR_READ].ios, 1, "the flush is not a read");
	cr_expect_eq(d->io[BR_KIND_D][BR_DIR_OTHER].ios, 1);
	cr_expect_eq(d->flushes, 1);
	cr_expect_eq(d->by_action[__BLK_TA_ISSUE], 3);
	const br_device_summary *d2 = br_summary_device(s, 1);
	cr_expect_eq(d2->io[BR_KIND_Q][BR_DIR_DISCARD].bytes, 1 << 20);
	cr_assert_eq(br_summary_nprocesses(s), 4);
	const br_process_summary *p = br_summary_process(s, 1); /* pids 0, 7, 8, 9 */
	cr_expect_eq(p->pid, 7);
	cr_expect_eq(p->queued[BR_DIR_WRITE].ios, 1);
	cr_expect_eq(p->queued[BR_DIR_DISCARD].ios, 1);
	br_summary_free(s);
}
