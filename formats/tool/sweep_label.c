#include "tool/sweep_label.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tool/say.h"

bool tool_is_sweep_label(const char *label)
{
	return strchr(label, ':') != NULL;
}

tool_exit tool_sweep_label_read(const char *prog, const char *label, char param[TOOL_SWEEP_PARAM_MAX],
				tool_sweep_label *out)
{
	const char *colon = strchr(label, ':');
	const char *eq = colon ? strchr(colon, '=') : NULL;
	size_t slen = colon ? (size_t)(colon - label) : 0, plen = eq ? (size_t)(eq - colon - 1) : 0;
	char *end = NULL;
	double v = eq ? strtod(eq + 1, &end) : 0;
	bool ok = slen > 0 && slen < TOOL_SWEEP_STACK_MAX && plen > 0 && plen < TOOL_SWEEP_PARAM_MAX && eq[1] &&
		  end && !*end && isfinite(v);
	for (size_t i = 0; ok && i < plen; i++)
		ok = isalnum((unsigned char)colon[1 + i]) || strchr("_.-", colon[1 + i]);
	if (!ok)
		return tool_usage(prog, "-l %s: a sweep label is STACK:PARAM=VALUE, the value a number "
					"(e.g. ext4:clients=8)", label);
	if (param[0] && (strlen(param) != plen || strncmp(param, colon + 1, plen)))
		return tool_usage(prog, "-l %s: the sweep's parameter is %s (one parameter per sweep)", label, param);
	memcpy(out->stack, label, slen);
	out->stack[slen] = '\0';
	memcpy(out->param, colon + 1, plen);
	out->param[plen] = '\0';
	memcpy(param, out->param, plen + 1);
	out->value = v;
	return 0;
}
