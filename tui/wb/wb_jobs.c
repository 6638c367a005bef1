/*
 * wb_jobs.c - the workbench's jobs: starting and cancelling the search and
 * the ladder of lower bounds on the engine (solvers/jobs.h,
 * solvers/ladder.h), taking in what they report, and keeping the best
 * partition any of them found.
 *
 * The loop (workbench.c) polls the engine and calls wb_follow_jobs once a
 * turn.  A finished search's result is taken in one place,
 * take_search_result, after which the job is released (sc_engine_release):
 * a long session keeps no finished search's memory.  A search replaced by
 * a new one, and a ladder's rungs when it is freed, are discarded
 * (sc_engine_discard): released once they have ended.
 *
 * The engineer's own searches (s, S, r, the CPU table) are preferred jobs
 * of the engine (jobs.h): one starts at once, pausing the ladder rung
 * started last when every core is taken, and x stops only the search (X
 * the rungs too).
 *
 * The ladder the first search starts stops its other rungs once the
 * optimum is proven (ladder.h, stop at proof: the exact DP's proof stops
 * them at once); the one the engineer starts with l runs every rung, for
 * what each one teaches.
 *
 * wb_answer_get answers the practitioner's question about the partition on
 * screen, for every screen that asks it: its objective against the best
 * lower bound (the gap, as an exported image's caption computes it,
 * sc_caption_gap), and the best partition found beside it.
 *
 * Layer: above the state (layer 3 in wb.h): it calls only wb_state.c;
 * views, modals and the dispatcher start and cancel jobs through it.
 */
#define _POSIX_C_SOURCE 200809L
#include "tui/wb/wb_jobs.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/partition.h"
#include "tui/ui.h"
#include "viz/caption.h"

wb_jobs *wb_jobs_new(void)
{
	wb_jobs *j = calloc(1, sizeof *j);
	if (!j)
		return NULL;
	j->search = -1;
	snprintf(j->search_pick, sizeof j->search_pick, "best");
	j->search_seed = 1;
	j->search_time = 30;
	j->rung_time = 60;
	return j;
}

void wb_jobs_free(wb_jobs *jobs)
{
	if (!jobs)
		return;
	sc_ladder_free(jobs->ladder);
	free(jobs);
}

/* Records stage as the best partition when value beats the best known, or
 * equals it and is now proven optimal. */
/* With devices, kind gives the partition's stage kinds (one per stage, all
 * sc_settings_stages of them; NULL: the current ones). */
static void offer_best_kinds(wb *w, const int *stage, const int *kind, double value,
                             const char *from, bool optimal)
{
	if (!(value < w->best * (1 - 1e-12)) && !(optimal && value <= w->best * (1 + 1e-12)))
		return;
	bool better = value < w->best * (1 - 1e-12);
	w->best = value;
	w->best_optimal = optimal;
	snprintf(w->best_from, sizeof w->best_from, "%s", from);
	if (better)
		memcpy(w->best_stage, stage, (size_t)w->g->n * sizeof *stage);
	if (better && w->best_kind)
		memcpy(w->best_kind, kind ? kind : w->kind,
		       (size_t)sc_settings_stages(&w->set) * sizeof *w->best_kind);
}

/* The engine's jobs by state, and the search's place in the queue (the
 * engine starts queued jobs in the order they came).  Only while jobs run:
 * O(jobs added so far), never per key. */
static void count_jobs(wb *w)
{
	int busy = sc_engine_busy(w->eng);
	w->jobs->running = w->jobs->queued = w->jobs->paused = w->jobs->search_queue = 0;
	sc_job_info ji;
	bool queued = busy > 0 && w->jobs->search >= 0 &&
	              sc_engine_info(w->eng, w->jobs->search, &ji) && ji.state == SC_JOB_QUEUED;
	int ahead = 0;
	/* busy jobs are never released, so the ids hold them all */
	for (int id = 0, seen = 0; seen < busy && id < (1 << 30); id++) {
		if (!sc_engine_info(w->eng, id, &ji) || sc_job_finished(ji.state))
			continue;
		seen++;
		if (ji.state == SC_JOB_RUNNING && ji.paused)
			w->jobs->paused++;
		else if (ji.state == SC_JOB_RUNNING)
			w->jobs->running++;
		else
			w->jobs->queued++;
		/* the user's search starts before the jobs that are not the
		 * user's (sc_engine_prefer): only those can be ahead of it */
		if (ji.state == SC_JOB_QUEUED && id < w->jobs->search && ji.preferred)
			ahead++;
	}
	if (queued)
		w->jobs->search_queue = ahead + 1;
}

