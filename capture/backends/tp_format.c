#include "backends/tp_format.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kstate/tracefs_util.h"

static tp_field *field_for(tp_format *f, const char *name)
{
	static const struct {
		const char *name;
		size_t off;
	} map[] = {
		{ "dev", offsetof(tp_format, dev) },
		{ "sector", offsetof(tp_format, sector) },
		{ "nr_sector", offsetof(tp_format, nr_sector) },
		{ "bytes", offsetof(tp_format, bytes) },
		{ "error", offsetof(tp_format, error) },
		{ "rwbs", offsetof(tp_format, rwbs) },
		{ "comm", offsetof(tp_format, comm) },
		{ "new_sector", offsetof(tp_format, new_sector) },
		{ "old_dev", offsetof(tp_format, old_dev) },
		{ "old_sector", offsetof(tp_format, old_sector) },
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
		if (strcmp(map[i].name, name) == 0)
			return (tp_field *)((char *)f + map[i].off);
	return NULL;
}

int tp_format_load(const char *name, tp_format *f, br_error *err)
{
	tp_field none = { -1, 0 };
	f->dev = f->sector = f->nr_sector = f->bytes = f->error = f->rwbs = f->comm = none;
	f->new_sector = f->old_dev = f->old_sector = none;
	char path[256];
	snprintf(path, sizeof path, CAP_TRACEFS "/events/block/%s/id", name);
	FILE *in = fopen(path, "re");
	if (!in)
		return br_error_set(err, BR_EUNSUP, errno, path, -1, "no such tracepoint");
	unsigned long long id;
	int ok = fscanf(in, "%llu", &id) == 1;
	fclose(in);
	if (!ok)
		return br_error_set(err, BR_EFORMAT, 0, path, -1, "not a tracepoint id");
	f->id = id;
	snprintf(path, sizeof path, CAP_TRACEFS "/events/block/%s/format", name);
	if (!(in = fopen(path, "re")))
		return br_error_set(err, BR_EUNSUP, errno, path, -1, "cannot open");
	char line[512];
	while (fgets(line, sizeof line, in)) {
		/* "\tfield:char rwbs[10];\toffset:28;\tsize:10;\tsigned:0;" */
		char *fp = strstr(line, "field:"), *op = strstr(line, "offset:"), *sp = strstr(line, "size:");
		if (!fp || !op || !sp || strstr(line, "__data_loc"))
			continue;
		char *semi = strchr(fp, ';');
		if (!semi)
			continue;
		*semi = 0;
		char *nm = strrchr(fp, ' ');
		if (!nm)
			continue;
		nm++;
		char *br = strchr(nm, '[');
		if (br)
			*br = 0;
		tp_field *t = field_for(f, nm);
		if (t) {
			t->offset = atoi(op + 7);
			t->size = atoi(sp + 5);
		}
	}
	fclose(in);
	return 0;
}

uint64_t tp_get(const uint8_t *raw, uint32_t len, tp_field fld)
{
	if (fld.offset < 0 || (uint32_t)(fld.offset + fld.size) > len)
		return 0;
	if (fld.size == 8) {
		uint64_t v;
		memcpy(&v, raw + fld.offset, 8);
		return v;
	}
	if (fld.size == 4) {
		uint32_t v;
		memcpy(&v, raw + fld.offset, 4);
		return v;
	}
	if (fld.size == 2) {
		uint16_t v;
		memcpy(&v, raw + fld.offset, 2);
		return v;
	}
	return 0;
}

void tp_get_str(const uint8_t *raw, uint32_t len, tp_field fld, char *out, size_t size)
{
	out[0] = 0;
	if (fld.offset < 0 || (uint32_t)(fld.offset + fld.size) > len || size == 0)
		return;
	size_t n = (size_t)fld.size < size - 1 ? (size_t)fld.size : size - 1;
	memcpy(out, raw + fld.offset, n);
	out[n] = 0;
}
