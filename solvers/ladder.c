/*
 * ladder.c - the rungs as engine jobs.  See ladder.h.
 *
 * Each turn (sc_ladder_update) takes in the jobs' reports (track,
 * track_guess), stops every rung once the upper bound is proven optimal
 * (check_proof, stop-at-proof mode only), kills rungs past their whole-rung
 * deadline (check_deadlines), and starts what may start (schedule).  A
 * killed job finishes as cancelled; the flags settled, proved and timed_out
 * say why, so the rung reports stopped_at_proof, optimal or time_limit.
 *
 * Longer than 600 lines: the rung states, the deadlines, the proof and the
 * schedule all read and write the one ladder struct; split across files
 * they would need it in a private header for no gain in clarity.
 */
#define _POSIX_C_SOURCE 200809L
#include "ladder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/cost.h"
#include "core/fleet.h"
#include "core/mem.h"
#include "core/partition.h"
#include "simple.h"

struct sc_ladder {
	sc_engine *e;
	const sc_graph *g;
	sc_settings set; /* k and cpus: those worked with; no pins on devices */
	sc_ladder_params p;
	int *start;  /* the given partition, its non-empty stages renumbered 0.. */
	int k;       /* stages worked with: min(k asked, units) */
	int guesses; /* the guess rung's positions: k, on a fleet its stages but the CPUs' */
	/* devices (ladder.h): the fleet worked with (CPU stages: min(cpus
	 * asked, units)); the partitions' stages are then its K, start_kind
	 * and upper_kind their kinds (K each; NULL without devices) */
	sc_fleet fleet;
	bool kinds;
	int cpus, K;
	int *start_kind, *upper_kind;
	bool pinned; /* devices and pins: the exact MIP ignores the pins */
	double simple;
	double t0, started[SC_RUNG_COUNT], ended[SC_RUNG_COUNT];
	int job[SC_RUNG_COUNT]; /* bottleneck, exact: engine job, or -1 */
	int *guess_job;         /* k entries, -1 until added */
	int guess_added;
	bool cancelled;
	bool settled[SC_RUNG_COUNT];   /* stopped because upper was proven optimal */
	bool proved[SC_RUNG_COUNT];    /* stopped once its own bound proved it */
	bool timed_out[SC_RUNG_COUNT]; /* killed past its whole-rung deadline */
	bool guess_closed;             /* guess's time is up: no more solves start */
	const char *proof;             /* what proved upper optimal, or NULL */
	double upper;     /* the objective (sc_costs_objective) of the best partition */
	int *upper_stage; /* a better partition from the exact MIP, or NULL */
	bool exact_taken; /* the exact MIP's partition has been weighed against upper */
	sc_rung_info info[SC_RUNG_COUNT];
};

const char *sc_rung_state_name(sc_rung_state s)
{
	static const char *const names[] = {"off",    "waiting",   "running",  "done",   "stopped",
	                                    "failed", "cancelled", "unneeded", "skipped"};
	return s >= 0 && s <= SC_RS_SKIPPED ? names[s] : "?";
}

/* Grace after a rung's deadline before the ladder kills what still runs of
 * it: CBC is told the time left and usually ends on its own, reporting its
 * last bound, which a kill would lose. */
enum { GRACE_MS = 1000 };

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Renumbers stage[0..n)'s non-empty stages 0, 1, ... in their order, which
 * keeps the partition valid and its costs (ladder.h).  On devices
 * (kind_out not NULL): kind_in gives the kinds of stage's stages (NULL:
 * the fleet's order, sc_fleet_kind_in_order), and kind_out (f's stages) receives
 * them renumbered, the empty stages after the non-empty ones with the
 * kinds left of each count.  1 when done, 0 when out of memory, -1 when
 * the partition uses more stages of a kind than there are (then it is no
 * start). */
