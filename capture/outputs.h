/* outputs.h — the files a capture writes: NAME.blktrace.gz (or the
 * compressed stream on stdout) and, with --split, NAME.blktrace.<cpu>. */
#ifndef BLKREEL_CAPTURE_OUTPUTS_H
#define BLKREEL_CAPTURE_OUTPUTS_H

#include <stdbool.h>

#include "blkreel/error.h"
#include "blkreel/writer.h"
#include "capture_cli.h"

typedef struct cap_outputs {
	br_writer *w[2];
	unsigned n;
	char gz_path[1024];     /* "-" for stdout */
	char split_base[1024];  /* "" without --split */
} cap_outputs;

/* Open them; name defaults to the first device's kernel name. */
int cap_outputs_open(cap_outputs *o, const capture_cli *cli, const char *default_name, br_error *err);
/* Make what was written readable now (a stop on error keeps it). */
int cap_outputs_close(cap_outputs *o, br_error *err);
/* Remove them (nothing was captured: do not leave files that look whole). */
void cap_outputs_abort(cap_outputs *o);

#endif
