#include "input_detect.h"
#include "import/fmt_detect.h" /* the foreign text formats' probes and opens */
#include "input_glob.h"
#include "rotated_source.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One entry per content kind. probe sees up to BR_INPUT_PEEK_MAX bytes. */
typedef struct input_kind {
	const char *name;
	enum br_input_kind kind;
	bool (*probe)(const uint8_t *data, size_t len);
	int (*open)(br_source **out, br_input *in, const br_reader_opts *opts, br_error *err);
} input_kind;

static bool probe_raw(const uint8_t *data, size_t len)
{
	return len >= 4 && br_record_probe_magic(data, NULL) != -1;
}

static int open_raw(br_source **out, br_input *in, const br_reader_opts *opts, br_error *err)
{
	(void)opts;
	return br_raw_source_open(out, in, err);
}

/* Probed in order: put strict binary magics before lenient text formats.
 * "text.gz" comes first because "blkreel" takes any gzip: it matches only
 * gzip without our header subfield whose content inflates to text. The
 * per-format text entries see only the first bytes; "text" (last) looks at
 * more and picks the format (blkreplay files open with a licence). */
static const input_kind input_kinds[] = {
	{ "text.gz", BR_INPUT_FOREIGN, br_fmt_probe_text_gz, br_fmt_open_text_gz },
	{ "blkreel", BR_INPUT_COMPRESSED, br_tgz_probe, br_tgz_source_open },
	{ "blktrace", BR_INPUT_STREAM, probe_raw, open_raw },
	{ "fio", BR_INPUT_FOREIGN, br_fmt_probe_fio, br_fmt_open_fio },
	{ "blkparse", BR_INPUT_FOREIGN, br_fmt_probe_blkparse, br_fmt_open_blkparse },
	{ "msr", BR_INPUT_FOREIGN, br_fmt_probe_msr, br_fmt_open_msr },
	{ "fiu", BR_INPUT_FOREIGN, br_fmt_probe_fiu, br_fmt_open_fiu },
	{ "disksim", BR_INPUT_FOREIGN, br_fmt_probe_disksim, br_fmt_open_disksim },
	{ "blkreplay", BR_INPUT_FOREIGN, br_fmt_probe_blkreplay, br_fmt_open_blkreplay },
	{ "text", BR_INPUT_FOREIGN, br_fmt_probe_text, br_fmt_open_text },
};
#define NKINDS (sizeof input_kinds / sizeof input_kinds[0])

const char *const br_input_format_names[NKINDS + 1] = {
	"text.gz", "blkreel", "blktrace", "fio", "blkparse", "msr", "fiu", "disksim",
	"blkreplay", "text", NULL,
};

static const input_kind *kind_by_name(const char *name)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (strcmp(input_kinds[i].name, name) == 0)
			return &input_kinds[i];
	return NULL;
}

bool br_input_format_known(const char *name)
{
	return kind_by_name(name) != NULL;
}

/* Open one file (or stdin) and pick its kind from content. */
static int open_single(const char *path, const br_reader_opts *opts, bool empty_ok,
		       enum br_input_kind *kind, const char **format_name, br_source **out,
		       br_error *err)
{
	br_input in;
	int rc = br_input_open(&in, path, err);
	if (rc)
		return rc;
	const uint8_t *data;
	ssize_t n = br_input_peek(&in, 512, &data, err);
	if (n < 0) {
		br_input_close(&in);
		return (int)n;
	}
	if (n == 0) {
		br_input_close(&in);
		if (empty_ok) {
			*out = NULL;
			return 0;
		}
		return br_error_set(err, BR_EFORMAT, 0, in.name, 0, "empty input: no trace records");
	}
	const input_kind *forced = NULL;
	if (opts && opts->format) {
		forced = kind_by_name(opts->format);
		if (!forced) {
			br_input_close(&in);
			return br_error_set(err, BR_EINVAL, 0, NULL, -1, "unknown input format '%s'",
					    opts->format);
		}
	}
	for (size_t i = 0; i < NKINDS; i++) {
		const input_kind *k = forced ? forced : &input_kinds[i];
		if (!forced && !k->probe(data, (size_t)n))
			continue;
		*kind = k->kind;
		*format_name = k->name;
		rc = k->open(out, &in, opts, err);
		if (rc)
			br_input_close(&in);
		return rc;
	}
	char hex[64] = "";
	for (ssize_t i = 0; i < n && i < 8; i++)
		snprintf(hex + 3 * i, sizeof hex - 3 * (size_t)i, "%02x ", data[i]);
	int e = br_error_set(err, BR_EFORMAT, 0, in.name, 0,
			     "not a trace blkreel reads (no blk_io_trace magic, not gzip; starts %s)",
			     hex);
	br_input_close(&in);
	return e;
}

typedef struct cpu_file {
	unsigned cpu;
	char *path;
} cpu_file;

