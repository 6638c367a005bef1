/*
 * ladder.c - the rungs as engine jobs.  See ladder.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "ladder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/mem.h"
#include "core/partition.h"
#include "simple.h"

struct sc_ladder {
	sc_engine *e;
	const sc_graph *g;
	sc_settings set;
	sc_ladder_params p;
	int *start;
	int k;
	double simple;
	double t0, started[SC_RUNG_COUNT], ended[SC_RUNG_COUNT];
	int job[SC_RUNG_COUNT]; /* bottleneck, exact: engine job, or -1 */
	int *guess_job;         /* k entries, -1 until added */
	int guess_added;
	bool cancelled;
	double upper;
	int *upper_stage; /* a better partition from the exact MIP, or NULL */
	sc_rung_info info[SC_RUNG_COUNT];
};

const char *sc_rung_state_name(sc_rung_state s)
{
	static const char *const names[] = {"off",     "waiting", "running",  "done",
	                                    "stopped", "failed",  "cancelled"};
	return s >= 0 && s <= SC_RS_CANCELLED ? names[s] : "?";
}

static bool wanted(const sc_ladder *l, sc_rung r)
{
	return l->p.rungs & (1u << r);
}

sc_ladder *sc_ladder_new(sc_engine *e, const sc_graph *g, const sc_settings *set,
                         const sc_ladder_params *p, sc_error *err)
{
	if (set->k < 1) {
		sc_error_set(err, SC_ERR_INPUT, "the ladder needs k >= 1 stages");
		return NULL;
	}
	sc_ladder *l = calloc(1, sizeof *l);
	if (!l) {
		sc_error_nomem(err, "the ladder");
		return NULL;
	}
	l->e = e;
	l->g = g;
	l->set = *set;
	l->p = *p;
	l->k = set->k;
	l->upper = p->upper;
	l->guess_job = malloc((size_t)l->k * sizeof *l->guess_job);
	if (p->start)
		l->start = sc_part_new(g);
	if (!l->guess_job || (p->start && !l->start)) {
		sc_ladder_free(l);
		sc_error_nomem(err, "the ladder");
		return NULL;
	}
	if (p->start)
		memcpy(l->start, p->start, (size_t)g->n * sizeof *l->start);
	l->p.start = l->start;
	for (int j = 0; j < l->k; j++)
		l->guess_job[j] = -1;
	l->t0 = sc_clock_now();
	l->simple = sc_bound_simple(g, l->k);
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		l->job[r] = -1;
		l->info[r].rung = (sc_rung)r;
		l->info[r].state = wanted(l, (sc_rung)r) ? SC_RS_WAITING : SC_RS_OFF;
		l->info[r].value = l->simple;
	}
	l->info[SC_RUNG_GUESS].parts = l->k;
	if (wanted(l, SC_RUNG_SIMPLE))
		l->info[SC_RUNG_SIMPLE].state = SC_RS_DONE;
	sc_ladder_update(l);
	return l;
}

void sc_ladder_free(sc_ladder *l)
{
	if (!l)
		return;
	sc_ladder_cancel(l);
	/* the rungs' jobs go back to the engine as soon as they have ended, so
	 * a long-lived engine (the workbench's) does not keep every ladder */
	for (int r = 0; r < SC_RUNG_COUNT; r++)
		if (l->job[r] >= 0)
			sc_engine_discard(l->e, l->job[r]);
	for (int j = 0; j < l->guess_added; j++)
		if (l->guess_job[j] >= 0)
			sc_engine_discard(l->e, l->guess_job[j]);
	free(l->guess_job);
	free(l->start);
	free(l->upper_stage);
	free(l);
}

static double capped(const sc_ladder *l, double v)
{
	return v > l->upper ? l->upper : v;
}

