/* tool/sweep_label.h — a trace's place in a sweep, given on the command
 * line as a label STACK:PARAM=VALUE (ext4:clients=8): blkreel-report's
 * sweep report and blkreel-plot's sweep figure read the same labels. */
#ifndef BLKREEL_TOOL_SWEEP_LABEL_H
#define BLKREEL_TOOL_SWEEP_LABEL_H

#include <stdbool.h>
#include <stddef.h>
#include "tool/exit.h"

#define TOOL_SWEEP_STACK_MAX 64
#define TOOL_SWEEP_PARAM_MAX 32

typedef struct tool_sweep_label {
	char stack[TOOL_SWEEP_STACK_MAX];
	char param[TOOL_SWEEP_PARAM_MAX];
	double value;
} tool_sweep_label;

/* Is label meant as a sweep label (it holds a ':')? Plain names are not. */
bool tool_is_sweep_label(const char *label);

/* Read label into *out: the stack is what comes before the first ':', the
 * parameter a name of letters, digits, '_', '.', '-', the value a finite
 * number. When *param is set (an earlier label's), the parameter must be
 * the same; else it is set. 0, or a usage error said on stderr for prog. */
tool_exit tool_sweep_label_read(const char *prog, const char *label, char param[TOOL_SWEEP_PARAM_MAX],
				tool_sweep_label *out);

#endif