static int compress_kinds(int *stage, int n, const int *kind_in, int *kind_out, const sc_fleet *f)
{
	int *used = malloc((size_t)(n > 0 ? n : 1) * sizeof *used);
	if (!used)
		return 0;
	memcpy(used, stage, (size_t)n * sizeof *used);
	qsort(used, (size_t)n, sizeof *used, cmp_int);
	int m = 0;
	for (int i = 0; i < n; i++)
		if (m == 0 || used[m - 1] != used[i])
			used[m++] = used[i];
	if (kind_out) {
		int left[SC_KINDS_MAX];
		for (int e = 0; e < f->n; e++)
			left[e] = f->kind[e].count;
		for (int i = 0; i < m; i++) {
			int e = kind_in ? kind_in[used[i]] : sc_fleet_kind_in_order(f, used[i]);
			if (e < 0 || e >= f->n || --left[e] < 0) {
				free(used);
				return -1;
			}
			kind_out[i] = e;
		}
		for (int i = m, e = 0; i < sc_fleet_stages(f); i++) {
			while (left[e] == 0)
				e++;
			kind_out[i] = e;
			left[e]--;
		}
	}
	for (int v = 0; v < n; v++) {
		int *at = bsearch(&stage[v], used, (size_t)m, sizeof *used, cmp_int);
		stage[v] = (int)(at - used);
	}
	free(used);
	return 1;
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
	/* a fleet of the graph's device and CPUs is k and --cpus, kind for
	 * kind (mip.h) */
	if (set->fleet && sc_fleet_cpus_form(g, set->fleet)) {
		l->set.k = set->fleet->kind[0].count;
		l->set.cpus = set->fleet->n > 1 ? set->fleet->kind[1].count : 0;
		l->set.fleet = NULL;
	}
	l->k = sc_stages_useful(g, l->set.k);
	l->set.k = l->k;
	/* CPU stages: as many as can be non-empty, like k (ladder.h); the
	 * rungs bound the optimum without pins, which bounds it with them */
	l->cpus = l->set.cpus > 0 ? sc_stages_useful(g, l->set.cpus) : 0;
	l->set.cpus = l->cpus;
	if (!sc_fleet_resolve(g, &l->set, &l->fleet, err)) {
		free(l);
		return NULL;
	}
	l->kinds = !sc_fleet_plain(&l->fleet);
	l->K = l->kinds ? sc_fleet_stages(&l->fleet) : l->k;
	if (l->kinds) {
		l->pinned = set->pin != NULL;
		l->set.pin = NULL;
	}
	l->upper = p->upper;
	/* on a fleet of other kinds the guess rung's middle stage is one of
	 * those that are not CPUs (mip.c's relax_fleet) */
	l->guesses = l->k;
	if (l->set.fleet) {
		int acc = 0;
		for (int d = 0; d < l->fleet.n; d++)
			acc += l->fleet.kind[d].cpu ? 0 : l->fleet.kind[d].count;
		l->guesses = acc > 0 ? sc_stages_useful(g, acc) : 0;
	}
	l->guess_job = malloc((size_t)(l->guesses > 0 ? l->guesses : 1) * sizeof *l->guess_job);
	if (p->start)
		l->start = sc_part_new(g);
	if (p->start && l->kinds)
		l->start_kind = malloc((size_t)l->K * sizeof *l->start_kind);
	if (!l->guess_job || (p->start && !l->start) || (p->start && l->kinds && !l->start_kind)) {
		sc_ladder_free(l);
		sc_error_nomem(err, "the ladder");
		return NULL;
	}
	if (p->start) {
		memcpy(l->start, p->start, (size_t)g->n * sizeof *l->start);
		int done = compress_kinds(l->start, g->n, p->start_kind, l->start_kind, &l->fleet);
		if (done == 0) {
			sc_ladder_free(l);
			sc_error_nomem(err, "the ladder");
			return NULL;
		}
		if (done < 0) { /* not a partition of these stages: no start */
			free(l->start);
			free(l->start_kind);
			l->start = NULL;
			l->start_kind = NULL;
		}
	}
	l->p.start = l->start;
	l->p.start_kind = l->start_kind;
	for (int j = 0; j < l->guesses; j++)
		l->guess_job[j] = -1;
	l->t0 = sc_clock_now();
	if (!l->kinds) {
		l->simple = sc_bound_simple(g, l->k);
	} else if (l->cpus == 0 || l->set.fleet) {
		l->simple = sc_bound_simple_kinds(g, &l->fleet);
	} else if (sc_bound_simple_cpus(g, l->k, l->cpus, &l->simple, err) != SC_OK) {
		sc_ladder_free(l);
		return NULL;
	}
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		l->job[r] = -1;
		l->info[r].rung = (sc_rung)r;
		l->info[r].state = wanted(l, (sc_rung)r) ? SC_RS_WAITING : SC_RS_OFF;
		l->info[r].value = l->simple;
	}
	l->info[SC_RUNG_GUESS].parts = l->guesses;
	if (wanted(l, SC_RUNG_SIMPLE))
		l->info[SC_RUNG_SIMPLE].state = SC_RS_DONE;
	for (int r = 0; l->kinds && r < SC_RUNG_COUNT; r++) {
		/* no version for these devices (ladder.h): skipped, with no value */
		const char *why =
		        r == SC_RUNG_COVER ? (l->set.fleet ? SC_LADDER_COVER_KINDS_REASON
		                                           : SC_LADDER_COVER_CPU_REASON)
		        : l->guesses == 0 && (r == SC_RUNG_BOTTLENECK || r == SC_RUNG_GUESS)
		                ? SC_LADDER_CPUS_ONLY_REASON
		                : NULL;
		if (!why || !wanted(l, (sc_rung)r))
			continue;
		sc_rung_info *ri = &l->info[r];
		ri->state = SC_RS_SKIPPED;
		ri->value = NAN;
		snprintf(ri->message, sizeof ri->message, "%s", why);
	}
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
	free(l->start_kind);
	free(l->upper_stage);
	free(l->upper_kind);
	free(l);
}