static int add_mip(sc_ladder *l, sc_rung r, int j, double lower, double limit)
{
	sc_mip_params mp = {
	        .rung = r,
	        .k = l->k,
	        .guess = j,
	        .time_limit = limit,
	        .lower = lower,
	        .upper = r == SC_RUNG_EXACT ? l->upper : INFINITY,
	        .start = r == SC_RUNG_EXACT ? (l->upper_stage ? l->upper_stage : l->start) : NULL};
	if (r == SC_RUNG_GUESS)
		mp.upper = l->upper; /* infeasible below it means "no better than it" */
	sc_error err;
	int id = sc_engine_add_mip(l->e, l->g, &l->set, &mp, &err);
	if (id < 0) {
		l->info[r].state = SC_RS_FAILED;
		snprintf(l->info[r].message, sizeof l->info[r].message, "%.255s", err.msg);
	}
	return id;
}

static sc_rung_state from_job(sc_job_state s)
{
	switch (s) {
	case SC_JOB_QUEUED: return SC_RS_WAITING;
	case SC_JOB_RUNNING: return SC_RS_RUNNING;
	case SC_JOB_DONE: return SC_RS_DONE;
	case SC_JOB_STOPPED: return SC_RS_STOPPED;
	case SC_JOB_CANCELLED: return SC_RS_CANCELLED;
	default: return SC_RS_FAILED;
	}
}

static bool finished(sc_rung_state s)
{
	return s == SC_RS_OFF || s >= SC_RS_DONE;
}

/* Updates a one-job rung (bottleneck, exact) from its job. */
static void track(sc_ladder *l, sc_rung r)
{
	sc_rung_info *ri = &l->info[r];
	if (l->job[r] < 0)
		return;
	sc_job_info ji;
	sc_engine_info(l->e, l->job[r], &ji);
	sc_rung_state st = from_job(ji.state);
	if (st != SC_RS_WAITING && l->started[r] == 0)
		l->started[r] = sc_clock_now();
	if (finished(st) && !finished(ri->state))
		l->ended[r] = sc_clock_now();
	ri->state = st;
	if (ji.bound > ri->value && isfinite(ji.bound))
		ri->value = ji.bound;
	else if (isinf(ji.bound) && ji.state == SC_JOB_DONE)
		ri->value = ji.bound; /* infeasible: no partition at all */
	ri->value = capped(l, ri->value);
	if (st == SC_RS_FAILED)
		snprintf(ri->message, sizeof ri->message, "%s", ji.message);
	if (r == SC_RUNG_EXACT && finished(st) && isfinite(ji.incumbent) &&
	    ji.incumbent < l->upper * (1 - 1e-9)) {
		/* the MIP found a better partition than the searches */
		int *s = sc_part_new(l->g);
		if (s && isfinite(sc_engine_result(l->e, l->job[r], s, NULL))) {
			free(l->upper_stage);
			l->upper_stage = s;
			l->upper = ji.incumbent;
		} else {
			free(s);
		}
	}
}

