#include "tool/html.h"

#include <stdint.h>
#include <stdlib.h>

void tool_html_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

static const char style[] =
	"<style>\n"
	"body{font-family:'DejaVu Sans',sans-serif;max-width:1100px;margin:2em auto;color:#222}\n"
	"table{border-collapse:collapse;margin:.5em 0 1.5em}\n"
	"th,td{padding:.2em .7em;border-bottom:1px solid #ddd;text-align:left}\n"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	"th{background:#f3f3f3}\n"
	"li{margin:.3em 0}\n"
	"img{max-width:100%;border:1px solid #ddd}\n"
	".note{color:#666;font-size:.9em}\n"
	"</style>\n";

void tool_html_head(FILE *f, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
	tool_html_esc(f, title);
	fprintf(f, "</title>\n%s</head>\n<body>\n", style);
}

static char *base64(const unsigned char *p, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char *out = malloc((n + 2) / 3 * 4 + 1), *o = out;
	if (!out)
		return NULL;
	size_t i = 0;
	for (; i + 2 < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
		*o++ = tab[v >> 18];
		*o++ = tab[(v >> 12) & 63];
		*o++ = tab[(v >> 6) & 63];
		*o++ = tab[v & 63];
	}
	if (i < n) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0);
		*o++ = tab[v >> 18];
		*o++ = tab[(v >> 12) & 63];
		*o++ = i + 1 < n ? tab[(v >> 6) & 63] : '=';
		*o++ = '=';
	}
	*o = 0;
	return out;
}

char *tool_html_base64_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	unsigned char *buf = NULL;
	char *out = NULL;
	long len = -1;
	if (!fseek(f, 0, SEEK_END) && (len = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)len)) &&
	    fread(buf, 1, (size_t)len, f) == (size_t)len)
		out = base64(buf, (size_t)len);
	free(buf);
	fclose(f);
	return out;
}