void wb_reset_best(wb *w)
{
	w->best = sc_costs_objective(w->c);
	w->best_optimal = false;
	w->jobs->none_fits = false;
	memcpy(w->best_stage, w->stage, (size_t)w->g->n * sizeof *w->best_stage);
	if (w->best_kind)
		memcpy(w->best_kind, w->kind,
		       (size_t)sc_settings_stages(&w->set) * sizeof *w->best_kind);
	snprintf(w->best_from, sizeof w->best_from, "current");
}

/* Starts method (NULL: the settings' method) from start with evals
 * evaluations (0: the method's default) and the next seed; false when it
 * cannot start (said in the status line). */
static bool start_search(wb *w, const char *method, const int *start, long evals)
{
	if (w->jobs->search >= 0)
		sc_engine_discard(w->eng, w->jobs->search); /* its result is no longer wanted */
	if (!method)
		method = w->jobs->search_pick;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = method;
	p.time_limit = w->jobs->until_stopped ? 0 : w->jobs->search_time;
	p.evals = evals;
	p.seed = (uint64_t)w->jobs->search_seed;
	p.start = start;
	/* with devices a start is the current partition with its kinds */
	p.start_kind = start ? w->kind : NULL;
	sc_error err;
	/* the pinned ops where they are now (the engine copies the pins) */
	sc_settings set;
	wb_job_settings(w, &set);
	int *pin = w->npinned ? sc_part_new(w->g) : NULL;
	for (int v = 0; pin && v < w->g->n; v++)
		pin[v] = w->pinned[v] ? w->stage[v] : -1;
	set.pin = pin;
	int id = sc_engine_add_search(w->eng, w->g, &set, &p, &err);
	free(pin);
	/* the user asked: it runs at once, pausing a ladder rung if need be */
	if (id >= 0)
		sc_engine_prefer(w->eng, id);
	if (id < 0) {
		w->jobs->until_stopped = false;
		wb_say(w, "cannot start the search: %s", err.msg);
		return false;
	}
	w->jobs->search = id;
	w->jobs->search_pins = w->npinned;
	w->jobs->search_run_seed = w->jobs->search_seed++;
	snprintf(w->jobs->search_method, sizeof w->jobs->search_method, "%s", method);
	w->jobs->search_t0 = sc_clock_now();
	w->jobs->nhist = 0;
	memset(&w->jobs->search_info, 0, sizeof w->jobs->search_info);
	count_jobs(w);
	return true;
}

void wb_start_search(wb *w, const char *method, const int *start)
{
	w->jobs->until_stopped = false;
	if (start_search(w, method, start, w->jobs->search_evals))
		wb_say(w, "search %s started (seed %ld)", w->jobs->search_method,
		       w->jobs->search_run_seed);
}

void wb_search_again(wb *w, bool until_stopped)
{
	w->jobs->until_stopped = until_stopped;
	w->jobs->rounds = 1;
	w->jobs->until_evals = w->jobs->search_evals;
	if (!start_search(w, NULL, NULL, w->jobs->search_evals))
		return;
	const char *proven = w->best_optimal ? " (the best is already proven optimal)" : "";
	if (until_stopped)
		wb_say(w,
		       "search %s until stopped (x): seed %ld, each next round doubles its "
		       "evaluations%s",
		       w->jobs->search_method, w->jobs->search_run_seed, proven);
	else
		wb_say(w, "search %s started again with a new seed (%ld)%s", w->jobs->search_method,
		       w->jobs->search_run_seed, proven);
}

/* S's next round after the search ji ended (done, not proven optimal):
 * the next seed with twice the evaluations the last round made. */
static void next_round(wb *w, const sc_job_info *ji)
{
	long made = ji->search.evals > 0 ? ji->search.evals : 1;
	w->jobs->until_evals = made <= LONG_MAX / 2 ? 2 * made : LONG_MAX;
	w->jobs->rounds++;
	if (start_search(w, NULL, NULL, w->jobs->until_evals))
		wb_say(w, "search until stopped: round %d, seed %ld, %ld evaluations; x stops it",
		       w->jobs->rounds, w->jobs->search_run_seed, w->jobs->until_evals);
}

/* Starts the ladder from the best partition known; with every_rung it
 * runs them all, else it stops them once that partition is proven optimal
 * (at once when the exact DP proved it). */