static int cmp_cpu(const void *a, const void *b)
{
	const cpu_file *x = a, *y = b;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* NAME.blktrace.<digits> files beside NAME. Returns how many (0 if none). */
static int find_cpu_files(const char *name, cpu_file **out, size_t *n, br_error *err)
{
	*out = NULL;
	*n = 0;
	char *dup1 = strdup(name), *dup2 = strdup(name);
	if (!dup1 || !dup2) {
		free(dup1);
		free(dup2);
		return br_error_set(err, BR_ENOMEM, ENOMEM, name, -1, "out of memory");
	}
	const char *dir = dirname(dup1);
	const char *base = basename(dup2);
	char prefix[1024];
	snprintf(prefix, sizeof prefix, "%s.blktrace.", base);
	size_t plen = strlen(prefix);
	DIR *d = opendir(dir);
	int rc = 0;
	if (!d)
		goto done;
	struct dirent *de;
	size_t cap = 0;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, prefix, plen) != 0)
			continue;
		const char *num = de->d_name + plen;
		if (!*num || strlen(num) > 6)
			continue;
		bool digits = true;
		for (const char *p = num; *p; p++)
			digits &= isdigit((unsigned char)*p) != 0;
		if (!digits)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			cpu_file *g = realloc(*out, cap * sizeof **out);
			if (!g) {
				rc = br_error_set(err, BR_ENOMEM, ENOMEM, name, -1, "out of memory");
				break;
			}
			*out = g;
		}
		char *path = NULL;
		if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
			rc = br_error_set(err, BR_ENOMEM, ENOMEM, name, -1, "out of memory");
			break;
		}
		(*out)[*n].cpu = (unsigned)atoi(num);
		(*out)[(*n)++].path = path;
	}
	closedir(d);
	if (*n)
		qsort(*out, *n, sizeof **out, cmp_cpu);
done:
	free(dup1);
	free(dup2);
	return rc;
}

static void free_cpu_files(cpu_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i].path);
	free(f);
}

/* If path is NAME.blktrace.<digits>, the NAME part (malloc'd), else NULL. */
static char *set_name_of(const char *path)
{
	const char *b = strstr(path, ".blktrace.");
	if (!b)
		return NULL;
	const char *num = b + strlen(".blktrace.");
	if (!*num)
		return NULL;
	for (const char *p = num; *p; p++)
		if (!isdigit((unsigned char)*p))
			return NULL;
	return strndup(path, (size_t)(b - path));
}

/* A failed open: the sources opened so far closed, out empty again. */
static void close_sources(br_opened_input *out)
{
	for (size_t j = 0; j < out->nsources; j++)
		out->sources[j]->ops->close(out->sources[j]);
	free(out->sources);
	out->sources = NULL;
	out->nsources = 0;
}

static int open_cpu_set(const char *set_name, cpu_file *files, size_t nfiles,
			const br_reader_opts *opts, br_opened_input *out, br_error *err)
{
	out->kind = BR_INPUT_CPUSET;
	out->sources = calloc(nfiles, sizeof *out->sources);
	if (!out->sources)
		return br_error_set(err, BR_ENOMEM, ENOMEM, set_name, -1, "out of memory");
	for (size_t i = 0; i < nfiles; i++) {
		enum br_input_kind kind = BR_INPUT_STREAM;
		br_source *src = NULL;
		int rc = open_single(files[i].path, opts, true, &kind, &out->format_name, &src, err);
		if (rc == 0 && src && kind != BR_INPUT_STREAM) {
			src->ops->close(src);
			rc = br_error_set(err, BR_EFORMAT, 0, files[i].path, 0,
					  "per-CPU file is not a raw blk_io_trace stream");
		}
		if (rc) {
			close_sources(out);
			return rc;
		}
		if (src) /* empty per-CPU files are normal: that CPU did no IO */
			out->sources[out->nsources++] = src;
	}
	if (out->nsources == 0) {
		/* but not all of them: the same error as one empty file */
		free(out->sources);
		out->sources = NULL;
		return br_error_set(err, BR_EFORMAT, 0, set_name, 0,
				    "empty input: no trace records (%zu per-CPU file%s, %s%s, all empty)",
				    nfiles, nfiles == 1 ? "" : "s", files[0].path, nfiles > 1 ? " ..." : "");
	}
	return 0;
}

/* A rotated set: its members, read one after the other (rotated_source.c).
 * Takes set. */
static int open_rotated(rs_set *set, const br_reader_opts *opts, br_opened_input *out,
			br_error *err)
{
	if (opts && opts->format && strcmp(opts->format, "blkreel") != 0) {
		int rc = br_error_set(err, BR_EINVAL, 0, set->m[0].path, -1,
				     "a rotated set's members are compressed traces, not %s",
				     opts->format);
		rs_free(set);
		return rc;
	}
	out->kind = BR_INPUT_ROTATED;
	out->format_name = "blkreel";
	out->sources = calloc(1, sizeof *out->sources);
	if (!out->sources) {
		rs_free(set);
		return br_error_set(err, BR_ENOMEM, ENOMEM, NULL, -1, "out of memory");
	}
	int rc = br_rotated_source_open(&out->sources[0], set, opts, err);
	if (rc) {
		free(out->sources);
		out->sources = NULL;
		return rc;
	}
	out->nsources = 1;
	return 0;
}

