/* --csv: every plotted series as numbers, one row per bucket per trace.
 * Counts are given next to the rates so results can be checked by hand. */
#include "plot.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

static void lat(FILE *fp, const br_hist *h, double q)
{
	if (h)
		fprintf(fp, ",%.3f", (double)br_hist_quantile(h, q) / 1e3);
	else
		fputs(",", fp);
}

int plot_write_csv(const plot_opts *o, const plot_data *d, const char *path, br_error *err)
{
	(void)o;
	char tmp[4096];
	int rc = plot_make_tmp(path, tmp, sizeof(tmp), err);
	if (rc)
		return rc;
	FILE *fp = fopen(tmp, "w");
	if (!fp) {
		rc = br_error_set(err, BR_ESYS, errno, tmp, -1, "cannot create");
		unlink(tmp);
		return rc;
	}
	fputs("trace,label,start_s,covered_s,io_kind,read_ios,write_ios,other_ios,read_bytes,"
	      "write_bytes,other_bytes,seeks,read_mbps,write_mbps,total_mbps,iops,seeks_per_s,"
	      "d2c_p50_us,d2c_p99_us,q2c_p50_us,q2c_p99_us,completions,inflight_avg,inflight_max\n",
	      fp);
	for (size_t t = 0; t < d->n; t++) {
		const plot_trace *tr = &d->tr[t];
		for (size_t i = 0; i < tr->ser.n; i++) {
			const br_stats_bucket *b = &tr->ser.b[i];
			fprintf(fp, "%zu,%s,%.9f,%.9f,%s,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.6f,%.6f,%.6f,%.3f,%.3f",
				t + 1, tr->label, (double)(b->start_ns + d->shift) / 1e9, (double)b->covered_ns / 1e9,
				br_stats_kind_name(tr->tot->io_kind),
				(unsigned long long)b->ios[0], (unsigned long long)b->ios[1],
				(unsigned long long)b->ios[2], (unsigned long long)b->bytes[0],
				(unsigned long long)b->bytes[1], (unsigned long long)b->bytes[2],
				(unsigned long long)b->seeks, br_stats_bucket_mbps(b, BR_DIR_READ),
				br_stats_bucket_mbps(b, BR_DIR_WRITE), br_stats_bucket_mbps(b, -1),
				br_stats_bucket_iops(b), br_stats_bucket_seeks(b));
			lat(fp, b->d2c, 0.5);
			lat(fp, b->d2c, 0.99);
			lat(fp, b->q2c, 0.5);
			lat(fp, b->q2c, 0.99);
			fprintf(fp, ",%llu,%.4f,%u\n",
				(unsigned long long)(b->d2c ? b->d2c->count : b->q2c ? b->q2c->count : 0),
				b->inflight_avg, b->inflight_max);
		}
	}
	if (ferror(fp) | fclose(fp)) {
		rc = br_error_set(err, BR_ESYS, errno, path, -1, "write failed");
		unlink(tmp);
		return rc;
	}
	if (rename(tmp, path)) {
		rc = br_error_set(err, BR_ESYS, errno, path, -1, "cannot rename the finished file");
		unlink(tmp);
	}
	return rc;
}
