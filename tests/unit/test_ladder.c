/*
 * test_ladder.c - the lower-bound ladder (ladder.c, 000 section 3) run on
 * the engine: its rungs stay at or below brute-force optima on random
 * graphs with the exact rung equal to them, and a cancel finishes every
 * rung with a value that is still a valid bound; stop at proof (the other
 * rungs stopped and named so, the gap 0), the time limit holding for a rung
 * as a whole, and k far above the number of ops.  The engine's own tests
 * are in test_jobs.c, the MIPs' in test_mip.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "solvers/jobs.h"
#include "solvers/ladder.h"
#include "solvers/simple.h"
#include "tests/support.h"

Test(ladder, ladder_rungs_bound_the_brute_force_optimum, .timeout = 600)
{
	ts_rng r = {99};
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	int exact_optimal = 0, grouped = 0, hard = 0, above_simple = 0, tight = 0, worse = 0;
	int n = ts_trials(80);
	for (int t = 0; t < n; t++) {
		ts_graph_spec spec = {.n = 2 + ts_below(&r, 6),
		                      .edge_p = 0.15 + ts_uniform(&r) * 0.4,
		                      .group_p = ts_uniform(&r) < 0.4 ? 0.3 : 0,
		                      .ngroups = 2};
		sc_settings_init(&spec.settings);
		double x = ts_uniform(&r);
		if (x < 0.6) {
			spec.settings.memory = 5 + ts_uniform(&r) * 25;
			spec.settings.policy = x < 0.3 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 2 + ts_below(&r, 3);
		if (x >= 0.6 && x < 0.8) {
			/* a tight hard limit: between total / k, below
			 * which nothing fits, and total / (k - 1) */
			double total = 0;
			for (int v = 0; v < g->n; v++)
				total += g->param[v];
			g->settings.memory =
			        total / k + ts_uniform(&r) * (total / (k - 1) - total / k);
			g->settings.policy = SC_MEM_HARD;
			tight++;
		}
		sc_settings set = g->settings;
		set.k = k;
		int *best = malloc((size_t)g->n * sizeof *best);
		double opt = ts_brute_optimum(g, k, best);
		grouped += g->ngroups > 0;
		hard += set.policy == SC_MEM_HARD;
		/* a third of the time from the optimum, a third from a valid
		 * partition that may be worse (the op order cut at random: the
		 * graphs' edges go forward), a third from nothing */
		int *mine = malloc((size_t)g->n * sizeof *mine);
		double upper = INFINITY;
		const int *start = NULL;
		if (t % 3 == 0 && isfinite(opt)) {
			upper = opt;
			start = best;
		} else if (t % 3 == 1 && isfinite(opt)) {
			for (int tries = 0; tries < 20 && !start; tries++) {
				int cuts[8] = {0};
				for (int j = 0; j < k - 1; j++)
					cuts[j] = ts_below(&r, g->n + 1);
				for (int v = 0; v < g->n; v++) {
					mine[v] = 0;
					for (int j = 0; j < k - 1; j++)
						mine[v] += v >= cuts[j];
				}
				double m =
				        ts_valid(g, mine, k) ? ts_objective(g, k, mine) : INFINITY;
				if (isfinite(m)) {
					upper = m;
					start = mine;
					worse += m > opt * (1 + 1e-9);
				}
			}
		}
		bool from_opt = start == best;
		sc_ladder_params lp = {
		        .rungs = SC_RUNGS_ALL, .time_limit = 30, .upper = upper, .start = start};
		sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
		cr_assert(l, "%s", err.msg);
		ts_run_ladder(l, e);
		for (int rg = 0; rg < SC_RUNG_COUNT; rg++) {
			sc_rung_info ri;
			sc_ladder_info(l, (sc_rung)rg, &ri);
			cr_assert(ri.state == SC_RS_DONE, "%s: %s %s (t %d)",
			          sc_rung_name((sc_rung)rg), sc_rung_state_name(ri.state),
			          ri.message, t);
			if (isfinite(opt))
				cr_assert_leq(ri.value, opt * (1 + 1e-6) + 1e-9,
				              "%s %.10g > optimum %.10g (t %d)",
				              sc_rung_name((sc_rung)rg), ri.value, opt, t);
		}
		sc_rung_info ex;
		sc_ladder_info(l, SC_RUNG_EXACT, &ex);
		if (isfinite(opt)) {
			cr_assert(fabs(ex.value - opt) <= 1e-6 * (1 + opt),
			          "exact %.10g, optimum %.10g", ex.value, opt);
			exact_optimal++;
			above_simple += sc_ladder_lower(l) > sc_bound_simple(g, k) * (1 + 1e-6);
			/* from nothing or a worse partition, the exact MIP's
			 * partition becomes the upper bound */
			if (!from_opt)
				cr_assert_float_eq(sc_ladder_upper(l, NULL), opt, 1e-6 * (1 + opt));
		} else {
			cr_assert(isinf(ex.value), "infeasible: exact says %g", ex.value);
		}
		sc_ladder_free(l);
		free(best);
		free(mine);
		sc_graph_free(g);
	}
	sc_engine_free(e);
	ts_assert_no_children();
	/* the mix (checked on the full run; the sanitizers' tenth is too few) */
	if (!ts_short()) {
		cr_assert_gt(tight, n / 10);
		cr_assert_gt(worse, n / 20, "%d started from a worse partition", worse);
	}
	cr_assert_gt(exact_optimal, n * 7 / 12);
	cr_assert_gt(grouped, n * 25 / 120);
	cr_assert_gt(hard, n * 20 / 120);
	cr_assert_gt(above_simple, n * 20 / 120);
}