/* The objective of stage (l->K stages; on devices kind their kinds) under
 * the ladder's settings: INFINITY when it breaks the hard memory limit or
 * a device's rule, or memory runs out. */
static double objective_of(const sc_ladder *l, const int *stage, const int *kind)
{
	sc_settings set = l->set;
	set.k = l->K;
	sc_costs *c = sc_costs_new(l->g, &set, NULL);
	if (!c)
		return INFINITY;
	if (kind)
		sc_costs_set_kinds(c, kind);
	sc_costs_eval(c, stage);
	double v = sc_costs_objective(c);
	sc_costs_free(c);
	return v;
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
	        .upper = r == SC_RUNG_EXACT || r == SC_RUNG_COVER ? l->upper : INFINITY,
	        .start = r == SC_RUNG_EXACT ? (l->upper_stage ? l->upper_stage : l->start) : NULL,
	        .start_kind = r == SC_RUNG_EXACT ? (l->upper_stage ? l->upper_kind : l->start_kind)
	                                         : NULL};
	if (r == SC_RUNG_GUESS)
		mp.upper = l->upper; /* infeasible below it means "no better than it" */
	if (l->p.deadline > 0) {     /* CBC stops by itself at the whole run's end */
		double left = fmax(0.1, l->p.deadline - sc_clock_now());
		mp.time_limit = mp.time_limit > 0 ? fmin(mp.time_limit, left) : left;
	}
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
	if (l->job[r] < 0) {
		if (l->settled[r] && !finished(ri->state)) {
			ri->state = SC_RS_UNNEEDED;
			l->ended[r] = sc_clock_now();
		}
		return;
	}
	sc_job_info ji;
	sc_engine_info(l->e, l->job[r], &ji);
	sc_rung_state st = from_job(ji.state);
	if (st == SC_RS_CANCELLED && l->proved[r])
		st = SC_RS_DONE; /* its bound reached upper, its own optimum's bound */
	else if (st == SC_RS_CANCELLED && l->settled[r])
		st = SC_RS_UNNEEDED;
	else if (st == SC_RS_CANCELLED && l->timed_out[r])
		st = SC_RS_STOPPED; /* killed at its deadline: its bound so far holds */
	if (st != SC_RS_WAITING && l->started[r] == 0)
		l->started[r] = sc_clock_now();
	if (finished(st) && !finished(ri->state))
		l->ended[r] = sc_clock_now();
	ri->state = st;
	ri->paused = ji.state == SC_JOB_RUNNING && ji.paused;
	if (ji.bound > ri->value && isfinite(ji.bound))
		ri->value = ji.bound;
	else if (isinf(ji.bound) && ji.state == SC_JOB_DONE)
		ri->value = ji.bound; /* infeasible: no partition at all */
	ri->value = capped(l, ri->value);
	if (st == SC_RS_FAILED)
		snprintf(ri->message, sizeof ri->message, "%s", ji.message);
	if (r == SC_RUNG_EXACT && finished(st) && !l->exact_taken) {
		l->exact_taken = true;
		/* The MIP's incumbent is its partition's objective (the
		 * bottleneck, or under GPipe max FW + max BW; on devices under
		 * GPipe its bottleneck, never above that), up to CBC's
		 * tolerances: below upper, the partition may be better than
		 * the searches'.  Its objective, computed here by the cost
		 * model, decides and becomes the upper bound. */
		int *s = NULL;
		int *kind = NULL;
		double v = INFINITY;
		/* on devices with pins, the MIP's partition may break a pin
		 * (mip.h): only its bound counts */
		if (isfinite(ji.incumbent) && ji.incumbent < l->upper * (1 - 1e-9) && !l->pinned) {
			s = sc_part_new(l->g);
			if (l->kinds)
				kind = malloc((size_t)l->K * sizeof *kind);
			bool got = s && (!l->kinds || kind) &&
			           isfinite(sc_engine_result(l->e, l->job[r], s, NULL)) &&
			           (!l->kinds || sc_engine_result_kinds(l->e, l->job[r], kind));
			if (got &&
			    (l->kinds ? sc_part_check_kinds(l->g, s, l->K, &l->fleet, kind, NULL)
			              : sc_part_check(l->g, s, l->K, NULL)))
				v = objective_of(l, s, kind);
		}
		if (v < l->upper * (1 - 1e-9)) {
			free(l->upper_stage);
			free(l->upper_kind);
			l->upper_stage = s;
			l->upper_kind = kind;
			l->upper = v;
		} else {
			free(s);
			free(kind);
		}
	}
}

