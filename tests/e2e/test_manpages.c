/* The man pages in docs/man/: each renders with man-db and groff without a
 * warning, and documents every option its tool's --help prints, and no
 * option the tool does not have, so the two cannot drift apart. */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

TestSuite(manpages, .timeout = 120);

typedef struct page {
	const char *name; /* the page, docs/man/<name> */
	const char *tool; /* the tool whose --help it must cover, or NULL */
} page;

static const page pages[] = {
	{ "blkreel-parse.1", "blkreel-parse" },   { "blkreel-capture.8", "blkreel-capture" },
	{ "blkreel-replay.8", "blkreel-replay" }, { "blkreel-plot.1", "blkreel-plot" },
	{ "blkreel-report.1", "blkreel-report" }, { "blkreel-trace.5", NULL },
};

static const char *page_path(const page *p)
{
	static char path[4096];
	snprintf(path, sizeof path, "%s/docs/man/%s", tu_root(), p->name);
	return path;
}

/* The page as man renders it for an 80-column terminal; warnings in err. */
static int render(const page *p, char **text, char **err)
{
	return tu_runf(text, NULL, err, "MANWIDTH=80 MAN_KEEP_FORMATTING= man --warnings -l '%s' | cat",
		       page_path(p));
}

static bool is_opt_char(char c)
{
	return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* Options defined by a --help text: lines indented by 1 to 8 spaces that
 * start with "-X, --long=ARG  text" or "--long  text"; an option token ends
 * in ',', '=', '[', two spaces or the end of the line (so "-o file" in an
 * example or "--x" in a continuation line is not taken for a definition). */
static size_t help_options(const char *help, char opts[][48], size_t max)
{
	size_t n = 0;
	for (const char *line = help; line && *line && n < max;) {
		const char *end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		const char *s = line;
		while (s < end && *s == ' ')
			s++;
		size_t indent = (size_t)(s - line);
		while (indent >= 1 && indent <= 8 && s < end && *s == '-' && n < max) {
			const char *t = s;
			while (t < end && is_opt_char(*t))
				t++;
			size_t tl = (size_t)(t - s);
			bool ends = t == end || *t == ',' || *t == '=' || *t == '[' ||
				    (t[0] == ' ' && t + 1 < end && t[1] == ' ');
			bool shape = (tl == 2 && s[1] != '-') || (tl > 2 && s[1] == '-' && tl < 48);
			if (!ends || !shape)
				break;
			memcpy(opts[n], s, tl);
			opts[n][tl] = 0;
			n++;
			if (t < end && *t == ',' && t + 2 < end && t[1] == ' ' && t[2] == '-')
				s = t + 2;
			else
				break;
		}
		line = *end ? end + 1 : NULL;
	}
	return n;
}

/* opt occurs in text as a whole option (not the prefix of a longer one). */
static bool mentions(const char *text, const char *opt)
{
	size_t l = strlen(opt);
	for (const char *p = strstr(text, opt); p; p = strstr(p + 1, opt)) {
		bool before = p == text || !is_opt_char(p[-1]);
		bool after = !is_opt_char(p[l]);
		if (before && after)
			return true;
	}
	return false;
}

Test(manpages, render_without_warnings)
{
	cr_assert(tu_have("man"), "man-db is a test dependency (make deps-test installs it)");
	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
		char *text = NULL, *err = NULL;
		int rc = render(&pages[i], &text, &err);
		cr_expect_eq(rc, 0, "%s: man exits %d: %s", pages[i].name, rc, err);
		cr_expect_str_empty(err, "%s: warnings:\n%s", pages[i].name, err);
		cr_expect(strstr(text, "NAME") && strstr(text, "DESCRIPTION") && strstr(text, "SEE ALSO"),
			  "%s: sections missing:\n%.400s", pages[i].name, text);
		/* no line wider than the terminal it was rendered for */
		size_t col = 0, widest = 0;
		for (const char *c = text; *c; c++) {
			if (*c == '\n')
				col = 0;
			else if ((*c & 0xc0) != 0x80 && ++col > widest)
				widest = col;
		}
		cr_expect_leq(widest, 80, "%s: a line of %zu columns", pages[i].name, widest);
		free(text);
		free(err);
	}
}

