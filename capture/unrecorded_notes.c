/* unrecorded_notes.c — the completions no record shows, file by file. */
#include "unrecorded_notes.h"

bool cap_unrecorded_round_begin(cap_unrecorded_notes *n, const cap_dev_check *c, const cap_config *cfg,
				uint64_t now)
{
	if (!c || now < n->next_ns)
		return false;
	cap_dev_check_count(c, cfg, n->at);
	n->next_ns = now + CAP_UNRECORDED_SAMPLE_NS;
	return true;
}

void cap_unrecorded_round_end(cap_unrecorded_notes *n, const cap_dev_check *c, const cap_config *cfg,
			      uint64_t newest)
{
	if (!c || c->behind)
		return;
	if (n->n == CAP_UNRECORDED_SAMPLES) { /* the oldest is kept only as the newest merged away */
		n->settled = n->q[n->head];
		n->have_settled = true;
		n->head = (n->head + 1) % CAP_UNRECORDED_SAMPLES;
		n->n--;
	}
	n->q[(n->head + n->n) % CAP_UNRECORDED_SAMPLES] =
		(cap_unrecorded_sample){ .time = newest, .unrecorded = cap_dev_check_unrecorded_at(c, cfg, n->at) };
	n->n++;
}

/* What a file adds: the sample's count beyond what is noted (a sample may
 * count less than one before it: completions recorded since mask losses). */
static uint64_t note(cap_unrecorded_notes *n, uint64_t count)
{
	uint64_t more = count > n->noted ? count - n->noted : 0;
	n->noted += more;
	return more;
}

uint64_t cap_unrecorded_file(cap_unrecorded_notes *n, uint64_t cut)
{
	bool found = false;
	uint64_t count = 0;
	if (n->have_settled && n->settled.time <= cut) {
		count = n->settled.unrecorded;
		found = true;
		n->have_settled = false;
	}
	while (n->n && n->q[n->head].time <= cut) {
		count = n->q[n->head].unrecorded;
		found = true;
		n->head = (n->head + 1) % CAP_UNRECORDED_SAMPLES;
		n->n--;
	}
	return found ? note(n, count) : 0;
}

uint64_t cap_unrecorded_last(cap_unrecorded_notes *n, uint64_t total, uint64_t *run)
{
	uint64_t more = note(n, total);
	*run = n->noted;
	return more;
}