static void track_guess(sc_ladder *l)
{
	sc_rung_info *ri = &l->info[SC_RUNG_GUESS];
	if (ri->state == SC_RS_OFF || ri->state == SC_RS_SKIPPED)
		return;
	double floor_ = l->simple;
	if (l->info[SC_RUNG_BOTTLENECK].state != SC_RS_OFF)
		floor_ = fmax(floor_, l->info[SC_RUNG_BOTTLENECK].value);
	double v = INFINITY;
	int done = 0, running = 0, stopped = 0, failed = 0, cancelled = 0, begun = 0, paused = 0;
	for (int j = 0; j < l->guesses; j++) {
		/* the floor bounds LB_j from below; so does the solve's bound */
		double b = floor_;
		if (l->guess_job[j] >= 0) {
			sc_job_info ji;
			sc_engine_info(l->e, l->guess_job[j], &ji);
			b = fmax(ji.bound, floor_);
			running += ji.state == SC_JOB_RUNNING;
			paused += ji.state == SC_JOB_RUNNING && ji.paused;
			begun += ji.state != SC_JOB_QUEUED && ji.state != SC_JOB_CANCELLED;
			done += sc_job_finished(ji.state);
			stopped += ji.state == SC_JOB_STOPPED;
			cancelled += ji.state == SC_JOB_CANCELLED;
			if (ji.state == SC_JOB_FAILED) {
				failed++;
				snprintf(ri->message, sizeof ri->message, "solve %d: %.200s", j + 1,
				         ji.message);
			}
		} else if (l->settled[SC_RUNG_GUESS] || l->cancelled) {
			done++;
			cancelled++;
		} else if (l->timed_out[SC_RUNG_GUESS] || l->guess_closed) {
			/* never started: the floor is its bound */
			done++;
			stopped++;
		}
		if (b < v)
			v = b;
	}
	ri->value = capped(l, fmax(v, l->simple));
	ri->parts_done = done;
	sc_rung_state st = ri->state;
	bool out_of_time = l->timed_out[SC_RUNG_GUESS] || l->guess_closed;
	if (done == l->guesses)
		st = failed                                   ? SC_RS_FAILED
		     : cancelled && l->proved[SC_RUNG_GUESS]  ? SC_RS_DONE
		     : cancelled && l->settled[SC_RUNG_GUESS] ? SC_RS_UNNEEDED
		     : cancelled && !out_of_time              ? SC_RS_CANCELLED
		     : stopped || cancelled                   ? SC_RS_STOPPED
		                                              : SC_RS_DONE;
	else if (running || l->guess_added > 0)
		st = SC_RS_RUNNING;
	/* the rung's clock starts when a solve runs, not when one is queued
	 * behind other jobs of the engine (the workbench's searches) */
	if (begun && l->started[SC_RUNG_GUESS] == 0)
		l->started[SC_RUNG_GUESS] = sc_clock_now();
	if (finished(st) && !finished(ri->state))
		l->ended[SC_RUNG_GUESS] = sc_clock_now();
	ri->state = st;
	/* paused when each of its solves that runs is */
	ri->paused = st == SC_RS_RUNNING && running > 0 && paused == running;
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

/* Cancels the jobs of rung r. */
static void cancel_rung(sc_ladder *l, sc_rung r)
{
	if (r == SC_RUNG_GUESS) {
		for (int j = 0; j < l->guess_added; j++)
			sc_engine_cancel(l->e, l->guess_job[j]);
	} else if (l->job[r] >= 0) {
		sc_engine_cancel(l->e, l->job[r]);
	}
}

/* The best lower bound of the rungs that have finished. */
static double floor_known(const sc_ladder *l)
{
	double lower = l->simple;
	for (int r = SC_RUNG_BOTTLENECK; r < SC_RUNG_COUNT; r++)
		if (r != SC_RUNG_EXACT && finished(l->info[r].state) &&
		    l->info[r].state != SC_RS_OFF)
			lower = fmax(lower, l->info[r].value);
	return lower;
}

/* Kills what still runs of a MIP rung GRACE_MS past its deadline (its start
 * plus the time limit, or the whole run's deadline if sooner: the limit
 * holds for the rung as a whole), and once the whole run's deadline is
 * past, takes back what has not started. */
static void check_deadlines(sc_ladder *l, double now)
{
	double T = l->p.time_limit, D = l->p.deadline, grace = GRACE_MS / 1000.0;
	bool over = D > 0 && now >= D; /* the whole run's end: nothing more starts */
	if (over)
		l->guess_closed = true;
	for (int r = SC_RUNG_BOTTLENECK; r < SC_RUNG_COUNT; r++) {
		if (finished(l->info[r].state) || l->timed_out[r])
			continue;
		if (l->started[r] == 0) {
			if (!over)
				continue;
			/* never ran: its floor is its bound; queued: taken back */
			bool queued = r == SC_RUNG_GUESS ? l->guess_added > 0 : l->job[r] >= 0;
			if (!queued && r != SC_RUNG_GUESS) {
				/* the floor it would have started from: the exact
				 * MIP's is every finished rung's best */
				sc_rung_info *ri = &l->info[r];
				if (r == SC_RUNG_EXACT)
					ri->value = fmax(ri->value, floor_known(l));
				ri->state = SC_RS_STOPPED;
				snprintf(ri->message, sizeof ri->message, "%s",
				         SC_LADDER_NOT_STARTED_REASON);
				continue;
			}
		} else {
			/* running: stopped a grace second past its own deadline or
			 * the whole run's, whichever comes first */
			double due = T > 0 ? l->started[r] + T : INFINITY;
			if (D > 0 && D < due)
				due = D;
			if (!(now > due + grace))
				continue;
		}
		l->timed_out[r] = true;
		cancel_rung(l, (sc_rung)r);
	}
}

/* Whether a proof of upper is exact: the exact DP's (the caller's word),
 * the simple bound's (arithmetic, no solver) or one that nothing fits.
 * Every other proof comes from CBC, whose values hold up to its floating
 * point: within SC_LADDER_REL_TOL (ladder.h). */
static bool exact_proof(const sc_ladder *l)
{
	return (l->p.upper_optimal && !l->upper_stage) || l->simple >= l->upper || isinf(l->upper);
}

/* Whether rung r's value proves upper optimal: it has one (it ran or is
 * running) and it is within SC_LADDER_REL_TOL of upper.  Values are capped
 * at upper; inf only when infeasibility is proven. */
static bool proves(const sc_ladder *l, int r)
{
	const sc_rung_info *ri = &l->info[r];
	return ri->state != SC_RS_OFF && ri->state != SC_RS_WAITING &&
	       ri->value >= l->upper * (1 - SC_LADDER_REL_TOL);
}

/* Stop at proof: once upper is proven optimal, stops every rung that has
 * not finished (ladder.h). */
static void check_proof(sc_ladder *l)
{
	if (!l->p.stop_at_proof || l->proof || l->cancelled)
		return;
	const char *by = NULL;
	int prover = -1;
	if (l->p.upper_optimal)
		by = "the exact DP";
	for (int r = 0; r < SC_RUNG_COUNT && !by; r++)
		if (proves(l, r)) {
			by = sc_rung_proof((sc_rung)r);
			prover = r;
		}
	if (!by)
		return;
	l->proof = by;
	/* within the tolerance only: say so (SC_LADDER_REL_TOL) */
	bool exactly = exact_proof(l);
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		sc_rung_info *ri = &l->info[r];
		if (finished(ri->state))
			continue;
		if (r == prover) {
			/* a bound at upper is at its model's capped optimum: done */
			l->proved[r] = true;
			cancel_rung(l, (sc_rung)r);
			continue;
		}
		l->settled[r] = true;
		if (isinf(l->upper))
			snprintf(ri->message, sizeof ri->message,
			         "stopped: no partition fits, proven by %s", by);
		else
			snprintf(ri->message, sizeof ri->message,
			         "stopped: the upper bound was proven optimal by %s%s", by,
			         exactly ? "" : ", within " SC_LADDER_REL_TOL_TEXT " relative");
		cancel_rung(l, (sc_rung)r);
	}
}

