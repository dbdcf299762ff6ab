/* test_perf_check.c — the perf backend's completion check without a
 * kernel: a device's sysfs stat made here, block_rq_complete samples fed
 * through the backend's own sample path (perf_sample.c), the count read
 * again where the backend stops.
 * A gap between the two (completions the kernel never handed over) must
 * come out as unrecorded, and nothing else may. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "blkreel/event.h"

/* capture/'s sample path, from its internal archive; the sink is stood in
 * for below */
#include "../../capture/backends/perf_sample.h"

/* The sink: C records pushed, per device. */
static uint64_t pushed_c;
int cap_sink_push(cap_sink *s, const br_event *ev, const char *comm_hint, br_error *err)
{
	(void)s;
	(void)comm_hint;
	(void)err;
	if (br_event_code(ev) == __BLK_TA_COMPLETE)
		pushed_c++;
	return 0;
}
void cap_sink_comm(cap_sink *s, uint32_t pid, const char *comm)
{
	(void)s;
	(void)pid;
	(void)comm;
}

static char root[64];

static void setup(void)
{
	snprintf(root, sizeof root, "/tmp/blkreel-perfc.XXXXXX");
	cr_assert(mkdtemp(root), "mkdtemp");
	pushed_c = 0;
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(perf_check, .init = setup, .fini = teardown);

/* A request-based disk (mq/) whose stat says reads + writes completed. */
static void disk(const char *name, unsigned reads, unsigned writes)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", root, name);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/%s/mq", root, name);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/%s/stat", root, name);
	FILE *f = fopen(path, "w");
	cr_assert(f, "%s", path);
	fprintf(f, "%u 0 0 0 %u 0 0 0 0 0 0 0 0 0 0 0 0\n", reads, writes);
	fclose(f);
}

/* block_rq_complete's raw record as this test lays it out */
#define TP_ID 1234
enum { OFF_DEV = 8, OFF_SECTOR = 16, OFF_NR = 24, OFF_ERR = 28, OFF_RWBS = 32, RAW_LEN = 48 };

static void perf_setup(perf_decoder *st, cap_config *cfg)
{
	memset(st, 0, sizeof *st);
	st->cfg = cfg;
	for (size_t t = 0; t < PERF_NTP; t++)
		if (strcmp(perf_tp_defs[t].name, "block_rq_complete") == 0) {
			st->use[t] = true;
			tp_format *f = &st->fmt[t];
			memset(f, 0xff, sizeof *f); /* every field absent (-1) ... */
			f->id = TP_ID;
			f->dev = (tp_field){ OFF_DEV, 4 }; /* ... but these */
			f->sector = (tp_field){ OFF_SECTOR, 8 };
			f->nr_sector = (tp_field){ OFF_NR, 4 };
			f->error = (tp_field){ OFF_ERR, 4 };
			f->rwbs = (tp_field){ OFF_RWBS, 8 };
		}
}

/* One sample of block_rq_complete on dev, through the backend's sample path. */
static void complete(perf_decoder *st, uint32_t dev, uint64_t sector)
{
	uint8_t buf[20 + RAW_LEN];
	memset(buf, 0, sizeof buf);
	uint32_t pid_tid[2] = { 1, 1 }, rawlen = RAW_LEN, nr = 8;
	uint64_t time = 1000 + sector;
	uint16_t type = TP_ID;
	memcpy(buf, pid_tid, 8);
	memcpy(buf + 8, &time, 8);
	memcpy(buf + 16, &rawlen, 4);
	uint8_t *raw = buf + 20;
	memcpy(raw, &type, 2);
	memcpy(raw + OFF_DEV, &dev, 4);
	memcpy(raw + OFF_SECTOR, &sector, 8);
	memcpy(raw + OFF_NR, &nr, 4);
	memcpy(raw + OFF_RWBS, "R", 2);
	br_error err;
	cr_assert_eq(perf_decoder_sample(st, 0, buf, sizeof buf, NULL, &err), 0);
}