static void track_guess(sc_ladder *l)
{
	sc_rung_info *ri = &l->info[SC_RUNG_GUESS];
	if (ri->state == SC_RS_OFF)
		return;
	double floor_ = l->simple;
	if (l->info[SC_RUNG_BOTTLENECK].state != SC_RS_OFF)
		floor_ = fmax(floor_, l->info[SC_RUNG_BOTTLENECK].value);
	double v = INFINITY;
	int done = 0, running = 0, stopped = 0, failed = 0, cancelled = 0;
	for (int j = 0; j < l->k; j++) {
		/* the floor bounds LB_j from below; so does the solve's bound */
		double b = floor_;
		if (l->guess_job[j] >= 0) {
			sc_job_info ji;
			sc_engine_info(l->e, l->guess_job[j], &ji);
			b = fmax(ji.bound, floor_);
			running += ji.state == SC_JOB_RUNNING;
			done += sc_job_finished(ji.state);
			stopped += ji.state == SC_JOB_STOPPED;
			cancelled += ji.state == SC_JOB_CANCELLED;
			if (ji.state == SC_JOB_FAILED) {
				failed++;
				snprintf(ri->message, sizeof ri->message, "solve %d: %.200s", j + 1,
				         ji.message);
			}
		} else if (l->cancelled) {
			done++;
			cancelled++;
		}
		if (b < v)
			v = b;
	}
	ri->value = capped(l, fmax(v, l->simple));
	ri->parts_done = done;
	sc_rung_state st = ri->state;
	if (done == l->k)
		st = failed      ? SC_RS_FAILED
		     : cancelled ? SC_RS_CANCELLED
		     : stopped   ? SC_RS_STOPPED
		                 : SC_RS_DONE;
	else if (running || l->guess_added > 0)
		st = SC_RS_RUNNING;
	if (st != SC_RS_WAITING && l->started[SC_RUNG_GUESS] == 0)
		l->started[SC_RUNG_GUESS] = sc_clock_now();
	if (finished(st) && !finished(ri->state))
		l->ended[SC_RUNG_GUESS] = sc_clock_now();
	ri->state = st;
}

static int mine_busy(const sc_ladder *l)
{
	int n = 0;
	sc_job_info ji;
	for (int r = 0; r < SC_RUNG_COUNT; r++)
		if (l->job[r] >= 0 && sc_engine_info(l->e, l->job[r], &ji))
			n += !sc_job_finished(ji.state);
	for (int j = 0; j < l->guess_added; j++)
		if (sc_engine_info(l->e, l->guess_job[j], &ji))
			n += !sc_job_finished(ji.state);
	return n;
}

bool sc_ladder_update(sc_ladder *l)
{
	sc_rung_info before[SC_RUNG_COUNT];
	memcpy(before, l->info, sizeof before);
	track(l, SC_RUNG_BOTTLENECK);
	track_guess(l);
	track(l, SC_RUNG_EXACT);
	if (!l->cancelled) {
		int slots = sc_engine_slots(l->e);
		double T = l->p.time_limit;
		if (wanted(l, SC_RUNG_BOTTLENECK) && l->job[SC_RUNG_BOTTLENECK] < 0 &&
		    l->info[SC_RUNG_BOTTLENECK].state == SC_RS_WAITING)
			l->job[SC_RUNG_BOTTLENECK] =
			        add_mip(l, SC_RUNG_BOTTLENECK, 0, l->simple, T);
		/* guess solves as slots free up, so each starts with the best
		 * floor known by then */
		while (wanted(l, SC_RUNG_GUESS) && l->guess_added < l->k &&
		       l->info[SC_RUNG_GUESS].state != SC_RS_FAILED && mine_busy(l) < slots) {
			double lower = l->simple;
			if (l->info[SC_RUNG_BOTTLENECK].state == SC_RS_DONE ||
			    l->info[SC_RUNG_BOTTLENECK].state == SC_RS_STOPPED)
				lower = fmax(lower, l->info[SC_RUNG_BOTTLENECK].value);
			double limit = T > 0 ? fmax(1, T * slots / l->k) : 0;
			int j = l->guess_added;
			l->guess_job[j] = add_mip(l, SC_RUNG_GUESS, j + 1, lower, limit);
			if (l->guess_job[j] < 0)
				break;
			l->guess_added++;
		}
		/* exact last, with every other rung's value as its floor */
		bool others = finished(l->info[SC_RUNG_BOTTLENECK].state) &&
		              (finished(l->info[SC_RUNG_GUESS].state) || l->guess_added == l->k);
		if (wanted(l, SC_RUNG_EXACT) && l->job[SC_RUNG_EXACT] < 0 &&
		    l->info[SC_RUNG_EXACT].state == SC_RS_WAITING && others &&
		    mine_busy(l) < slots) {
			double lower = l->simple;
			for (int r = SC_RUNG_BOTTLENECK; r < SC_RUNG_EXACT; r++)
				if (finished(l->info[r].state) && l->info[r].state != SC_RS_OFF)
					lower = fmax(lower, l->info[r].value);
			l->job[SC_RUNG_EXACT] = add_mip(l, SC_RUNG_EXACT, 0, lower, T);
		}
		track(l, SC_RUNG_BOTTLENECK);
		track_guess(l);
		track(l, SC_RUNG_EXACT);
	}
	double t = sc_clock_now();
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		sc_rung_info *ri = &l->info[r];
		if (r == SC_RUNG_SIMPLE || ri->state == SC_RS_OFF || ri->state == SC_RS_WAITING)
			continue;
		ri->seconds = (finished(ri->state) ? l->ended[r] : t) - l->started[r];
	}
	return memcmp(before, l->info, sizeof before) != 0;
}