/* Adds what may start.  Stop at proof: the exact MIP first, beside the
 * bottleneck MIP, so the strongest certificate can come first, then the
 * cover rung; else the bottleneck MIP beside the cover rung, the guess
 * solves and the exact MIP last with every other rung's value as its
 * floor.  At most one solve of the ladder per slot
 * (the bottleneck MIP excepted when the exact one does not go first: the
 * engine queues it). */
static void schedule(sc_ladder *l)
{
	int slots = sc_engine_slots(l->e);
	double T = l->p.time_limit;
	bool exact_first = l->p.stop_at_proof;
	if (exact_first && wanted(l, SC_RUNG_EXACT) && l->job[SC_RUNG_EXACT] < 0 &&
	    l->info[SC_RUNG_EXACT].state == SC_RS_WAITING && mine_busy(l) < slots)
		l->job[SC_RUNG_EXACT] = add_mip(l, SC_RUNG_EXACT, 0, floor_known(l), T);
	if (wanted(l, SC_RUNG_BOTTLENECK) && l->job[SC_RUNG_BOTTLENECK] < 0 &&
	    l->info[SC_RUNG_BOTTLENECK].state == SC_RS_WAITING &&
	    (!exact_first || mine_busy(l) < slots))
		l->job[SC_RUNG_BOTTLENECK] = add_mip(l, SC_RUNG_BOTTLENECK, 0, l->simple, T);
	/* the cover rung as soon as a slot is free: beside the bottleneck MIP,
	 * or after it when the exact MIP went first */
	if (wanted(l, SC_RUNG_COVER) && l->job[SC_RUNG_COVER] < 0 &&
	    l->info[SC_RUNG_COVER].state == SC_RS_WAITING && mine_busy(l) < slots)
		l->job[SC_RUNG_COVER] = add_mip(l, SC_RUNG_COVER, 0, l->simple, T);
	/* guess solves as slots free up, so each starts with the best floor
	 * known by then; they share the rung's time limit */
	double now = sc_clock_now();
	double due = T > 0 ? (l->started[SC_RUNG_GUESS] > 0 ? l->started[SC_RUNG_GUESS] : now) + T
	                   : INFINITY;
	while (wanted(l, SC_RUNG_GUESS) && l->guess_added < l->guesses && !l->guess_closed &&
	       l->info[SC_RUNG_GUESS].state != SC_RS_FAILED &&
	       l->info[SC_RUNG_GUESS].state != SC_RS_SKIPPED && mine_busy(l) < slots) {
		double lower = l->simple;
		if (l->info[SC_RUNG_BOTTLENECK].state == SC_RS_DONE ||
		    l->info[SC_RUNG_BOTTLENECK].state == SC_RS_STOPPED)
			lower = fmax(lower, l->info[SC_RUNG_BOTTLENECK].value);
		double limit = 0;
		if (T > 0) {
			double left = due - now;
			if (left < 0.1) {
				l->guess_closed = true;
				break;
			}
			/* the time left shared over the rounds still to run */
			int rounds = (l->guesses - l->guess_added + slots - 1) / slots;
			limit = fmin(left, fmax(1, left / rounds));
		}
		int j = l->guess_added;
		l->guess_job[j] = add_mip(l, SC_RUNG_GUESS, j + 1, lower, limit);
		if (l->guess_job[j] < 0)
			break;
		l->guess_added++;
	}
	bool others = finished(l->info[SC_RUNG_BOTTLENECK].state) &&
	              finished(l->info[SC_RUNG_COVER].state) &&
	              (finished(l->info[SC_RUNG_GUESS].state) || l->guess_added == l->guesses ||
	               l->guess_closed);
	if (!exact_first && wanted(l, SC_RUNG_EXACT) && l->job[SC_RUNG_EXACT] < 0 &&
	    l->info[SC_RUNG_EXACT].state == SC_RS_WAITING && others && mine_busy(l) < slots)
		l->job[SC_RUNG_EXACT] = add_mip(l, SC_RUNG_EXACT, 0, floor_known(l), T);
}