Test(ladder, ladder_cancel_finishes_every_rung, .timeout = 60)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	sc_settings set = g->settings;
	set.k = 16;
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	sc_ladder_params lp = {.rungs = SC_RUNGS_ALL, .time_limit = 600, .upper = INFINITY};
	sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
	for (int i = 0; i < 5; i++) {
		sc_engine_poll(e, 50, -1, NULL);
		sc_ladder_update(l);
	}
	sc_ladder_cancel(l);
	ts_run_ladder(l, e);
	sc_rung_info ri;
	sc_ladder_info(l, SC_RUNG_GUESS, &ri);
	cr_assert_eq(ri.state, SC_RS_CANCELLED);
	cr_assert_geq(ri.value, sc_bound_simple(g, 16) * (1 - 1e-12), "still a valid value");
	sc_ladder_info(l, SC_RUNG_SIMPLE, &ri);
	cr_assert_eq(ri.state, SC_RS_DONE);
	sc_ladder_free(l);
	sc_engine_free(e);
	ts_assert_no_children();
	sc_graph_free(g);
}

Test(ladder, a_freed_ladder_leaves_no_job_in_the_engine, .timeout = 120)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	sc_settings set = g->settings;
	set.k = 8;
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	/* as the workbench does when the settings change: a ladder freed while
	 * its rungs run, then a new one, which runs to its end and is freed */
	for (int round = 0; round < 3; round++) {
		sc_ladder_params lp = {.rungs = SC_RUNGS_ALL, .time_limit = 600, .upper = INFINITY};
		sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
		cr_assert(l, "%s", err.msg);
		for (int i = 0; i < 3; i++) {
			sc_engine_poll(e, 50, -1, NULL);
			sc_ladder_update(l);
		}
		sc_ladder_free(l);
	}
	for (int polls = 0; sc_engine_busy(e) && polls < 2000; polls++)
		sc_engine_poll(e, 50, -1, NULL);
	cr_assert_eq(sc_engine_busy(e), 0);
	/* every id ever given (a ladder of k = 8 adds at most 2 + 8 jobs) */
	sc_job_info ji;
	for (int id = 0; id < 3 * 10; id++)
		cr_assert_not(sc_engine_info(e, id, &ji), "job %d was not released", id);
	sc_engine_free(e);
	ts_assert_no_children();
	sc_graph_free(g);
}

