/*
 * solve_proof.c - the certificate `stagecut solve` asks for when its search
 * ends without a proof: a ladder (solvers/ladder.h) of the
 * simple bound and the exact MIP only, in stop-at-proof mode, started from
 * the partition found and its objective.  The exact MIP either solves to
 * optimality (the partition, or the better one it found, is optimal within
 * the ladder's tolerance SC_LADDER_REL_TOL, which the report states), or
 * stops at its time limit with a proven lower bound, whose certified gap the
 * report gives.  The simple bound costs nothing and proves some partitions
 * exactly (a stage of one op at the largest op's work).
 *
 * Only the exact MIP: the other rungs bound the optimum but never prove a
 * partition the exact MIP cannot, and on a 2-core machine they would take
 * the second core from it.
 */
#define _POSIX_C_SOURCE 200809L
#include "solve_proof.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui/ui.h"
#include "core/clock.h"
#include "core/fleet.h"
#include "solvers/jobs.h"
#include "solvers/ladder.h"

const char *ui_proof_status_name(ui_proof_status s)
{
	switch (s) {
	case UI_PROOF_SEARCH: return "search";
	case UI_PROOF_PROVEN: return "proven";
	case UI_PROOF_TIME_LIMIT: return "time_limit";
	case UI_PROOF_OFF: return "off";
	case UI_PROOF_NO_TIME: return "no_time";
	case UI_PROOF_INTERRUPTED: return "interrupted";
	case UI_PROOF_FAILED: return "failed";
	case UI_PROOF_NONE: return "none";
	case UI_PROOF_NO_BOUND: return "no_bound";
	case UI_PROOF_BOUND: return "simple_bound";
	}
	return "?";
}

/* What the progress line needs between the ladder's turns. */
typedef struct proof_view {
	const sc_ladder *l;
	bool tty;
	double start, last;
} proof_view;

static bool proof_turn(void *ctx)
{
	proof_view *v = ctx;
	double now = sc_clock_now();
	if (v->tty && now - v->last >= 0.2) {
		v->last = now;
		sc_rung_info ri;
		sc_ladder_info(v->l, SC_RUNG_EXACT, &ri);
		char b[32];
		ui_progress("proof: exact MIP, lower bound %s, %.1f s",
		            ui_num(sc_ladder_lower(v->l), b, sizeof b), now - v->start);
	}
	return ui_interrupted();
}

/* The report's name of a proof: a rung's label ("exact MIP") for its
 * proof text ("the exact MIP"). */
static const char *proof_label(const char *by)
{
	for (int r = 0; r < SC_RUNG_COUNT; r++)
		if (strcmp(by, sc_rung_proof((sc_rung)r)) == 0)
			return sc_rung_label((sc_rung)r);
	return by;
}

void ui_proof_run(const sc_graph *g, const sc_settings *set, int *stage, int *kind, double upper,
                  double seconds, bool tty, ui_proof *pf)
{
	*pf = (ui_proof){.status = UI_PROOF_FAILED,
	                 .within = NAN,
	                 .lower = NAN,
	                 .upper = upper,
	                 .searched = upper};
	double t0 = sc_clock_now();
	sc_error err;
	sc_engine *e = sc_engine_new(0, &err);
	sc_ladder *l = NULL;
	if (!e) {
		snprintf(pf->message, sizeof pf->message, "%s", err.msg);
		return;
	}
	sc_ladder_params lp = {.rungs = (1u << SC_RUNG_SIMPLE) | (1u << SC_RUNG_EXACT),
	                       .time_limit = seconds,
	                       .upper = upper,
	                       .start = isfinite(upper) ? stage : NULL,
	                       .start_kind = isfinite(upper) ? kind : NULL,
	                       .stop_at_proof = true};
	l = sc_ladder_new(e, g, set, &lp, &err);
	if (!l) {
		snprintf(pf->message, sizeof pf->message, "%s", err.msg);
		sc_engine_free(e);
		return;
	}
	proof_view view = {.l = l, .tty = tty, .start = t0, .last = -1};
	sc_ladder_wait(e, l, proof_turn, &view);
	if (tty)
		ui_progress_done();
	/* on devices a partition the MIP found is taken when it numbers the
	 * stages as asked (the ladder works with fewer when k or L is above
	 * what the ops can fill) */
	double best = sc_ladder_take_upper(l, upper, sc_settings_stages(set), stage, kind, NULL);
	if (best < upper) {
		pf->improved = true;
		pf->upper = best;
	}
	pf->lower = fmin(sc_ladder_lower(l), pf->upper);
	const char *by;
	sc_rung_info ri;
	sc_ladder_info(l, SC_RUNG_EXACT, &ri);
	if (sc_ladder_proven(l, &by)) {
		pf->status = UI_PROOF_PROVEN;
		pf->by = proof_label(by);
		pf->within = sc_ladder_proof_tolerance(l);
	} else if (ui_interrupted() || ri.state == SC_RS_CANCELLED) {
		pf->status = UI_PROOF_INTERRUPTED;
	} else if (ri.state == SC_RS_FAILED) {
		pf->status = UI_PROOF_FAILED;
		snprintf(pf->message, sizeof pf->message, "%s", ri.message);
	} else {
		pf->status = UI_PROOF_TIME_LIMIT;
	}
	pf->seconds = sc_clock_now() - t0;
	sc_ladder_free(l);
	sc_engine_free(e);
}