static void track_all(sc_ladder *l)
{
	track(l, SC_RUNG_BOTTLENECK);
	track_guess(l);
	track(l, SC_RUNG_EXACT);
	track(l, SC_RUNG_COVER);
}

bool sc_ladder_update(sc_ladder *l)
{
	sc_rung_info before[SC_RUNG_COUNT];
	memcpy(before, l->info, sizeof before);
	track_all(l);
	check_proof(l);
	check_deadlines(l, sc_clock_now());
	if (!l->cancelled && !l->proof)
		schedule(l);
	track_all(l);
	check_proof(l);
	track_all(l);
	double t = sc_clock_now();
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		sc_rung_info *ri = &l->info[r];
		if (r == SC_RUNG_SIMPLE || ri->state == SC_RS_OFF || ri->state == SC_RS_WAITING)
			continue;
		if (l->started[r] == 0)
			ri->seconds = 0; /* never ran */
		else
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
	if (j < 1 || j > l->guesses)
		return;
	const sc_rung_info *ri = &l->info[SC_RUNG_GUESS];
	bool out_of_time = l->timed_out[SC_RUNG_GUESS] || l->guess_closed;
	if (l->guess_job[j - 1] < 0) {
		/* never started: the rung's floor is its bound */
		if (finished(ri->state))
			*state = l->settled[SC_RUNG_GUESS] ? SC_RS_UNNEEDED
			         : out_of_time             ? SC_RS_STOPPED
			                                   : ri->state;
		if (l->info[SC_RUNG_BOTTLENECK].state != SC_RS_OFF)
			*value = capped(l, fmax(l->simple, l->info[SC_RUNG_BOTTLENECK].value));
		return;
	}
	sc_job_info ji;
	if (!sc_engine_info(l->e, l->guess_job[j - 1], &ji))
		return;
	*state = from_job(ji.state);
	if (*state == SC_RS_CANCELLED && l->settled[SC_RUNG_GUESS])
		*state = SC_RS_UNNEEDED;
	else if (*state == SC_RS_CANCELLED && out_of_time)
		*state = SC_RS_STOPPED;
	*value = capped(l, ji.bound);
}

