#include "outputs.h"

#include <stdio.h>
#include <string.h>

static void build_base(char *out, size_t size, const capture_cli *cli, const char *name)
{
	char stem[1024];
	snprintf(stem, sizeof stem, "%s", name);
	/* "-o run1.blktrace.gz" means run1, not run1.blktrace.gz.blktrace.gz */
	size_t n = strlen(stem);
	if (n > 12 && strcmp(stem + n - 12, ".blktrace.gz") == 0)
		stem[n - 12] = 0;
	/* bounded explicitly: paths past ~1000 bytes are cut (and then fail to open) */
	if (cli->dir)
		snprintf(out, size, "%.500s/%.500s", cli->dir, stem);
	else
		snprintf(out, size, "%.1000s", stem);
}

int cap_outputs_open(cap_outputs *o, const capture_cli *cli, const char *default_name, br_error *err)
{
	memset(o, 0, sizeof *o);
	const char *name = cli->output ? cli->output : default_name;
	char base[1024];
	if (strcmp(name, "-") == 0) {
		snprintf(o->gz_path, sizeof o->gz_path, "-");
	} else {
		build_base(base, sizeof base, cli, name);
		snprintf(o->gz_path, sizeof o->gz_path, "%.1000s.blktrace.gz", base);
		if (cli->split)
			snprintf(o->split_base, sizeof o->split_base, "%s", base);
	}
	int rc = br_writer_open(&o->w[o->n], BR_OUT_COMPRESSED, o->gz_path, &cli->write, err);
	if (rc)
		return rc;
	o->n++;
	if (o->split_base[0]) {
		rc = br_writer_open(&o->w[o->n], BR_OUT_SPLIT, o->split_base, &cli->write, err);
		if (rc) {
			cap_outputs_abort(o);
			return rc;
		}
		o->n++;
	}
	return 0;
}

int cap_outputs_close(cap_outputs *o, br_error *err)
{
	int first = 0;
	br_error e;
	for (unsigned i = 0; i < o->n; i++) {
		int rc = br_writer_close(o->w[i], &e);
		if (rc && !first) {
			first = rc;
			if (err)
				*err = e;
		}
		o->w[i] = NULL;
	}
	o->n = 0;
	return first;
}

void cap_outputs_abort(cap_outputs *o)
{
	for (unsigned i = 0; i < o->n; i++)
		br_writer_abort(o->w[i]);
	o->n = 0;
}
