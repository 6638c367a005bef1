/*
 * test_jobs.c - the engine and the ladder: results through the engine equal
 * direct calls, at most max_running jobs run at once, cancel stops searches
 * and kills solver processes, a crashing solver is reported as a crash, and
 * the ladder's rungs stay at or below brute-force optima on random graphs
 * with the exact rung equal to them.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "solvers/jobs.h"
#include "solvers/ladder.h"
#include "solvers/simple.h"
#include "tests/support.h"

/* no child of this process is left behind (a zombie or still running) */
static void assert_no_children(void)
{
	int st;
	pid_t p = waitpid(-1, &st, WNOHANG);
	cr_assert(p == -1 && errno == ECHILD, "a solver process was left behind (pid %d)", (int)p);
}

Test(jobs, search_through_the_engine_equals_a_direct_run)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	sc_settings set = g->settings;
	set.k = 8;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "brkga";
	p.evals = 600;
	p.seed = 9;
	sc_error err;
	sc_search *s = sc_search_new(g, &set, &p, &err);
	sc_search_run(s, &err);
	int *a = malloc((size_t)g->n * sizeof *a), *b = malloc((size_t)g->n * sizeof *b);
	double direct = sc_search_result(s, a, NULL);
	sc_search_free(s);

	sc_engine *e = sc_engine_new(2, &err);
	int id = sc_engine_add_search(e, g, &set, &p, &err);
	cr_assert_geq(id, 0, "%s", err.msg);
	unsigned versions = 0;
	sc_job_info ji;
	do {
		sc_engine_poll(e, 50, -1, NULL);
		sc_engine_info(e, id, &ji);
		cr_assert_geq(ji.version, versions);
		versions = ji.version;
	} while (!sc_job_finished(ji.state));
	cr_assert_eq(ji.state, SC_JOB_DONE);
	cr_assert_eq(ji.search.evals > 0, true);
	double via = sc_engine_result(e, id, b, NULL);
	cr_assert_eq(via, direct);
	cr_assert_eq(memcmp(a, b, (size_t)g->n * sizeof *a), 0);
	sc_engine_free(e);
	free(a);
	free(b);
	sc_graph_free(g);
}

Test(jobs, unknown_method_is_refused_when_added)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "nosuch";
	cr_assert_eq(sc_engine_add_search(e, g, &g->settings, &p, &err), -1);
	cr_assert(strstr(err.msg, "nosuch"), "%s", err.msg);
	sc_engine_free(e);
	sc_graph_free(g);
}

Test(jobs, mip_through_the_engine_and_the_concurrency_limit, .timeout = 300)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/bert_l-3_inference.json");
	sc_settings set = g->settings;
	set.k = 4;
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	cr_assert_eq(sc_engine_slots(e), 1);
	sc_mip_params p = {.rung = SC_RUNG_BOTTLENECK, .k = 4, .upper = INFINITY};
	int a = sc_engine_add_mip(e, g, &set, &p, &err);
	int b = sc_engine_add_mip(e, g, &set, &p, &err);
	cr_assert(a >= 0 && b >= 0, "%s", err.msg);
	int most = 0;
	sc_job_info ia, ib;
	do {
		sc_engine_poll(e, 50, -1, NULL);
		sc_engine_info(e, a, &ia);
		sc_engine_info(e, b, &ib);
		int now = (ia.state == SC_JOB_RUNNING) + (ib.state == SC_JOB_RUNNING);
		if (now > most)
			most = now;
	} while (!sc_job_finished(ia.state) || !sc_job_finished(ib.state));
	cr_assert_eq(most, 1, "one slot, one job at a time");
	cr_assert_eq(ia.state, SC_JOB_DONE);
	cr_assert_eq(ia.mip_status, SC_MIP_OPTIMAL);
	sc_mip_result direct;
	cr_assert_eq(sc_mip_solve(g, &set, &p, NULL, NULL, &direct, &err), SC_OK);
	cr_assert_float_eq(ia.bound, direct.bound, 1e-9 * direct.bound);
	cr_assert_float_eq(ib.bound, direct.bound, 1e-9 * direct.bound);
	sc_engine_free(e);
	assert_no_children();
	sc_graph_free(g);
}