/* The rotated set that path names when no file has that name: path is
 * NAME, or NAME.blktrace.gz (the name an unrotated capture would have
 * written, which users type). set->n == 0 when there is none. */
static int find_rotated(const char *path, rs_set *set, br_error *err)
{
	int rc = rs_find(path, set, err);
	static const char gz[] = ".blktrace.gz";
	size_t len = strlen(path), t = sizeof gz - 1;
	if (rc || set->n || len <= t || strcmp(path + len - t, gz) != 0)
		return rc;
	rs_free(set);
	char *name = strndup(path, len - t);
	if (!name)
		return br_error_set(err, BR_ENOMEM, ENOMEM, path, -1, "out of memory");
	rc = rs_find(name, set, err);
	free(name);
	return rc;
}

/* Every path a member of one rotated set (one NAME)? */
static bool one_rotated_set(char *const *paths, size_t n)
{
	size_t len0 = 0, len;
	uint64_t number;
	unsigned digits;
	for (size_t i = 0; i < n; i++) {
		if (!rs_member_name(paths[i], &len, &number, &digits))
			return false;
		if (i == 0)
			len0 = len;
		else if (len != len0 || memcmp(paths[i], paths[0], len) != 0)
			return false;
	}
	return true;
}

/* A glob pattern as one input: the members of one rotated set are read as
 * that set; anything else is opened file by file and merged by time
 * (empty files skipped, as a per-CPU set's). */
static int open_pattern(const char *pattern, const br_reader_opts *opts, br_opened_input *out,
			br_error *err)
{
	char **paths;
	size_t n;
	int rc = ig_expand(pattern, &paths, &n, err);
	if (rc)
		return rc;
	if (one_rotated_set(paths, n)) {
		rs_set set;
		rc = rs_from_paths(paths, n, &set, err); /* takes the strings */
		free(paths);
		if (rc) {
			rs_free(&set);
			return rc;
		}
		return open_rotated(&set, opts, out, err);
	}
	out->kind = BR_INPUT_PATTERN;
	out->sources = calloc(n, sizeof *out->sources);
	if (!out->sources) {
		ig_free(paths, n);
		return br_error_set(err, BR_ENOMEM, ENOMEM, pattern, -1, "out of memory");
	}
	for (size_t i = 0; !rc && i < n; i++) {
		enum br_input_kind kind;
		br_source *src = NULL;
		rc = open_single(paths[i], opts, true, &kind, &out->format_name, &src, err);
		if (!rc && src)
			out->sources[out->nsources++] = src;
	}
	if (!rc && !out->nsources)
		rc = br_error_set(err, BR_EFORMAT, 0, pattern, 0,
				  "empty input: no trace records (%zu file%s matched, %s%s, all empty)",
				  n, n == 1 ? "" : "s", paths[0], n > 1 ? " ..." : "");
	ig_free(paths, n);
	if (rc)
		close_sources(out);
	return rc;
}

int br_open_input_path(const char *path, const br_reader_opts *opts, br_opened_input *out,
		       br_error *err)
{
	memset(out, 0, sizeof *out);
	struct stat st;
	bool exists = strcmp(path, "-") == 0 || stat(path, &st) == 0;
	/* a file of that very name is read as it is, metacharacters or not */
	if (!exists && ig_is_pattern(path))
		return open_pattern(path, opts, out, err);
	char *set_name = NULL;
	if (strcmp(path, "-") != 0) {
		if (exists && S_ISREG(st.st_mode))
			set_name = set_name_of(path);
		else if (!exists)
			set_name = strdup(path);
	}
	if (set_name) {
		cpu_file *files;
		size_t nfiles;
		int rc = find_cpu_files(set_name, &files, &nfiles, err);
		if (rc) {
			free(set_name);
			return rc;
		}
		/* A lone NAME.blktrace.0 is read as the single stream it is. */
		if (nfiles > 1 || (nfiles == 1 && !exists)) {
			rc = open_cpu_set(set_name, files, nfiles, opts, out, err);
			free_cpu_files(files, nfiles);
			free(set_name);
			return rc;
		}
		free_cpu_files(files, nfiles);
		free(set_name);
	}
	if (!exists) {
		/* no per-CPU set NAME.blktrace.N: a rotated set, or nothing */
		rs_set set;
		int rc = find_rotated(path, &set, err);
		if (!rc && set.n)
			return open_rotated(&set, opts, out, err);
		rs_free(&set);
		if (rc)
			return rc;
		return br_error_set(err, BR_ESYS, ENOENT, path, -1,
				    "cannot open (no such file, no %s.blktrace.N set, no rotated "
				    "set %s.NNNNN.blktrace.gz)", path, path);
	}
	out->sources = calloc(1, sizeof *out->sources);
	if (!out->sources)
		return br_error_set(err, BR_ENOMEM, ENOMEM, path, -1, "out of memory");
	int rc = open_single(path, opts, false, &out->kind, &out->format_name, &out->sources[0],
			     err);
	if (rc) {
		free(out->sources);
		out->sources = NULL;
		return rc;
	}
	out->nsources = 1;
	return 0;
}
