/*
 * cmd_bounds.c - `stagecut bounds FILE -k K`: an upper bound from the
 * default search (or a partition file), then the ladder of lower bounds,
 * with live progress on stderr when it is a terminal.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tui/ui.h"
#include "core/cost.h"
#include "core/partition.h"
#include "solvers/jobs.h"
#include "core/clock.h"
#include "solvers/ladder.h"

static void show(const sc_ladder *l, unsigned rungs, bool tty, double *last, double t)
{
	if (!tty || t - *last < 0.2)
		return;
	*last = t;
	fputs("\r\033[K", stderr);
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		if (!(rungs & (1u << r)))
			continue;
		sc_rung_info ri;
		sc_ladder_info(l, (sc_rung)r, &ri);
		char b[32];
		fprintf(stderr, "%s%s %s", r ? "  " : "", sc_rung_name((sc_rung)r),
		        ui_num(ri.value, b, sizeof b));
		if (ri.state == SC_RS_UNNEEDED) {
			fputs(" (not needed)", stderr);
		} else if (ri.state == SC_RS_RUNNING) {
			if (r == SC_RUNG_GUESS)
				fprintf(stderr, " (%d/%d, %.0fs)", ri.parts_done, ri.parts,
				        ri.seconds);
			else
				fprintf(stderr, " (%.0fs)", ri.seconds);
		} else if (ri.state == SC_RS_WAITING) {
			fputs(" (waiting)", stderr);
		}
	}
	fflush(stderr);
}

/* What bounds says when the best partition costs 0 (a graph without work). */
#define ZERO_NOTE                                                                                  \
	"the upper bound is 0 (no work and no tensor between its stages), which no partition "     \
	"can beat, so it is optimal"

/* A lower bound's ratio to the upper bound; 1 when both are 0. */
static double ratio(double v, double upper)
{
	return upper == 0 ? 1 : v / upper;
}

/* What the ladder's progress line needs between turns. */
typedef struct ladder_view {
	const sc_ladder *l;
	unsigned rungs;
	bool tty;
	double last; /* when the line was last drawn */
} ladder_view;

/* Once a turn of the ladder's loop: redraws the progress line, and asks to
 * stop after ^C. */
static bool ladder_turn(void *ctx)
{
	ladder_view *v = ctx;
	bool stop = ui_interrupted();
	show(v->l, v->rungs, v->tty, &v->last, sc_clock_now());
	return stop;
}