Test(jobs, cancel_kills_the_solver_and_stops_the_search, .timeout = 60)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	sc_settings set = g->settings;
	set.k = 16;
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	sc_mip_params p = {.rung = SC_RUNG_EXACT, .k = 16, .upper = INFINITY};
	int m = sc_engine_add_mip(e, g, &set, &p, &err);
	sc_search_params sp;
	sc_search_params_init(&sp);
	sp.method = "brkga";
	sp.evals = 100000000;
	int s = sc_engine_add_search(e, g, &set, &sp, &err);
	int q = sc_engine_add_mip(e, g, &set, &p, &err); /* stays queued */
	sc_job_info ji;
	for (int i = 0; i < 10; i++)
		sc_engine_poll(e, 50, -1, NULL);
	sc_engine_info(e, m, &ji);
	cr_assert_eq(ji.state, SC_JOB_RUNNING);
	sc_engine_info(e, q, &ji);
	cr_assert_eq(ji.state, SC_JOB_QUEUED);
	sc_engine_cancel(e, -1);
	sc_engine_wait(e, -1);
	sc_engine_info(e, m, &ji);
	cr_assert_eq(ji.state, SC_JOB_CANCELLED);
	sc_engine_info(e, q, &ji);
	cr_assert_eq(ji.state, SC_JOB_CANCELLED);
	sc_engine_info(e, s, &ji);
	cr_assert_eq(ji.state, SC_JOB_CANCELLED);
	cr_assert_lt(ji.search.evals, 100000000);
	int *stage = malloc((size_t)g->n * sizeof *stage);
	cr_assert(isfinite(sc_engine_result(e, s, stage, NULL)), "a cancelled search keeps its best");
	free(stage);
	assert_no_children();
	sc_engine_free(e);
	sc_graph_free(g);
}

Test(jobs, a_crashing_solver_is_reported, .timeout = 30)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	sc_mip_params p = {.rung = SC_RUNG_EXACT, .k = 3, .upper = INFINITY};
	setenv("STAGECUT_TEST_CRASH", "1", 1);
	int id = sc_engine_add_mip(e, g, &g->settings, &p, &err);
	sc_engine_wait(e, id);
	unsetenv("STAGECUT_TEST_CRASH");
	sc_job_info ji;
	sc_engine_info(e, id, &ji);
	cr_assert_eq(ji.state, SC_JOB_FAILED);
	cr_assert(strstr(ji.message, "crashed") && strstr(ji.message, "signal 11"), "%s",
		  ji.message);
	/* the next one works */
	id = sc_engine_add_mip(e, g, &g->settings, &p, &err);
	sc_engine_wait(e, id);
	sc_engine_info(e, id, &ji);
	cr_assert_eq(ji.state, SC_JOB_DONE);
	cr_assert_float_eq(ji.bound, 7.0, 1e-6);
	sc_engine_free(e);
	assert_no_children();
	sc_graph_free(g);
}

Test(jobs, finished_searches_are_released_one_by_one)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_settings set = g->settings;
	set.k = 3;
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "random";
	p.evals = 20;
	int *stage = malloc((size_t)g->n * sizeof *stage);
	double first = NAN;
	/* as a long workbench session does: run, take the result, release */
	for (int i = 0; i < 300; i++) {
		p.seed = (uint64_t)(1 + i % 3);
		int id = sc_engine_add_search(e, g, &set, &p, &err);
		cr_assert_eq(id, i, "ids are never reused: %s", err.msg);
		sc_engine_wait(e, id);
		double v = sc_engine_result(e, id, stage, NULL);
		cr_assert(isfinite(v));
		if (i == 0)
			first = v;
		cr_assert(sc_engine_release(e, id));
		sc_job_info ji;
		cr_assert_not(sc_engine_info(e, id, &ji), "no info after release");
		cr_assert(isinf(sc_engine_result(e, id, stage, NULL)));
		cr_assert_not(sc_engine_release(e, id), "released twice");
		cr_assert_eq(sc_engine_busy(e), 0);
	}
	cr_assert(isfinite(first));
	sc_engine_cancel(e, -1); /* passes the released ids by */
	sc_engine_wait(e, -1);
	cr_assert_not(sc_engine_release(e, -1));
	cr_assert_not(sc_engine_release(e, 300), "never added");
	free(stage);
	sc_engine_free(e);
	sc_graph_free(g);
}