static void start_ladder(wb *w, bool every_rung)
{
	sc_ladder_free(w->jobs->ladder);
	double cur = sc_costs_objective(w->c);
	bool use_best = w->best < cur;
	/* with devices, each stage's kind */
	const int *start_kind = use_best ? w->best_kind : w->kind;
	sc_ladder_params lp = {.rungs = SC_RUNGS_ALL,
	                       .time_limit = w->jobs->rung_time,
	                       .upper = use_best ? w->best : cur,
	                       .start = use_best ? w->best_stage : w->stage,
	                       .start_kind = start_kind,
	                       .stop_at_proof = !every_rung};
	/* the exact DP's proof that the best is optimal holds for the upper
	 * bound: it is the best, or the current partition, no worse (the
	 * exact MIP's proof comes from a ladder, which proves it again) */
	lp.upper_optimal = !every_rung && w->best_optimal &&
	                   strcmp(w->best_from, sc_rung_label(SC_RUNG_EXACT)) != 0;
	if (!isfinite(lp.upper))
		lp.start = NULL;
	sc_error err;
	sc_settings set;
	wb_job_settings(w, &set);
	w->jobs->ladder = sc_ladder_new(w->eng, w->g, &set, &lp, &err);
	w->jobs->ladder_upper = lp.upper;
	count_jobs(w);
	if (!w->jobs->ladder)
		wb_say(w, "cannot start the ladder: %s", err.msg);
	else if (every_rung)
		wb_say(w, "ladder started, every rung (%.0f s per rung at most)",
		       w->jobs->rung_time);
	else
		wb_say(w,
		       "ladder started (%.0f s per rung; it stops at a proof, l runs every rung)",
		       w->jobs->rung_time);
}

void wb_start_ladder(wb *w)
{
	start_ladder(w, true);
}

void wb_cancel_jobs(wb *w, bool ladder_too)
{
	sc_job_info ji;
	bool live = w->jobs->search >= 0 && sc_engine_info(w->eng, w->jobs->search, &ji) &&
	            !sc_job_finished(ji.state);
	bool rounds = w->jobs->until_stopped;
	w->jobs->until_stopped = false;
	/* x: only what the user started; the ladder's rungs run on to their
	 * limits, and a rung the search paused resumes */
	if (live)
		sc_engine_cancel(w->eng, w->jobs->search);
	bool rungs = ladder_too && w->jobs->ladder && !sc_ladder_done(w->jobs->ladder);
	if (rungs)
		sc_ladder_cancel(w->jobs->ladder);
	count_jobs(w);
	if (rungs)
		wb_say(w, "stopped the %sladder's rungs (each keeps the bound it proved)",
		       live || rounds ? "search and the " : "");
	else if (live || rounds)
		wb_say(w, "stopped the search (it keeps its best so far); the ladder runs on, X "
		          "stops it");
	else
		wb_say(w, "no search is running; X stops the ladder's rungs");
}

void wb_adopt_best(wb *w)
{
	if (!isfinite(w->best)) {
		wb_say(w, "no partition found yet");
		return;
	}
	if (w->best >= sc_costs_objective(w->c) * (1 - 1e-12)) {
		wb_say(w, "the current partition is already as good as the best found");
		return;
	}
	char origin[96];
	snprintf(origin, sizeof origin, "adopted: best found (%s)", w->best_from);
	wb_set_current_kinds(w, w->best_stage, w->best_kind, origin, true);
	wb_say(w, "adopted the best partition found");
}

/* The search job ji (finished) is done with: its result goes to the best
 * partition, and to the current one unless the engineer's partition must
 * stay.  The one place a finished search's result is taken. */
