/* The sentences of a diagnosis and the staging of its terms: numbers for
 * people, notes, and the mechanisms of one factor netted when they point
 * different ways (blkreel/diagnosis.h). */
#include "diagnosis_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

double dx_ratio_ln(double a, double b)
{
	return a > 0 && b > 0 ? log(a / b) : 0;
}

double dx_pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

void dx_say(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

void dx_note(br_diagnosis *d, const char *fmt, ...)
{
	if (d->nnotes == BR_DIAG_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->notes[d->nnotes++], sizeof d->notes[0], fmt, ap);
	va_end(ap);
}

/* A term toward (term > 0) or against the difference; same ids merge. */
void dx_commit_term(diag_ctx *c, enum br_diag_cause_id cause, enum br_diag_factor factor, double term,
		    bool sig, const char *evidence)
{
	br_diagnosis *d = c->out;
	br_diag_cause *list = term >= 0 ? d->causes : d->against;
	size_t *n = term >= 0 ? &d->ncauses : &d->nagainst;
	for (size_t k = 0; k < *n; k++)
		if (list[k].cause == cause) {
			br_diag_cause *x = &list[k];
			if (fabs(term) > fabs(x->term)) {
				x->factor = factor;
				snprintf(x->evidence, sizeof x->evidence, "%s", evidence);
			}
			x->term += term;
			x->significant |= sig;
			return;
		}
	if (*n == BR_DIAG_MAX_CAUSES)
		return;
	br_diag_cause *x = &list[(*n)++];
	memset(x, 0, sizeof *x);
	x->cause = cause;
	x->factor = factor;
	x->term = term;
	x->significant = sig;
	snprintf(x->evidence, sizeof x->evidence, "%s", evidence);
}

void dx_add_term(diag_ctx *c, enum br_diag_cause_id cause, enum br_diag_factor factor, double term,
		 bool sig, const char *evidence)
{
	if (c->nstage == sizeof c->stage / sizeof c->stage[0])
		return;
	staged *x = &c->stage[c->nstage++];
	x->cause = cause;
	x->factor = factor;
	x->term = term;
	x->sig = sig;
	snprintf(x->evidence, sizeof x->evidence, "%s", evidence);
}

/* The mechanisms of one factor: when they point different ways (small
 * bios merged into large requests), their gross sizes would overstate
 * both; the factor's net term then goes to the largest mechanism that
 * points its way. */
void dx_flush_stage(diag_ctx *c)
{
	double net = 0;
	bool mixed = false;
	for (size_t k = 0; k < c->nstage; k++)
		net += c->stage[k].term;
	for (size_t k = 0; k < c->nstage; k++)
		if (fabs(c->stage[k].term) > 1e-12 && (c->stage[k].term > 0) != (net > 0))
			mixed = true;
	if (!mixed) {
		for (size_t k = 0; k < c->nstage; k++)
			dx_commit_term(c, c->stage[k].cause, c->stage[k].factor, c->stage[k].term,
				    c->stage[k].sig, c->stage[k].evidence);
	} else {
		size_t best = 0;
		for (size_t k = 1; k < c->nstage; k++)
			if (c->stage[k].term * (net > 0 ? 1 : -1) > c->stage[best].term * (net > 0 ? 1 : -1))
				best = k;
		dx_commit_term(c, c->stage[best].cause, c->stage[best].factor, net, c->stage[best].sig,
			    c->stage[best].evidence);
	}
	c->nstage = 0;
}

char *dx_size_str(double bytes, char *buf, size_t n)
{
	if (bytes >= 1048576)
		snprintf(buf, n, "%.2f MiB", bytes / 1048576);
	else if (bytes >= 1024)
		snprintf(buf, n, "%.1f KiB", bytes / 1024);
	else
		snprintf(buf, n, "%.0f B", bytes);
	return buf;
}

char *dx_time_str(double ns, char *buf, size_t n)
{
	if (ns >= 1e9)
		snprintf(buf, n, "%.2f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, n, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, n, "%.1f us", ns / 1e3);
	return buf;
}