Test(jobs, release_refuses_a_running_or_queued_job, .timeout = 60)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	sc_settings set = g->settings;
	set.k = 8;
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	sc_search_params sp;
	sc_search_params_init(&sp);
	sp.method = "brkga";
	sp.evals = 100000000;
	int s = sc_engine_add_search(e, g, &set, &sp, &err);
	sc_mip_params mp = {.rung = SC_RUNG_BOTTLENECK, .k = 8, .upper = INFINITY};
	int q = sc_engine_add_mip(e, g, &set, &mp, &err); /* stays queued: one slot */
	cr_assert(s >= 0 && q >= 0, "%s", err.msg);
	sc_job_info ji;
	for (int i = 0; i < 5; i++)
		sc_engine_poll(e, 20, -1, NULL);
	sc_engine_info(e, s, &ji);
	cr_assert_eq(ji.state, SC_JOB_RUNNING);
	cr_assert_not(sc_engine_release(e, s), "a running job is not released");
	cr_assert_not(sc_engine_release(e, q), "a queued job is not released");
	cr_assert(sc_engine_info(e, s, &ji) && sc_engine_info(e, q, &ji));
	sc_engine_cancel(e, -1);
	sc_engine_wait(e, -1);
	cr_assert(sc_engine_release(e, s));
	cr_assert(sc_engine_release(e, q));
	cr_assert_not(sc_engine_info(e, s, &ji));
	cr_assert_eq(sc_engine_busy(e), 0);
	sc_engine_free(e);
	assert_no_children();
	sc_graph_free(g);
}

Test(jobs, a_finished_solve_is_released_and_its_child_reaped, .timeout = 60)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_error err;
	sc_engine *e = sc_engine_new(1, &err);
	sc_mip_params p = {.rung = SC_RUNG_EXACT, .k = 3, .upper = INFINITY};
	for (int i = 0; i < 3; i++) {
		int id = sc_engine_add_mip(e, g, &g->settings, &p, &err);
		cr_assert_geq(id, 0, "%s", err.msg);
		sc_engine_wait(e, id);
		sc_job_info ji;
		sc_engine_info(e, id, &ji);
		cr_assert_eq(ji.state, SC_JOB_DONE);
		cr_assert(isfinite(sc_engine_result(e, id, NULL, NULL)));
		cr_assert(sc_engine_release(e, id));
		cr_assert_not(sc_engine_info(e, id, &ji));
		assert_no_children();
	}
	sc_engine_free(e);
	sc_graph_free(g);
}

static void run_ladder(sc_ladder *l, sc_engine *e)
{
	while (!sc_ladder_done(l)) {
		sc_engine_poll(e, 100, -1, NULL);
		sc_ladder_update(l);
	}
}

Test(jobs, ladder_rungs_bound_the_brute_force_optimum, .timeout = 600)
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
			cr_assert(ri.state == SC_RS_DONE, "%s: %s %s (t %d)", sc_rung_name((sc_rung)rg),
				  sc_rung_state_name(ri.state), ri.message, t);
			if (isfinite(opt))
				cr_assert_leq(ri.value, opt * (1 + 1e-6) + 1e-9,
					      "%s %.10g > optimum %.10g (t %d)",
					      sc_rung_name((sc_rung)rg), ri.value, opt, t);
		}
		sc_rung_info ex;
		sc_ladder_info(l, SC_RUNG_EXACT, &ex);
		if (isfinite(opt)) {
			cr_assert(fabs(ex.value - opt) <= 1e-6 * (1 + opt), "exact %.10g, optimum %.10g",
				  ex.value, opt);
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
	assert_no_children();
	cr_assert_gt(exact_optimal, ts_trials(120) * 7 / 12);
	cr_assert_gt(grouped, ts_trials(120) * 25 / 120);
	cr_assert_gt(hard, ts_trials(120) * 20 / 120);
	cr_assert_gt(above_simple, ts_trials(120) * 20 / 120);
}

Test(jobs, ladder_cancel_finishes_every_rung, .timeout = 60)
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
	assert_no_children();
	sc_graph_free(g);
}
