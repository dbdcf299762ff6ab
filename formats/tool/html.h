/* tool/html.h — what the tools' HTML pages share (blkreel-report --html,
 * blkreel-replay --ab's report.html): escaping, one page head and style,
 * and a figure file as base64 for an <img> that needs no other file. */
#ifndef BLKREEL_TOOL_HTML_H
#define BLKREEL_TOOL_HTML_H

#include <stdio.h>

/* s escaped for HTML text and attribute values. */
void tool_html_esc(FILE *f, const char *s);

/* <!DOCTYPE html> … <body>, with title (escaped) and the pages' style. */
void tool_html_head(FILE *f, const char *title);

/* The whole file at path as base64 (malloc'd; NULL when it cannot be read
 * or memory runs out). */
char *tool_html_base64_file(const char *path);

#endif