int ui_cmd_bounds(const ui_opts *o)
{
	int status = UI_EXIT_OK;
	unsigned rungs = SC_RUNGS_ALL;
	if (o->rungs && !ui_parse_rungs(o->rungs, &rungs))
		return UI_EXIT_INPUT;
	sc_graph *g = ui_load(o->pos[0], o, &status);
	if (!g)
		return status;
	sc_settings set = g->settings;
	sc_engine *e = NULL;
	sc_ladder *l = NULL;
	int *stage = sc_part_new(g);
	sc_error err;
	const char *method = o->method ? o->method : "best";
	bool ub_optimal = false;
	double upper = INFINITY, search_seconds = 0;
	bool tty = isatty(STDERR_FILENO);
	ui_interrupts saved;
	ui_catch_interrupts(&saved);
	if (!stage) {
		ui_error("out of memory");
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (set.k < 1) {
		ui_error("bounds: %s does not set k; give -k K", g->source);
		status = UI_EXIT_INPUT;
		goto out;
	}
	e = sc_engine_new(0, &err);
	if (!e) {
		ui_error("%s", err.msg);
		status = UI_EXIT_INPUT;
		goto out;
	}
	if (o->partition) {
		int k2;
		sc_status st = sc_part_load(o->partition, g, set.k, &k2, stage, NULL, &err);
		if (st != SC_OK) {
			ui_error("%s", err.msg);
			status = ui_exit_status(st);
			goto out;
		}
		sc_costs *c = sc_costs_new(g, &set, &err);
		if (!c) {
			ui_error("%s", err.msg);
			status = UI_EXIT_INPUT;
			goto out;
		}
		sc_costs_eval(c, stage);
		upper = sc_costs_objective(c);
		sc_costs_free(c);
		method = "partition";
	} else {
		sc_search_params p;
		ui_search_params(o, &p);
		p.time_limit = 0; /* --time limits each MIP rung, not the search */
		int id = sc_engine_add_search(e, g, &set, &p, &err);
		if (id < 0) {
			ui_error("bounds: %s: %s", g->source, err.msg);
			status = UI_EXIT_INPUT;
			goto out;
		}
		sc_job_info ji;
		double last = -1;
		do {
			sc_engine_poll(e, 100, -1, NULL);
			sc_engine_info(e, id, &ji);
			if (ui_interrupted())
				sc_engine_cancel(e, id);
			if (tty && ji.elapsed - last >= 0.2) {
				char b[32];
				last = ji.elapsed;
				fprintf(stderr, "\r\033[Ksearch %s: %ld evals, best %s, %.1f s",
				        ji.search.phase, ji.search.evals,
				        ui_num(ji.search.best, b, sizeof b), ji.elapsed);
				ui_print_dp_progress(&ji.search);
				fflush(stderr);
			}
		} while (!sc_job_finished(ji.state));
		if (tty)
			fputs("\r\033[K", stderr);
		if (ji.state == SC_JOB_FAILED) {
			ui_error("bounds: %s: %s", g->source, ji.message);
			status = UI_EXIT_INPUT;
			goto out;
		}
		upper = sc_engine_result(e, id, stage, &ub_optimal);
		search_seconds = ji.elapsed;
	}
	sc_ladder_params lp = {.rungs = rungs,
	                       .time_limit = o->time_limit,
	                       .upper = upper,
	                       .start = isfinite(upper) ? stage : NULL,
	                       .stop_at_proof = !o->all_rungs,
	                       .upper_optimal = ub_optimal};
	l = sc_ladder_new(e, g, &set, &lp, &err);
	if (!l) {
		ui_error("bounds: %s", err.msg);
		status = UI_EXIT_INPUT;
		goto out;
	}
	ladder_view view = {.l = l, .rungs = rungs, .tty = tty, .last = -1};
	sc_ladder_wait(e, l, ladder_turn, &view);
	if (tty)
		fputs("\r\033[K", stderr);
	double best_upper = sc_ladder_upper(l, stage);
	bool improved = best_upper < upper;
	upper = best_upper;
	double lower = sc_ladder_lower(l);
	const char *lower_by = "ladder";
	if (ub_optimal && !improved && upper > lower) {
		/* the exact DP over ideals proved the search's partition optimal */
		lower = upper;
		lower_by = "dp";
	}
	bool feasible = isfinite(upper);
	const char *proven_by = NULL;
	if (feasible && ub_optimal && !improved)
		proven_by = "the exact DP";
	else if (feasible && !sc_ladder_proven(l, &proven_by))
		proven_by = NULL;
	/* lower never exceeds upper; an upper bound of 0 cannot be beaten, so
	 * the gap is 0, not 0/0; a lower bound of 0 under a positive upper
	 * bound proves no ratio at all */
	double gap = !feasible        ? INFINITY
	             : lower >= upper ? 0
	             : lower > 0      ? upper / lower - 1
	                              : INFINITY;
	bool zero = feasible && upper == 0;
	int stages = sc_ladder_stages(l);
	if (!feasible) {
		ui_error(
		        "bounds: %s: %s partition into %d stages keeps every stage within the hard "
		        "memory limit",
		        g->source, isinf(lower) ? "no" : "the search found no", set.k);
		status = UI_EXIT_INFEASIBLE;
	}

	if (o->json) {
		json_t *arr = json_array();
		for (int r = 0; r < SC_RUNG_COUNT; r++) {
			if (!(rungs & (1u << r)))
				continue;
			sc_rung_info ri;
			sc_ladder_info(l, (sc_rung)r, &ri);
			json_t *row = json_pack(
			        "{s:s, s:o, s:o, s:s, s:f}", "name", sc_rung_name((sc_rung)r),
			        "value", isfinite(ri.value) ? json_real(ri.value) : json_null(),
			        "ratio",
			        feasible && isfinite(ri.value) ? json_real(ratio(ri.value, upper))
			                                       : json_null(),
			        "status", ui_rung_status_name(ri.state), "seconds", ri.seconds);
			if (ri.state == SC_RS_FAILED || ri.state == SC_RS_UNNEEDED)
				json_object_set_new(row, "message", json_string(ri.message));
			if (r == SC_RUNG_GUESS) {
				json_t *parts = json_array();
				for (int j = 1; j <= stages; j++) {
					sc_rung_state st;
					double v;
					sc_ladder_guess_part(l, j, &st, &v);
					json_array_append_new(
					        parts,
					        json_pack("{s:i, s:o, s:s}", "position", j, "value",
					                  isfinite(v) ? json_real(v) : json_null(),
					                  "status", ui_rung_status_name(st)));
				}
				json_object_set_new(row, "solves", parts);
			}
			json_array_append_new(arr, row);
		}
		json_t *root = json_pack(
		        "{s:s, s:i, s:o, s:s, s:b, s:f, s:o, s:s, s:o, s:o}", "graph", g->name, "k",
		        set.k, "upper_bound", feasible ? json_real(upper) : json_null(),
		        "upper_bound_method", improved ? "exact" : method, "upper_bound_optimal",
		        (int)ub_optimal, "search_seconds", search_seconds, "lower_bound",
		        isfinite(lower) ? json_real(lower) : json_null(), "lower_bound_by",
		        lower_by, "gap", isfinite(gap) ? json_real(gap) : json_null(), "rungs",
		        arr);
		json_object_set_new(root, "proven_by",
		                    proven_by ? json_string(proven_by) : json_null());
		json_object_set_new(root, "stages_used", json_integer(stages));
		if (zero)
			json_object_set_new(root, "note", json_string(ZERO_NOTE));
		/* the settings the bounds hold for (render --bounds checks them) */
		json_object_set_new(root, "bandwidth", json_real(set.bandwidth));
		json_object_set_new(root, "memory",
		                    isinf(set.memory) ? json_null() : json_real(set.memory));
		json_object_set_new(root, "memory_policy",
		                    json_string(sc_mem_policy_name(set.policy)));
		if (sc_graph_is_training(g))
			json_object_set_new(root, "schedule",
			                    json_string(sc_schedule_name(set.schedule)));
		ui_json_costs(root, g);
		if (!ui_print_json(root))
			status = UI_EXIT_INPUT;
		goto out;
	}
	char b[32], c2[32];
	printf("%s, k %d: upper bound %s (%s%s)\n", g->name, set.k,
	       feasible ? ui_num(upper, b, sizeof b) : "none", improved ? "exact MIP" : method,
	       ub_optimal ? ", proven optimal" : "");
	ui_print_costs(g);
	if (sc_graph_is_training(g) && set.schedule == SC_SCHEDULE_GPIPE)
		printf("  schedule GPipe: the upper bound is a GPipe objective (max forward + max "
		       "backward cost); the MIP rungs bound the GPipe optimum, the exact one "
		       "solves it\n");
	if (stages < set.k)
		printf("  at most %d of the %d stages can be non-empty (one op or group each); the "
		       "bounds are those of %d stages, the other stages stay empty\n",
		       stages, set.k, stages);
	printf("  rung          lower bound     LB/UB  status            seconds\n");
	for (int r = 0; r < SC_RUNG_COUNT; r++) {
		if (!(rungs & (1u << r)))
			continue;
		sc_rung_info ri;
		sc_ladder_info(l, (sc_rung)r, &ri);
		printf("  %-12s %12s  %8s  %-16s %8.2f\n", sc_rung_name((sc_rung)r),
		       ui_num(ri.value, b, sizeof b),
		       feasible ? (snprintf(c2, sizeof c2, "%.4f", ratio(ri.value, upper)), c2)
		                : "-",
		       ui_rung_status_name(ri.state), ri.seconds);
		if (ri.state == SC_RS_FAILED || ri.state == SC_RS_UNNEEDED)
			printf("      %s\n", ri.message);
	}
	if (zero)
		printf("certified gap 0.00%%: %s\n", ZERO_NOTE);
	else if (feasible && isinf(gap))
		printf("certified gap unbounded: the best lower bound is 0\n");
	else if (feasible)
		printf("certified gap %.2f%% (upper / best lower bound - 1)%s%s\n", 100 * gap,
		       proven_by ? "; the upper bound is proven optimal by " : "",
		       proven_by ? proven_by : "");
	fflush(stdout);
	if (ferror(stdout))
		status = UI_EXIT_INPUT;
out:
	sc_ladder_free(l);
	sc_engine_free(e);
	ui_release_interrupts(&saved);
	free(stage);
	sc_graph_free(g);
	if (status == UI_EXIT_OK && ui_interrupted())
		status = 130;
	return status;
}