bool sc_ladder_done(const sc_ladder *l)
{
	for (int r = 0; r < SC_RUNG_COUNT; r++)
		if (!finished(l->info[r].state))
			return false;
	return true;
}

void sc_ladder_info(const sc_ladder *l, sc_rung r, sc_rung_info *out)
{
	*out = l->info[r];
}

void sc_ladder_guess_part(const sc_ladder *l, int j, sc_rung_state *state, double *value)
{
	*state = SC_RS_WAITING;
	*value = l->simple;
	if (j < 1 || j > l->k || l->guess_job[j - 1] < 0)
		return;
	sc_job_info ji;
	sc_engine_info(l->e, l->guess_job[j - 1], &ji);
	*state = from_job(ji.state);
	*value = capped(l, ji.bound);
}

double sc_ladder_lower(const sc_ladder *l)
{
	double v = 0;
	for (int r = 0; r < SC_RUNG_COUNT; r++)
		if (l->info[r].state != SC_RS_OFF && l->info[r].state != SC_RS_WAITING &&
		    l->info[r].value > v)
			v = l->info[r].value;
	return v;
}

double sc_ladder_upper(const sc_ladder *l, int *stage)
{
	if (stage && l->upper_stage)
		memcpy(stage, l->upper_stage, (size_t)l->g->n * sizeof *stage);
	else if (stage && l->start)
		memcpy(stage, l->start, (size_t)l->g->n * sizeof *stage);
	return l->upper;
}

void sc_ladder_cancel(sc_ladder *l)
{
	l->cancelled = true;
	for (int r = 0; r < SC_RUNG_COUNT; r++)
		if (l->job[r] >= 0)
			sc_engine_cancel(l->e, l->job[r]);
	for (int j = 0; j < l->guess_added; j++)
		sc_engine_cancel(l->e, l->guess_job[j]);
	for (int r = 0; r < SC_RUNG_COUNT; r++)
		if (l->info[r].state == SC_RS_WAITING)
			l->info[r].state = SC_RS_CANCELLED;
	sc_ladder_update(l); /* solves never added count as cancelled */
}

static bool asked_to_stop(sc_stop_fn *stop, void *ctx)
{
	return stop && stop(ctx);
}

void sc_ladder_wait(sc_engine *e, sc_ladder *l, sc_stop_fn *stop, void *ctx)
{
	bool cancelled = false;
	while (!sc_ladder_done(l)) {
		sc_engine_poll(e, 100, -1, NULL);
		sc_ladder_update(l);
		/* asked every turn: a caller may draw progress from it */
		if (asked_to_stop(stop, ctx) && !cancelled) {
			sc_ladder_cancel(l);
			cancelled = true;
		}
	}
}

const char *sc_rung_report_name(sc_rung_state s)
{
	switch (s) {
	case SC_RS_DONE: return "optimal";
	case SC_RS_STOPPED: return "time_limit";
	case SC_RS_CANCELLED: return "cancelled";
	case SC_RS_FAILED: return "error";
	default: return sc_rung_state_name(s);
	}
}