static cap_device dev_at(const char *name, unsigned ma, unsigned mi)
{
	cap_device d = { .dev = BR_MKDEV(ma, mi), .major = ma, .minor = mi };
	snprintf(d.sysfs, sizeof d.sysfs, "%s/%s", root, name);
	return d;
}

Test(perf_check, completions_the_kernel_did_not_hand_over_are_unrecorded)
{
	disk("loop0", 100, 50);
	cap_config cfg = { .ndevices = 1, .act_mask = 0xffff };
	cfg.devices[0] = dev_at("loop0", 7, 0);
	perf_decoder st;
	perf_setup(&st, &cfg);
	perf_decoder_check_start(&st);
	cr_assert(st.checking, "a complete tracepoint is open: the check runs");
	/* the device completes 40 requests; the kernel hands over 32 */
	for (uint64_t i = 0; i < 32; i++)
		complete(&st, BR_MKDEV(7, 0), 8 * i);
	disk("loop0", 130, 60);
	perf_decoder_check_end(&st);
	cr_expect_eq(pushed_c, 32, "every sample reached the sink");
	cr_expect_eq(perf_decoder_unrecorded(&st), 8, "a gap of 8 completions: %llu said",
		     (unsigned long long)perf_decoder_unrecorded(&st));
}

Test(perf_check, no_gap_no_other_devices_and_partitions_count_nothing)
{
	disk("loop0", 10, 0);
	disk("loop1", 10, 0);
	cap_config cfg = { .ndevices = 2, .act_mask = 0xffff };
	cfg.devices[0] = dev_at("loop0", 7, 0);
	cfg.devices[1] = dev_at("loop1", 7, 1);
	perf_decoder st;
	perf_setup(&st, &cfg);
	perf_decoder_check_start(&st);
	for (uint64_t i = 0; i < 5; i++)
		complete(&st, BR_MKDEV(7, 0), 8 * i);
	for (uint64_t i = 0; i < 7; i++) /* more records than completions: partial ones */
		complete(&st, BR_MKDEV(7, 1), 8 * i);
	complete(&st, BR_MKDEV(7, 9), 0); /* a device not traced counts for none */
	disk("loop0", 15, 0);
	disk("loop1", 16, 0);
	perf_decoder_check_end(&st);
	cr_expect_eq(perf_decoder_unrecorded(&st), 0);

	/* a partition's C records carry its disk's dev_t under perf: not checked */
	char path[256];
	snprintf(path, sizeof path, "%s/loop0/p1", root);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/loop0/p1/partition", root);
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs("1\n", f);
	fclose(f);
	snprintf(path, sizeof path, "%s/loop0/p1/stat", root);
	f = fopen(path, "w");
	cr_assert(f);
	fputs("5 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", f);
	fclose(f);
	cap_config pc = { .ndevices = 1, .act_mask = 0xffff };
	pc.devices[0] = dev_at("loop0/p1", 259, 1);
	perf_setup(&st, &pc);
	perf_decoder_check_start(&st);
	cr_expect(!st.check.counted[0], "a partition is not checked by perf");
}

Test(perf_check, an_action_mask_without_completions_checks_nothing)
{
	disk("loop0", 10, 0);
	cap_config cfg = { .ndevices = 1, .act_mask = BLK_TC_ISSUE };
	cfg.devices[0] = dev_at("loop0", 7, 0);
	perf_decoder st;
	perf_setup(&st, &cfg);
	for (size_t t = 0; t < PERF_NTP; t++)
		st.use[t] = false; /* what perf_start opens for this mask */
	perf_decoder_check_start(&st);
	disk("loop0", 50, 0);
	perf_decoder_check_end(&st);
	cr_expect(!st.checking);
	cr_expect_eq(perf_decoder_unrecorded(&st), 0);
}