static bool take_search_result(wb *w, const sc_job_info *ji)
{
	bool optimal = false;
	int *tmp = sc_part_new(w->g);
	double v = tmp ? sc_engine_result(w->eng, w->jobs->search, tmp, &optimal) : INFINITY;
	/* with devices the result brings its kinds (K of them) */
	int *kind = w->kind ? calloc((size_t)sc_settings_stages(&w->set), sizeof *kind) : NULL;
	if (w->kind && (!kind || !sc_engine_result_kinds(w->eng, w->jobs->search, kind)))
		v = INFINITY;
	/* with pins, a proof is of the best with them in place: no proof of
	 * the optimum, nor a lower bound (wb_lower_bound) */
	bool pinned = w->jobs->search_pins > 0;
	char with[48] = "";
	if (pinned)
		snprintf(with, sizeof with, " with the %d pin%s", w->jobs->search_pins,
		         w->jobs->search_pins == 1 ? "" : "s");
	const char *proven = !optimal ? ""
	                     : pinned ? " (the best with the pins, proven)"
	                              : " (proven optimal)";
	if (tmp && isfinite(v)) {
		offer_best_kinds(w, tmp, kind, v, w->jobs->search_method, optimal && !pinned);
		char b[32];
		double cur = sc_costs_objective(w->c);
		if (v < cur * (1 - 1e-12) && !w->edited && !w->from_file) {
			char origin[96];
			snprintf(origin, sizeof origin, "from the search (%s)",
			         w->jobs->search_method);
			wb_set_current_kinds(w, tmp, kind, origin, false);
			wb_say(w, "search %s%s: %s%s, now the current partition",
			       w->jobs->search_method, with, ui_num(v, b, sizeof b), proven);
		} else if (v < cur * (1 - 1e-12) && pinned) {
			/* pins are the engineer's own choice: the search around them
			 * replaces the edited partition, as an edit u undoes */
			char origin[96];
			snprintf(origin, sizeof origin, "from the search (%s)%s",
			         w->jobs->search_method, with);
			wb_set_current_kinds(w, tmp, kind, origin, true);
			wb_say(w, "search %s%s: %s%s, now the current partition (u undoes)",
			       w->jobs->search_method, with, ui_num(v, b, sizeof b), proven);
		} else if (v < cur * (1 - 1e-12)) {
			wb_say(w, "search %s%s found %s; a adopts it", w->jobs->search_method, with,
			       ui_num(v, b, sizeof b));
		} else {
			wb_say(w, "search %s%s: %s%s, no better than the current partition",
			       w->jobs->search_method, with, ui_num(v, b, sizeof b), proven);
		}
	} else if (tmp && ji->state == SC_JOB_DONE && optimal && pinned) {
		wb_say(w,
		       "search %s: no %d-stage partition fits the memory limit%s (proven); P "
		       "unpins every op",
		       w->jobs->search_method, sc_settings_stages(&w->set), with);
	} else if (tmp && ji->state == SC_JOB_DONE && optimal) {
		w->jobs->none_fits = true;
		wb_say(w, "search %s: no %d-stage partition fits the memory limit (proven)",
		       w->jobs->search_method, sc_settings_stages(&w->set));
	} else if (ji->state == SC_JOB_FAILED) {
		wb_say(w, "search failed: %s", ji->message);
	}
	free(tmp);
	free(kind);
	return optimal;
}

/* Appends the search's best so far to the history when it changed. */
static void note_history(wb *w, const sc_job_info *ji)
{
	if (!isfinite(ji->search.best) ||
	    (w->jobs->nhist > 0 && ji->search.best == w->jobs->hist_v[w->jobs->nhist - 1]))
		return;
	if (w->jobs->nhist == WB_HISTORY) {
		memmove(w->jobs->hist_t, w->jobs->hist_t + 1,
		        (WB_HISTORY - 1) * sizeof *w->jobs->hist_t);
		memmove(w->jobs->hist_v, w->jobs->hist_v + 1,
		        (WB_HISTORY - 1) * sizeof *w->jobs->hist_v);
		w->jobs->nhist--;
	}
	w->jobs->hist_t[w->jobs->nhist] = ji->elapsed;
	w->jobs->hist_v[w->jobs->nhist++] = ji->search.best;
}

/* The ladder's exact rung may find a better partition, or prove the best
 * one optimal: when the ladder says the exact MIP proved it (under GPipe
 * its optimum is the bottleneck's, which proves nothing: ladder.h). */
static void follow_ladder(wb *w)
{
	sc_ladder_update(w->jobs->ladder);
	int *tmp = sc_part_new(w->g);
	if (!tmp)
		return;
	/* the ladder's partition, of the workbench's stages on devices */
	int *kind = w->kind ? calloc((size_t)sc_settings_stages(&w->set), sizeof *kind) : NULL;
	double u = w->kind && !kind
	                   ? INFINITY
	                   : sc_ladder_take_upper(w->jobs->ladder, INFINITY,
	                                          sc_settings_stages(&w->set), tmp, kind, NULL);
	const char *by = NULL;
	bool mip = sc_ladder_proven(w->jobs->ladder, &by) && by &&
	           strcmp(by, sc_rung_proof(SC_RUNG_EXACT)) == 0;
	const char *from = sc_rung_label(SC_RUNG_EXACT);
	if (u < w->jobs->ladder_upper * (1 - 1e-12))
		offer_best_kinds(w, tmp, kind, u, from, mip);
	else if (mip && isfinite(u) && u <= w->best * (1 + 1e-12) && !w->best_optimal)
		offer_best_kinds(w, tmp, kind, u, from, true);
	free(tmp);
	free(kind);
}

