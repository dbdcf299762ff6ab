/* test_release_hooks.c — the test and bench hooks (capture/hooks.h) are in
 * the hooks build only: the release blkreel-capture holds none of the hook
 * variables' names (it cannot read what it does not name) and its BPF object
 * lacks the floors' maps, while the hooks build has every one (so this list
 * and the code agree); every BLKREEL_ variable a release tool names is in
 * its man page. The kernel side, a release capture with every hook
 * variable set still recording exactly, is in test_capture_bpf.c
 * (release_binary_ignores_the_hook_variables). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hooks.h"
#include "testutil.h"

#define NAME(v) #v,
static const char *const hook_vars[] = { CAP_HOOK_VARIABLES(NAME) };
#undef NAME
#define NHOOKS (sizeof hook_vars / sizeof hook_vars[0])

/* The whole file; *len gets its size. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f != NULL, "cannot open %s (make tools hooks)", path);
	size_t cap = 1 << 20, n = 0, got;
	char *buf = malloc(cap);
	cr_assert(buf != NULL);
	while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			cr_assert(buf != NULL);
		}
	}
	fclose(f);
	*len = n;
	return buf;
}

static bool holds(const char *buf, size_t len, const char *s)
{
	return memmem(buf, len, s, strlen(s)) != NULL;
}

Test(release_hooks, release_capture_names_no_hook_variable)
{
	size_t rlen, hlen;
	char *rel = slurp(tu_bin("blkreel-capture"), &rlen);
	char *hook = slurp(tu_hook_bin("blkreel-capture"), &hlen);
	/* the documented ones are there: the scan sees the binary's strings */
	cr_expect(holds(rel, rlen, "BLKREEL_BTF"), "the release binary does not name BLKREEL_BTF");
	cr_expect(holds(rel, rlen, "BLKREEL_BPF_DEBUG"), "the release binary does not name BLKREEL_BPF_DEBUG");
	for (size_t i = 0; i < NHOOKS; i++) {
		cr_expect(!holds(rel, rlen, hook_vars[i]), "the release blkreel-capture names %s", hook_vars[i]);
		cr_expect(holds(hook, hlen, hook_vars[i]), "the hooks build does not read %s (hooks.h's list is stale)",
			  hook_vars[i]);
	}
	/* the BPF object each embeds (its skeleton): the floors' maps only in the hooks build */
	cr_expect(!holds(rel, rlen, "pair_probe"), "the release binary's BPF object has the pair_probe map");
	cr_expect(!holds(rel, rlen, "clock_slot"), "the release binary's BPF object has the clock_slot map");
	cr_expect(holds(hook, hlen, "pair_probe"), "the hooks build's BPF object lacks pair_probe");
	free(rel);
	free(hook);
}

/* The maps of a BPF object: its symbols in the .maps section. */
static char *maps_of(const char *obj)
{
	char *out = NULL;
	int rc = tu_runf(&out, NULL, NULL, "llvm-objdump -t '%s' | awk '$4 == \".maps\" {print $6}' | sort", obj);
	cr_assert_eq(rc, 0, "llvm-objdump -t %s failed", obj);
	return out;
}

Test(release_hooks, release_bpf_object_has_no_floor_maps)
{
	if (!tu_have("llvm-objdump"))
		cr_skip_test("needs llvm-objdump");
	const char *env = getenv("BLKREEL_BPF_GEN");
	char gen[4096], rel[4200], hook[4200];
	snprintf(gen, sizeof gen, "%s", env && *env ? env : "");
	if (!gen[0])
		snprintf(gen, sizeof gen, "%s/build/gen", tu_root());
	snprintf(rel, sizeof rel, "%s/release/capture.bpf.o", gen);
	snprintf(hook, sizeof hook, "%s/hooks/capture.bpf.o", gen);
	char *r = maps_of(rel), *h = maps_of(hook);
	cr_expect(strstr(r, "rings\n") && strstr(r, "regions\n") && strstr(r, "ctls\n"), "the release object's maps: %s", r);
	cr_expect(!strstr(r, "pair_probe") && !strstr(r, "clock_slot"), "the release object has a floor's map: %s", r);
	cr_expect(strstr(h, "pair_probe\n") && strstr(h, "clock_slot\n"), "the hooks object's maps: %s", h);
	free(r);
	free(h);
}

/* Every BLKREEL_ name in a release tool's binary is in its man page's
 * ENVIRONMENT section (or the tool names none). */
Test(release_hooks, release_tools_name_only_documented_variables)
{
	static const char *const tools[][2] = {
		{ "blkreel-capture", "blkreel-capture.8" }, { "blkreel-parse", "blkreel-parse.1" },
		{ "blkreel-replay", "blkreel-replay.8" },   { "blkreel-plot", "blkreel-plot.1" },
		{ "blkreel-report", "blkreel-report.1" },
	};
	size_t documented = 0;
	for (size_t t = 0; t < sizeof tools / sizeof tools[0]; t++) {
		size_t len;
		char *bin = slurp(tu_bin(tools[t][0]), &len);
		char page[4096];
		snprintf(page, sizeof page, "%s/docs/man/%s", tu_root(), tools[t][1]);
		char *man = tu_read_text(page);
		cr_assert(man != NULL, "no %s", page);
		const char *env = strstr(man, ".SH ENVIRONMENT");
		const char *end = env ? strstr(env + 1, "\n.SH ") : NULL;
		for (const char *p = bin; (p = memmem(p, len - (size_t)(p - bin), "BLKREEL_", 8)) != NULL; p += 8) {
			char name[64];
			size_t n = 0;
			while (n < sizeof name - 1 && p + n < bin + len &&
			       ((p[n] >= 'A' && p[n] <= 'Z') || (p[n] >= '0' && p[n] <= '9') || p[n] == '_'))
				name[n] = p[n], n++;
			name[n] = 0;
			const char *at = env ? strstr(env, name) : NULL;
			cr_expect(at && (!end || at < end), "%s names %s, which %s's ENVIRONMENT does not list",
				  tools[t][0], name, tools[t][1]);
			documented++;
		}
		free(man);
		free(bin);
	}
	/* blkreel-capture's two (BLKREEL_BTF, BLKREEL_BPF_DEBUG) at least were seen */
	cr_expect_geq(documented, 2, "no BLKREEL_ variable found in any release tool");
}