/* A random small graph as in the first test. */
static sc_graph *small_graph(ts_rng *r, int max_n)
{
	ts_graph_spec spec = {.n = 2 + ts_below(r, max_n - 1),
	                      .edge_p = 0.15 + ts_uniform(r) * 0.4,
	                      .group_p = ts_uniform(r) < 0.4 ? 0.3 : 0,
	                      .ngroups = 2};
	sc_settings_init(&spec.settings);
	double x = ts_uniform(r);
	if (x < 0.6) {
		spec.settings.memory = 5 + ts_uniform(r) * 25;
		spec.settings.policy = x < 0.3 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
	}
	return ts_random_graph(r, &spec);
}

Test(ladder, stop_at_proof_stops_the_other_rungs_and_names_the_proof, .timeout = 600)
{
	ts_rng r = {7};
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	int runs = 0, stopped = 0, by_dp = 0;
	for (int t = 0; t < ts_trials(60); t++) {
		sc_graph *g = small_graph(&r, 7);
		int k = 2 + ts_below(&r, 3);
		sc_settings set = g->settings;
		set.k = k;
		int *best = malloc((size_t)g->n * sizeof *best);
		double opt = ts_brute_optimum(g, k, best);
		if (!isfinite(opt)) {
			free(best);
			sc_graph_free(g);
			continue;
		}
		/* every third time the caller says the exact DP proved it */
		bool dp = t % 3 == 0;
		sc_ladder_params lp = {.rungs = SC_RUNGS_ALL,
		                       .time_limit = 30,
		                       .upper = opt,
		                       .start = best,
		                       .stop_at_proof = true,
		                       .upper_optimal = dp};
		sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
		cr_assert(l, "%s", err.msg);
		ts_run_ladder(l, e);
		runs++;
		const char *by = NULL;
		cr_assert(sc_ladder_proven(l, &by), "an exact MIP given 30 s proves it (t %d)", t);
		cr_assert(by);
		if (dp)
			cr_assert_str_eq(by, "the exact DP");
		for (int rg = 0; rg < SC_RUNG_COUNT; rg++) {
			sc_rung_info ri;
			sc_ladder_info(l, (sc_rung)rg, &ri);
			cr_assert(ri.state == SC_RS_DONE || ri.state == SC_RS_UNNEEDED,
			          "%s: %s (t %d)", sc_rung_name((sc_rung)rg),
			          sc_rung_state_name(ri.state), t);
			cr_assert_leq(ri.value, opt * (1 + 1e-6) + 1e-9, "%s %.10g > optimum %.10g",
			              sc_rung_name((sc_rung)rg), ri.value, opt);
			if (ri.state == SC_RS_UNNEEDED) {
				stopped++;
				cr_assert(strstr(ri.message, "proven optimal by ") &&
				                  strstr(ri.message, by),
				          "%s", ri.message);
			}
			if (dp && rg != SC_RUNG_SIMPLE) {
				/* nothing runs once the DP has proved it */
				cr_assert_eq(ri.state, SC_RS_UNNEEDED);
				cr_assert_eq(ri.seconds, 0);
			}
		}
		by_dp += dp;
		/* the proof is the gap: the best lower bound meets the upper
		 * bound, or the DP (the caller's word) closes it */
		if (!dp)
			cr_assert_geq(sc_ladder_lower(l), opt * (1 - 1e-6) - 1e-9, "gap 0 (t %d)",
			              t);
		sc_ladder_free(l);
		free(best);
		sc_graph_free(g);
	}
	sc_engine_free(e);
	ts_assert_no_children();
	cr_assert_gt(runs, ts_trials(60) / 2);
	cr_assert_gt(stopped, runs, "some rungs were stopped, not run");
	cr_assert_gt(by_dp, 0);
}