int sc_ladder_stages(const sc_ladder *l)
{
	return l->k;
}

int sc_ladder_cpus(const sc_ladder *l)
{
	return l->cpus;
}

int sc_ladder_stages_all(const sc_ladder *l)
{
	return l->K;
}

bool sc_ladder_proven(const sc_ladder *l, const char **by)
{
	const char *p = l->proof;
	for (int r = 0; r < SC_RUNG_COUNT && !p; r++)
		if (proves(l, r))
			p = sc_rung_proof((sc_rung)r);
	if (!p && l->p.upper_optimal)
		p = "the exact DP";
	if (p && by)
		*by = p;
	return p != NULL;
}

double sc_ladder_proof_tolerance(const sc_ladder *l)
{
	if (!sc_ladder_proven(l, NULL))
		return NAN;
	return exact_proof(l) ? 0 : SC_LADDER_REL_TOL;
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
	return sc_ladder_upper_kinds(l, stage, NULL);
}

double sc_ladder_upper_kinds(const sc_ladder *l, int *stage, int *kind)
{
	const int *from = l->upper_stage ? l->upper_stage : l->start;
	const int *dev = l->upper_stage ? l->upper_kind : l->start_kind;
	if (stage && from)
		memcpy(stage, from, (size_t)l->g->n * sizeof *stage);
	for (int s = 0; kind && from && s < l->K; s++)
		kind[s] = dev ? dev[s] : sc_fleet_kind_in_order(&l->fleet, s);
	return l->upper;
}

