/* The layering of formats/lib (formats/lib/README.md): every folder has its
 * place, its internal includes and its calls go only to the folders below
 * it, and no two of the library's files call each other, not even through
 * a ring. Calls are read from the objects this test binary was built with
 * (build/VARIANT/obj/formats/lib), so a call through a public header counts
 * too. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

/* folder: the folders it may call, as in formats/lib/README.md */
static const struct {
	const char *folder;
	const char *may_call;
} layers[] = {
	{ "common", "" },
	{ "compressed", " common " },
	{ "import", " common " },
	{ "stats", " common " },
	{ "diagnosis", " stats common " },
	{ "analysis", " diagnosis stats common " },
	{ "sweep", " diagnosis common " },
	{ "read", " compressed import common " },
	{ "write", " analysis stats compressed common " },
};
#define NLAYERS (sizeof layers / sizeof layers[0])

static int layer_of(const char *folder, size_t len)
{
	for (size_t i = 0; i < NLAYERS; i++)
		if (strlen(layers[i].folder) == len && !strncmp(layers[i].folder, folder, len))
			return (int)i;
	return -1;
}

static bool may_call(int from, int to)
{
	if (from == to)
		return true;
	char word[64];
	snprintf(word, sizeof word, " %s ", layers[to].folder);
	return strstr(layers[from].may_call, word) != NULL;
}

static const char *lib_dir(void)
{
	static char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/formats/lib", tu_root());
	return path;
}

Test(layering, every_folder_has_a_place)
{
	DIR *d = opendir(lib_dir());
	cr_assert(d, "cannot open %s", lib_dir());
	size_t folders = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "README.md"))
			continue;
		char path[PATH_MAX + 300];
		snprintf(path, sizeof path, "%s/%s", lib_dir(), e->d_name);
		struct stat st;
		cr_assert(stat(path, &st) == 0, "%s", path);
		cr_expect(S_ISDIR(st.st_mode), "%s: the library's files live in a concept folder", path);
		if (!S_ISDIR(st.st_mode))
			continue;
		cr_expect(layer_of(e->d_name, strlen(e->d_name)) >= 0,
			  "formats/lib/%s has no place in the layering (formats/lib/README.md, this test)",
			  e->d_name);
		char readme[PATH_MAX + 320];
		snprintf(readme, sizeof readme, "%s/README.md", path);
		cr_expect(access(readme, R_OK) == 0, "%s: missing (what it owns, what it may call)", readme);
		folders++;
	}
	closedir(d);
	cr_expect_eq(folders, NLAYERS, "%zu folders in formats/lib, %zu in the layering", folders, NLAYERS);
}

/* #include "FOLDER/..." lines in every .c and .h of every folder */
Test(layering, includes_go_down)
{
	size_t checked = 0;
	for (size_t from = 0; from < NLAYERS; from++) {
		char *out = NULL;
		int rc = tu_runf(&out, NULL, NULL, "cd '%s/%s' && grep -rH --include='*.[ch]' '^[[:space:]]*#[[:space:]]*include[[:space:]]*\"' .",
				 lib_dir(), layers[from].folder);
		cr_assert(rc == 0 && out, "no includes found in formats/lib/%s", layers[from].folder);
		for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
			char *q = strchr(line, '"');
			char *slash = q ? strchr(q + 1, '/') : NULL;
			char *end = q ? strchr(q + 1, '"') : NULL;
			if (!q || !slash || !end || slash > end)
				continue; /* same folder, or <system> */
			checked++;
			if (!strncmp(q + 1, "blkreel/", 8))
				continue; /* public headers: their calls are checked below */
			int to = layer_of(q + 1, (size_t)(slash - q - 1));
			cr_expect(to >= 0, "formats/lib/%s/%s: not a library folder", layers[from].folder, line);
			if (to >= 0)
				cr_expect(may_call((int)from, to), "formats/lib/%s/%s: %s may not include from %s/",
					  layers[from].folder, line, layers[from].folder, layers[to].folder);
		}
		free(out);
	}
	cr_expect(checked > 0);
}

/* Headers holding a folder's own state, included by no other folder of the
 * library: a consumer sees that state only through the folder's functions
 * and hooks (the statistics: stats/stats_hooks.h, never br_stats' fields
 * or a write into its request table). diagnosis_internal.h is not here:
 * the analysis owns the diagnosis' accumulator and feeds it. */
static const char *const private_headers[] = {
	"stats/stats_internal.h",
	"compressed/tgz_internal.h",
	"analysis/analysis_internal.h",
};

Test(layering, private_headers_stay_in_their_folder)
{
	size_t n = sizeof private_headers / sizeof private_headers[0];
	for (size_t h = 0; h < n; h++) {
		char *out = NULL;
		const char *slash = strchr(private_headers[h], '/');
		char path[PATH_MAX + 100];
		snprintf(path, sizeof path, "%s/%s", lib_dir(), private_headers[h]);
		cr_assert(access(path, R_OK) == 0, "%s: listed here but missing", path);
		/* grep exits 1 when nothing matches: the wanted outcome */
		int rc = tu_runf(&out, NULL, NULL,
				 "cd '%s' && grep -rlF --include='*.[ch]' '\"%s\"' . | grep -v '^./%.*s/' || true",
				 lib_dir(), private_headers[h], (int)(slash - private_headers[h]),
				 private_headers[h]);
		cr_assert_eq(rc, 0);
		cr_expect(!out || !out[0], "%s is included outside its folder by:\n%s", private_headers[h],
			  out ? out : "");
		free(out);
	}
}

