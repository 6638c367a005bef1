/*
 * test_ladder.c - the lower-bound ladder (ladder.c, 000 section 3) run on
 * the engine: its rungs stay at or below brute-force optima on random
 * graphs with the exact rung equal to them, and a cancel finishes every
 * rung with a value that is still a valid bound.  The engine's own tests
 * are in test_jobs.c, the MIPs' in test_mip.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/jobs.h"
#include "solvers/ladder.h"
#include "solvers/simple.h"
#include "tests/support.h"

static void run_ladder(sc_ladder *l, sc_engine *e)
{
	while (!sc_ladder_done(l)) {
		sc_engine_poll(e, 100, -1, NULL);
		sc_ladder_update(l);
	}
}

Test(ladder, ladder_rungs_bound_the_brute_force_optimum, .timeout = 600)
{
	ts_rng r = {99};
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	int exact_optimal = 0, grouped = 0, hard = 0, above_simple = 0;
	for (int t = 0; t < ts_trials(120); t++) {
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
		sc_settings set = g->settings;
		set.k = k;
		int *best = malloc((size_t)g->n * sizeof *best);
		double opt = ts_brute_optimum(g, k, best);
		grouped += g->ngroups > 0;
		hard += set.policy == SC_MEM_HARD;
		/* half the time from the optimum, half from nothing */
		bool from_opt = t % 2 == 0 && isfinite(opt);
		sc_ladder_params lp = {.rungs = 0xf,
		                       .time_limit = 30,
		                       .upper = from_opt ? opt : INFINITY,
		                       .start = from_opt ? best : NULL};
		sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
		cr_assert(l, "%s", err.msg);
		run_ladder(l, e);
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
			/* from nothing, the exact MIP's partition becomes the upper bound */
			if (!from_opt)
				cr_assert_float_eq(sc_ladder_upper(l, NULL), opt, 1e-6 * (1 + opt));
		} else {
			cr_assert(isinf(ex.value), "infeasible: exact says %g", ex.value);
		}
		sc_ladder_free(l);
		free(best);
		sc_graph_free(g);
	}
	sc_engine_free(e);
	ts_assert_no_children();
	cr_assert_gt(exact_optimal, ts_trials(120) * 7 / 12);
	cr_assert_gt(grouped, ts_trials(120) * 25 / 120);
	cr_assert_gt(hard, ts_trials(120) * 20 / 120);
	cr_assert_gt(above_simple, ts_trials(120) * 20 / 120);
}

Test(ladder, ladder_cancel_finishes_every_rung, .timeout = 60)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	sc_settings set = g->settings;
	set.k = 16;
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	sc_ladder_params lp = {.rungs = 0xf, .time_limit = 600, .upper = INFINITY};
	sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
	for (int i = 0; i < 5; i++) {
		sc_engine_poll(e, 50, -1, NULL);
		sc_ladder_update(l);
	}
	sc_ladder_cancel(l);
	run_ladder(l, e);
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
		sc_ladder_params lp = {.rungs = 0xf, .time_limit = 600, .upper = INFINITY};
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