Test(ladder, the_time_limit_holds_for_each_rung_as_a_whole, .timeout = 120)
{
	/* resnet50 at k = 16: no MIP rung ends within 2 s; before, guess's 16
	 * solves got a second each, two at a time (8 s) */
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	const double opt16 = 124.34884977404485; /* REFERENCE.tsv */
	const double T = 2, slack = 2;
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	for (int mode = 0; mode < 2; mode++) {
		sc_settings set = g->settings;
		set.k = mode == 0 ? 16 : 64;
		sc_ladder_params lp = {.rungs = mode == 0 ? SC_RUNGS_ALL
		                                          : (1u << SC_RUNG_GUESS) | 1u,
		                       .time_limit = T,
		                       .upper = INFINITY,
		                       .stop_at_proof = mode == 1};
		sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
		cr_assert(l, "%s", err.msg);
		double wall = sc_clock_now();
		ts_run_ladder(l, e);
		wall = sc_clock_now() - wall;
		for (int rg = SC_RUNG_BOTTLENECK; rg < SC_RUNG_COUNT; rg++) {
			sc_rung_info ri;
			sc_ladder_info(l, (sc_rung)rg, &ri);
			if (ri.state == SC_RS_OFF)
				continue;
			cr_assert(ri.state == SC_RS_STOPPED || ri.state == SC_RS_DONE, "%s: %s",
			          sc_rung_name((sc_rung)rg), sc_rung_state_name(ri.state));
			cr_assert_leq(ri.seconds, T + slack, "%s ran %.2f s with a %.0f s limit",
			              sc_rung_name((sc_rung)rg), ri.seconds, T);
			cr_assert_geq(ri.value, sc_bound_simple(g, set.k) * (1 - 1e-12));
			if (set.k == 16)
				cr_assert_leq(ri.value, opt16 * (1 + 1e-9), "%s above the optimum",
				              sc_rung_name((sc_rung)rg));
			if (rg == SC_RUNG_GUESS)
				cr_assert_eq(ri.parts_done, ri.parts);
		}
		/* bottleneck and guess side by side, then exact */
		cr_assert_leq(wall, 2 * (T + slack) + 1, "the ladder took %.2f s", wall);
		sc_ladder_free(l);
	}
	sc_engine_free(e);
	ts_assert_no_children();
	sc_graph_free(g);
}

Test(ladder, k_above_the_units_works_with_the_stages_that_can_be_non_empty, .timeout = 600)
{
	ts_rng r = {2026};
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	int checked = 0;
	for (int t = 0; t < ts_trials(40); t++) {
		sc_graph *g = small_graph(&r, 6);
		int units = sc_stages_useful(g, 1000000);
		cr_assert_leq(units, g->n);
		/* the lemma behind it, by brute force: more stages than units
		 * change no optimum */
		double opt = ts_brute_optimum(g, g->n, NULL);
		if (g->n <= 5) {
			double more = ts_brute_optimum(g, g->n + 2, NULL);
			cr_assert(more == opt || fabs(more - opt) <= 1e-9 * (1 + opt),
			          "k = n + 2: %g, k = n: %g", more, opt);
		}
		sc_settings set = g->settings;
		set.k = 1000000; /* the documented maximum */
		sc_ladder_params lp = {.rungs = SC_RUNGS_ALL, .time_limit = 30, .upper = INFINITY};
		sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
		cr_assert(l, "%s", err.msg);
		cr_assert_eq(sc_ladder_stages(l), units);
		ts_run_ladder(l, e);
		for (int rg = 0; rg < SC_RUNG_COUNT; rg++) {
			sc_rung_info ri;
			sc_ladder_info(l, (sc_rung)rg, &ri);
			cr_assert_eq(ri.state, SC_RS_DONE, "%s: %s %s (t %d, n %d, units %d)",
			             sc_rung_name((sc_rung)rg), sc_rung_state_name(ri.state),
			             ri.message, t, g->n, units);
			if (isfinite(opt))
				cr_assert_leq(ri.value, opt * (1 + 1e-6) + 1e-9, "%s %.10g > %.10g",
				              sc_rung_name((sc_rung)rg), ri.value, opt);
			if (rg == SC_RUNG_GUESS)
				cr_assert_eq(ri.parts, units);
		}
		if (isfinite(opt)) {
			int *stage = malloc((size_t)g->n * sizeof *stage);
			cr_assert_float_eq(sc_ladder_upper(l, stage), opt, 1e-6 * (1 + opt));
			for (int v = 0; v < g->n; v++)
				cr_assert(stage[v] >= 0 && stage[v] < units);
			free(stage);
			checked++;
		}
		sc_ladder_free(l);
		sc_graph_free(g);
	}
	sc_engine_free(e);
	ts_assert_no_children();
	cr_assert_gt(checked, ts_trials(40) / 2);
}