/* ---- calls, from the objects -------------------------------------------- */
typedef struct sym {
	char *name;
	int file;
} sym;

static char files[256][128];
static size_t nfiles;
static bool edge[256][256];

static int file_index(const char *name, size_t len)
{
	for (size_t i = 0; i < nfiles; i++)
		if (strlen(files[i]) == len && !strncmp(files[i], name, len))
			return (int)i;
	cr_assert(nfiles < 256 && len < sizeof files[0], "too many objects");
	memcpy(files[nfiles], name, len);
	files[nfiles][len] = '\0';
	return (int)nfiles++;
}

static int folder_of(int file)
{
	const char *slash = strchr(files[file], '/');
	return slash ? layer_of(files[file], (size_t)(slash - files[file])) : -1;
}

static const char *obj_dir(void)
{
	/* this binary is build/VARIANT/tests/formats/test_layering */
	static char path[PATH_MAX + 32];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	cr_assert(n > 0);
	exe[n] = '\0';
	for (int up = 0; up < 3; up++) {
		char *s = strrchr(exe, '/');
		cr_assert(s, "unexpected test binary path");
		*s = '\0';
	}
	snprintf(path, sizeof path, "%s/obj/formats/lib", exe);
	return path;
}

/* "folder/file.o: ... SYMBOL" lines of nm -A */
static size_t read_nm(const char *opts, sym **out)
{
	char *text = NULL;
	int rc = tu_runf(&text, NULL, NULL, "cd '%s' && nm -A %s */*.o", obj_dir(), opts);
	cr_assert(rc == 0 && text, "nm failed in %s", obj_dir());
	size_t n = 0, cap = 0;
	sym *v = NULL;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char *colon = strstr(line, ".o:");
		char *name = strrchr(line, ' ');
		if (!colon || !name)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 1024;
			v = realloc(v, cap * sizeof *v);
			cr_assert(v);
		}
		v[n].file = file_index(line, (size_t)(colon - line));
		v[n].name = strdup(name + 1);
		n++;
	}
	free(text);
	*out = v;
	return n;
}

static int defined_in(const sym *defs, size_t ndefs, const char *name)
{
	for (size_t i = 0; i < ndefs; i++)
		if (!strcmp(defs[i].name, name))
			return defs[i].file;
	return -1;
}

/* 0 white, 1 on the path, 2 done; returns a file on a ring, or -1 */
static int ring_from(int f, int *colour, int *next)
{
	colour[f] = 1;
	for (size_t g = 0; g < nfiles; g++) {
		if (!edge[f][g] || (int)g == f)
			continue;
		next[f] = (int)g;
		if (colour[g] == 1)
			return (int)g;
		if (colour[g] == 0) {
			int r = ring_from((int)g, colour, next);
			if (r >= 0)
				return r;
		}
	}
	colour[f] = 2;
	return -1;
}

Test(layering, calls_go_down_and_never_round)
{
	sym *defs = NULL, *uses = NULL;
	size_t ndefs = read_nm("-g --defined-only", &defs);
	size_t nuses = read_nm("-u", &uses);
	cr_assert(ndefs > 100 && nuses > 100, "%zu symbols defined, %zu used: not the library's objects?",
		  ndefs, nuses);
	size_t across = 0;
	for (size_t i = 0; i < nuses; i++) {
		int to = defined_in(defs, ndefs, uses[i].name);
		int from = uses[i].file;
		if (to < 0 || to == from)
			continue;
		edge[from][to] = true;
		int ff = folder_of(from), tf = folder_of(to);
		cr_expect(ff >= 0 && tf >= 0, "%s or %s is outside the layering", files[from], files[to]);
		if (ff < 0 || tf < 0)
			continue;
		if (ff != tf)
			across++;
		cr_expect(may_call(ff, tf), "%s calls %s (%s): %s/ may not call %s/", files[from],
			  uses[i].name, files[to], layers[ff].folder, layers[tf].folder);
	}
	cr_expect(across > 20, "only %zu calls across folders: the symbols were not read", across);

	int colour[256] = { 0 }, next[256];
	for (size_t f = 0; f < nfiles; f++) {
		if (colour[f])
			continue;
		int r = ring_from((int)f, colour, next);
		if (r >= 0) {
			char ring[2048] = "";
			int g = r;
			do {
				strncat(ring, files[g], sizeof ring - strlen(ring) - 8);
				strncat(ring, " -> ", sizeof ring - strlen(ring) - 1);
				g = next[g];
			} while (g != r && strlen(ring) < sizeof ring - 200);
			strncat(ring, files[r], sizeof ring - strlen(ring) - 1);
			cr_expect_fail("files call each other: %s (make one the lower layer)", ring);
			break;
		}
	}
	for (size_t i = 0; i < ndefs; i++)
		free(defs[i].name);
	for (size_t i = 0; i < nuses; i++)
		free(uses[i].name);
	free(defs);
	free(uses);
}