Test(manpages, tool_pages_have_the_usual_sections_and_peers)
{
	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
		if (!pages[i].tool)
			continue;
		char *text = NULL;
		render(&pages[i], &text, NULL);
		static const char *const want[] = { "SYNOPSIS", "OPTIONS", "EXIT STATUS", "EXAMPLES",
						    "blktrace(8)", "blkparse(1)", "btt(1)", "btreplay(8)",
						    "iowatcher(1)" };
		for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
			cr_expect(strstr(text, want[k]), "%s lacks %s", pages[i].name, want[k]);
		free(text);
	}
}

/* Every option --help prints is in the page, and every option the page's
 * OPTIONS section names is one --help prints. */
Test(manpages, options_match_help)
{
	for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
		if (!pages[i].tool)
			continue;
		char *help = NULL, *text = NULL;
		cr_assert_eq(tu_run_tool(&help, NULL, pages[i].tool, "--help"), 0);
		render(&pages[i], &text, NULL);
		char opts[128][48];
		size_t n = help_options(help, opts, 128);
		cr_expect_geq(n, 10, "%s: only %zu options found in --help", pages[i].tool, n);
		bool saw_short = false, saw_long = false;
		for (size_t k = 0; k < n; k++) {
			saw_short |= opts[k][1] != '-';
			saw_long |= opts[k][1] == '-';
			cr_expect(mentions(text, opts[k]), "%s: %s is in --help but not in the page",
				  pages[i].name, opts[k]);
		}
		cr_expect(saw_short && saw_long, "%s: short and long options parsed", pages[i].tool);

		const char *from = strstr(text, "\nOPTIONS\n");
		const char *to = from ? strstr(from, "\nEXIT STATUS\n") : NULL;
		cr_assert(from && to, "%s: no OPTIONS section before EXIT STATUS", pages[i].name);
		for (const char *p = strstr(from, "--"); p && p < to; p = strstr(p + 2, "--")) {
			if (p > text && is_opt_char(p[-1]))
				continue;
			char name[48];
			size_t l = 0;
			while (l + 1 < sizeof name && is_opt_char(p[l]))
				name[l] = p[l], l++;
			name[l] = 0;
			bool known = false;
			for (size_t k = 0; k < n && !known; k++)
				known = strcmp(opts[k], name) == 0;
			cr_expect(known, "%s documents %s, which --help does not list", pages[i].name, name);
		}
		free(help);
		free(text);
	}
}

/* The parser of --help lines itself, on a text with every shape it meets. */
Test(manpages, help_option_parser)
{
	const char *help = "Usage: x [OPTION]...\n"
			   "  -i, --input=TRACE      add an input\n"
			   "      --from=T           start at T (see -q)\n"
			   "  -F, --size=WxH         size\n"
			   "      --map=MAJ,MIN=PATH replay\n"
			   "                         --not-an-option continuation\n"
			   "  -q                     quiet\n"
			   "Examples:\n"
			   "  x -o - | ssh\n"
			   "      -o out.gz --report r.json\n";
	char opts[16][48];
	size_t n = help_options(help, opts, 16);
	const char *want[] = { "-i", "--input", "--from", "-F", "--size", "--map", "-q" };
	cr_assert_eq(n, 7);
	for (size_t k = 0; k < 7; k++)
		cr_expect_str_eq(opts[k], want[k]);
	cr_expect(mentions("a --no-progress b", "--no-progress"));
	cr_expect(!mentions("a --no-progress b", "--no"));
	cr_expect(!mentions("a --no-progress b", "-n"));
}
