/* A cause as JSON: one form for every writer of a diagnosis. */
#include "blkreel/diagnosis.h"
#include "blkreel/json.h"

void br_diag_cause_json(br_json *j, const br_diag_cause *c, const char *worse)
{
	br_json_object(j);
	br_json_kstr(j, "cause", br_diag_cause_name(c->cause));
	br_json_kdouble(j, "share", c->share);
	br_json_kstr(j, "worse", worse);
	br_json_kstr(j, "factor", br_diag_factor_name(c->factor));
	br_json_kstr(j, "evidence", c->evidence);
	br_json_kbool(j, "confirmed", c->confirmed);
	if (c->shift > 0)
		br_json_kdouble(j, "shift", c->shift);
	br_json_end(j);
}