Test(ladder, a_graph_without_work_is_proven_at_once)
{
	sc_error err;
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	/* the same shape with every weight 0 */
	for (int v = 0; v < g->n; v++)
		g->work[v] = g->param[v] = g->out[v] = 0;
	sc_settings set = g->settings;
	set.k = 3;
	sc_engine *e = sc_engine_new(2, &err);
	int *stage = calloc((size_t)g->n, sizeof *stage);
	sc_ladder_params lp = {.rungs = SC_RUNGS_ALL,
	                       .time_limit = 30,
	                       .upper = 0,
	                       .start = stage,
	                       .stop_at_proof = true};
	sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
	cr_assert(l, "%s", err.msg);
	const char *by = NULL;
	cr_assert(sc_ladder_proven(l, &by));
	cr_assert_str_eq(by, "the simple bound");
	ts_run_ladder(l, e);
	sc_rung_info ri;
	sc_ladder_info(l, SC_RUNG_EXACT, &ri);
	cr_assert_eq(ri.state, SC_RS_UNNEEDED);
	cr_assert_eq(sc_ladder_lower(l), 0);
	sc_ladder_free(l);
	sc_engine_free(e);
	free(stage);
	sc_graph_free(g);
}

Test(ladder, rungs_stay_below_the_reference_optima, .timeout = 300)
{
	/* samples/msr-fiddle/REFERENCE.tsv: the published program's optima; a
	 * short limit, so most MIP rungs stop at it with the bound proven so far */
	FILE *f = fopen("samples/msr-fiddle/REFERENCE.tsv", "r");
	cr_assert(f);
	char line[512];
	int checked = 0, seen = 0, at8 = 0;
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	while (fgets(line, sizeof line, f)) {
		char name[256];
		int k;
		double opt;
		if (sscanf(line, "%255s %d %lf", name, &k, &opt) != 3 || (k != 4 && k != 8))
			continue;
		/* each graph at one k, 4 and 8 by turns (the short run: every other
		 * graph at 4); the file has each graph's k = 4 line, then its k = 8
		 * line */
		int graph = seen++ / 2;
		if (ts_short() ? k != 4 || graph % 2 : (graph % 2 == 1) != (k == 8))
			continue;
		char path[300];
		snprintf(path, sizeof path, "samples/msr-fiddle/%s", name);
		sc_graph *g = ts_load(path);
		sc_settings set = g->settings;
		set.k = k;
		/* (the short run, the sanitizers' build, gives the rungs 2 s: at
		 * 0.5 s under AddressSanitizer and the suite's load the exact
		 * rung on bert_l-3 inference at k = 4 reported 49.35 where the
		 * optimum is 27.92, three runs in three; a false bound of a MIP
		 * stopped by its time limit (solvers/mip.c, read_verdict) that
		 * the full run at 0.5 s keeps looking for) */
		sc_ladder_params lp = {.rungs = SC_RUNGS_ALL,
		                       .time_limit = ts_short() ? 2.0 : 0.5,
		                       .upper = INFINITY};
		sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
		cr_assert(l, "%s", err.msg);
		ts_run_ladder(l, e);
		for (int rg = 0; rg < SC_RUNG_COUNT; rg++) {
			sc_rung_info ri;
			sc_ladder_info(l, (sc_rung)rg, &ri);
			cr_assert_neq(ri.state, SC_RS_FAILED, "%s k %d %s: %s", name, k,
			              sc_rung_name((sc_rung)rg), ri.message);
			cr_assert_leq(ri.value, opt * (1 + 1e-6),
			              "%s k %d: %s %.10g > optimum %.10g", name, k,
			              sc_rung_name((sc_rung)rg), ri.value, opt);
		}
		checked++;
		at8 += k == 8;
		sc_ladder_free(l);
		sc_graph_free(g);
	}
	fclose(f);
	sc_engine_free(e);
	ts_assert_no_children();
	cr_assert_geq(checked, ts_short() ? 5 : 8, "%d instances", checked);
	cr_assert(ts_short() || at8 >= 4, "%d at k = 8", at8);
}