double sc_ladder_take_upper(const sc_ladder *l, double upper, int K, int *stage, int *kind,
                            int *nstages)
{
	double best = sc_ladder_upper(l, NULL);
	if (!(best < upper) || (kind && K > 0 && sc_ladder_stages_all(l) != K))
		return upper;
	sc_ladder_upper_kinds(l, stage, kind);
	if (nstages)
		*nstages = sc_ladder_stages_all(l);
	return best;
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

/* sc_ladder_wait's turn (sc_engine_run_until). */
typedef struct ladder_wait {
	sc_ladder *l;
	sc_stop_fn *stop;
	void *ctx;
	bool cancelled;
} ladder_wait;

static bool ladder_wait_done(void *ctx)
{
	return sc_ladder_done(((ladder_wait *)ctx)->l);
}

static void ladder_wait_each(void *ctx)
{
	ladder_wait *w = ctx;
	sc_ladder_update(w->l);
	/* asked every turn: a caller may draw progress from it */
	if (asked_to_stop(w->stop, w->ctx) && !w->cancelled) {
		sc_ladder_cancel(w->l);
		w->cancelled = true;
	}
}

void sc_ladder_wait(sc_engine *e, sc_ladder *l, sc_stop_fn *stop, void *ctx)
{
	/* 100 ms: the rungs' own deadlines and the caller's stop are not
	 * the engine's to report */
	ladder_wait w = {.l = l, .stop = stop, .ctx = ctx};
	sc_engine_run_until(e, 100, ladder_wait_done, ladder_wait_each, &w);
}

const char *sc_rung_report_name(sc_rung_state s)
{
	switch (s) {
	case SC_RS_DONE: return "optimal";
	case SC_RS_STOPPED: return "time_limit";
	case SC_RS_CANCELLED: return "cancelled";
	case SC_RS_FAILED: return "error";
	case SC_RS_UNNEEDED: return "stopped_at_proof";
	default: return sc_rung_state_name(s);
	}
}
