#include "tool/opts.h"

#include <string.h>

#include "tool/say.h"

/* "  -o, --output=FILE" or "      --split=NAME" into buf; its length. */
static size_t left_part(const tool_opt *o, char *buf, size_t size)
{
	bool letter = o->key > 0 && o->key < TOOL_KEY_LONG && !o->alias;
	int n = snprintf(buf, size, "  %c%c%s--%s%s%s", letter ? '-' : ' ', letter ? o->key : ' ',
			 letter ? ", " : "  ", o->name, o->arg ? "=" : "", o->arg ? o->arg : "");
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

void tool_help(FILE *fp, const tool_desc *d)
{
	fputs(d->head, fp);
	for (const tool_opt *o = d->opts; o->help; o++) {
		if (!o->name) {
			fprintf(fp, "%s\n", o->help);
			continue;
		}
		char left[128];
		size_t n = left_part(o, left, sizeof left);
		/* the text at the column, or two spaces after a longer left part */
		fprintf(fp, "%s%*s", left, n + 2 <= d->column ? (int)(d->column - n) : 2, "");
		for (const char *s = o->help; *s;) {
			size_t len = strcspn(s, "\n");
			fprintf(fp, "%.*s\n", (int)len, s);
			s += len;
			if (*s == '\n' && *++s)
				fprintf(fp, "%*s", (int)d->column, "");
		}
	}
	fputs(d->tail, fp);
}

void tool_args_start(tool_args *a, const tool_desc *d, int argc, char **argv)
{
	memset(a, 0, sizeof *a);
	a->d = d;
	a->argc = argc;
	a->argv = argv;
	char *s = a->t.optstring;
	if (d->mode)
		*s++ = d->mode;
	*s++ = ':'; /* a missing argument comes back as ':' */
	size_t n = 0;
	for (const tool_opt *o = d->opts; o->help; o++) {
		if (!o->name)
			continue;
		/* a table wider than TOOL_MAX_OPTS is a bug the tool's tests see at once */
		if (n == TOOL_MAX_OPTS)
			break;
		a->t.longopts[n++] = (struct option){ o->name, o->arg ? required_argument : no_argument,
						      NULL, o->key };
		if (o->key > 0 && o->key < TOOL_KEY_LONG && !o->alias) {
			*s++ = (char)o->key;
			if (o->arg)
				*s++ = ':';
		}
	}
	*s = 0;
	optind = 1;
	opterr = 0;
}

int tool_args_next(tool_args *a)
{
	int c = getopt_long(a->argc, a->argv, a->t.optstring, a->t.longopts, NULL);
	switch (c) {
	case -1:
		return TOOL_ARGS_END;
	case 'h':
		tool_help(stdout, a->d);
		a->exit = TOOL_EXIT_OK;
		return TOOL_ARGS_STOP;
	case 'V':
		printf("%s %s\n", a->d->prog, a->d->version ? a->d->version : BLKREEL_VERSION);
		a->exit = TOOL_EXIT_OK;
		return TOOL_ARGS_STOP;
	case ':':
		a->exit = tool_usage(a->d->prog, "option '%s' needs an argument", a->argv[optind - 1]);
		return TOOL_ARGS_STOP;
	case '?':
		a->exit = tool_usage(a->d->prog, "unknown option '%s'", a->argv[optind - 1]);
		return TOOL_ARGS_STOP;
	default:
		return c;
	}
}
