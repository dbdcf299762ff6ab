/* ab_types.h — what the A/B run (ab_run.c), its statistics (ab_stats.c) and
 * its report (ab_report.c) share. */
#ifndef REPLAY_AB_TYPES_H
#define REPLAY_AB_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blkreel/diagnosis.h"
#include "blkreel/error.h"
#include "capture_lib.h"
#include "cli.h"
#include "report.h"

#define AB_MAX_ROUNDS BR_DIAG_SLICES /* a pooled profile holds one slice a run */

/* One replay of the trace onto one side, captured. */
typedef struct ab_run_rec {
	int side;                 /* 0 = A, 1 = B */
	unsigned round;           /* 1..rounds */
	char trace[1100];         /* DIR/roundK-LABEL.blktrace.gz */
	char fidelity_json[1100]; /* DIR/roundK-LABEL.replay.json */
	bool done;                /* replayed and captured, files in place */
	int status;               /* replay's exit status (1: IOs failed) */
	fidelity fid;
	cap_lib_counts cap;
	double wall_s;            /* the whole run: checks, capture start, replay, capture stop */
	double cap_start_s, cap_stop_s;
	br_diag_profile prof;     /* of the captured trace (ab_stats_load) */
	uint64_t events;
} ab_run_rec;

/* One metric's rounds: A against B. */
enum { AB_M_X, AB_M_U, AB_M_N, AB_M_S, AB_M_R, AB_M_Q2C, AB_M_PHASE0, AB_M_COUNT = AB_M_PHASE0 + BR_DP_COUNT };

typedef struct ab_metric {
	const char *key, *name, *unit;  /* "d2c_us", "D2C", "us" */
	double scale;                   /* value shown = raw / scale */
	bool present;                   /* > 0 in every run of both sides */
	double v[2][AB_MAX_ROUNDS];     /* per run, in round order, raw */
	size_t n[2];
	double mean[2];                 /* geometric means, raw */
	double sd_ln[2];                /* spread of ln values within a side */
	double ratio;                   /* B / A */
	double t, df;                   /* Welch, ln B − ln A; df Welch–Satterthwaite */
	double t_need;                  /* the |t| it had to reach at that df (br_diag_t_needed) */
	double floor;                   /* smallest |B/A − 1| these rounds could show */
	bool significant;
} ab_metric;

typedef struct ab_ctx {
	const replay_opts *o;
	const char *dev[2];
	const char *label[2];
	unsigned rounds;
	const char *dir;
	ab_run_rec *runs;         /* 2 * rounds, in the order run */
	size_t nruns;             /* runs started */
	bool interrupted;
	/* after the rounds */
	br_diag_profile pool[2];
	br_diagnosis diag;
	bool has_diag;
	ab_metric m[AB_M_COUNT];
	/* the overlay figure (ab_figure.c) */
	bool has_figure;
	char figure[1100];        /* DIR/overlay.png */
	char figure_why[512];     /* what it shows, or why there is none */
} ab_ctx;

/* Read each finished run's trace into its profile. 0 or a br_code. */
int ab_stats_load(ab_ctx *c, br_error *err);
/* Pool each side, diagnose A against B, the per-metric table. */
int ab_stats_compare(ab_ctx *c, br_error *err);

/* DIR/overlay.png by blkreel-plot, when it is installed beside this
 * program and works; has_figure and figure_why say which. */
void ab_figure(ab_ctx *c);

/* DIR/report.txt, report.md, report.html and report.json, each written to a temporary file
 * and renamed into place. 0 or a br_code. */
int ab_report_write(const ab_ctx *c, br_error *err);

#endif