void wb_follow_jobs(wb *w)
{
	sc_job_info ji;
	/* a released search (its result taken) is no longer in the engine; the
	 * panel keeps drawing its last info from w->jobs->search_info */
	if (w->jobs->search >= 0 && sc_engine_info(w->eng, w->jobs->search, &ji)) {
		bool was_running = !sc_job_finished(w->jobs->search_info.state) ||
		                   w->jobs->search_info.version == 0;
		w->jobs->search_info = ji;
		note_history(w, &ji);
		if (sc_job_finished(ji.state) && was_running) {
			bool optimal = take_search_result(w, &ji);
			/* a long session must not keep every finished search */
			sc_engine_release(w->eng, w->jobs->search);
			if (!w->jobs->ladder && ji.state == SC_JOB_DONE)
				start_ladder(w, false);
			if (w->jobs->until_stopped && ji.state == SC_JOB_DONE && !optimal &&
			    !w->best_optimal)
				next_round(w, &ji);
			else if (w->jobs->until_stopped)
				w->jobs->until_stopped = false;
		}
	}
	if (w->jobs->ladder)
		follow_ladder(w);
	count_jobs(w);
}

double wb_lower_bound(const wb *w, const char **by)
{
	/* a rung's bound before it has finished is one so far */
	static const char *const so_far[SC_RUNG_COUNT] = {
#define SC_RUNG(e, name, proof, label, help) [SC_RUNG_##e] = name " so far",
#include "solvers/rungs.def"
	};
	double lb = w->simple;
	*by = "simple";
	if (w->jobs->ladder) {
		for (int r = SC_RUNG_BOTTLENECK; r < SC_RUNG_COUNT; r++) {
			sc_rung_info ri;
			sc_ladder_info(w->jobs->ladder, (sc_rung)r, &ri);
			if (ri.state != SC_RS_OFF && ri.state != SC_RS_WAITING && ri.value > lb) {
				lb = ri.value;
				bool final = ri.state == SC_RS_DONE || ri.state == SC_RS_STOPPED;
				*by = final ? sc_rung_name((sc_rung)r) : so_far[r];
			}
		}
	}
	if (w->best_optimal && isfinite(w->best) && w->best > lb) {
		lb = w->best;
		*by = strcmp(w->best_from, sc_rung_label(SC_RUNG_EXACT)) == 0
		              ? sc_rung_label(SC_RUNG_EXACT)
		              : "exact DP";
	}
	return lb;
}

/* x / lower - 1 as the exported image's caption has it; NAN for an
 * infinite x. */
static double gap_of(double x, double lower)
{
	return isfinite(x) ? sc_caption_gap(x, lower) : NAN;
}

void wb_answer_get(const wb *w, wb_answer *a)
{
	const sc_costs *c = w->c;
	bool gpipe = sc_graph_is_training(w->g) && w->set.schedule == SC_SCHEDULE_GPIPE;
	double bn = sc_costs_bottleneck(c, &a->at);
	a->name = gpipe ? "GPipe objective" : "bottleneck";
	a->over = -1;
	a->nover = 0;
	for (int s = 0; w->set.policy == SC_MEM_HARD && s < c->k; s++)
		if (c->st[s].over_memory && a->nover++ == 0)
			a->over = s;
	a->feasible = a->nover == 0;
	/* what sc_costs_objective gives, but also for an infeasible partition */
	a->objective = a->feasible ? sc_costs_objective(c)
	               : gpipe     ? sc_costs_gpipe(c, NULL, NULL)
	                           : bn;
	a->lower = wb_lower_bound(w, &a->lower_by);
	a->gap = a->feasible ? gap_of(a->objective, a->lower) : NAN;
	double cur = a->feasible ? a->objective : INFINITY;
	a->best = w->best;
	a->best_better = isfinite(w->best) && w->best < cur * (1 - 1e-12);
	a->gain = a->best_better && isfinite(cur) && cur > 0 ? (cur - w->best) / cur : NAN;
	a->best_gap = gap_of(w->best, a->lower);
	const char *by = NULL;
	a->none_fits_by = NULL;
	if (w->jobs->none_fits)
		a->none_fits_by = "the exact DP";
	else if (w->jobs->ladder && sc_ladder_proven(w->jobs->ladder, &by) &&
	         !isfinite(sc_ladder_upper(w->jobs->ladder, NULL)))
		a->none_fits_by = by ? by : "the ladder";
}
