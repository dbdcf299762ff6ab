#include "capture_admin.h"

#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "devices.h"
#include "kstate.h"
#include "tracefs_util.h"

int capture_list_backends(void)
{
	br_error err;
	bool root = cap_check_privileges(&err) == 0;
	for (size_t i = 0; i < cap_nbackends; i++) {
		const cap_backend_ops *b = cap_backends[i];
		br_error_clear(&err);
		int rc = root ? b->probe(&err) : BR_EINVAL;
		char why[700];
		if (!root)
			snprintf(why, sizeof why, "needs root (CAP_SYS_ADMIN)");
		else if (rc)
			br_error_format(&err, why, sizeof why);
		printf("%-8s %-11s %s%s%s\n", b->name, rc ? "unavailable" : "available", b->summary,
		       rc ? ": " : "", rc ? why : "");
	}
	return 0;
}

int capture_cleanup(void)
{
	br_error err;
	br_error_clear(&err);
	if (cap_check_privileges(&err)) {
		char msg[700];
		fprintf(stderr, "blkreel-capture: %s\n", br_error_format(&err, msg, sizeof msg));
		return 1;
	}
	int n = cap_kstate_leftovers(NULL);
	if (n <= 0) {
		/* No record of ours; still say if the tracer is busy, since that is
		 * what the user probably wants to know. */
		char cur[64] = "";
		cap_kstate_read(CAP_TRACEFS "/current_tracer", cur, sizeof cur, &err);
		printf("blkreel-capture: no leftover state from earlier captures%s%s%s\n",
		       cur[0] && strcmp(cur, "nop") ? " (current_tracer is '" : "",
		       cur[0] && strcmp(cur, "nop") ? cur : "",
		       cur[0] && strcmp(cur, "nop") ? "', not ours)" : "");
		return 0;
	}
	int rc = cap_kstate_cleanup(stdout, &err);
	if (rc) {
		char msg[700];
		fprintf(stderr, "blkreel-capture: cleanup: %s\n", br_error_format(&err, msg, sizeof msg));
		return 1;
	}
	return 0;
}
