/*
 * test_mip.c - the MIP rungs: each model's optimum equals the same model
 * solved by enumeration (so the models are the paper's), every rung stays at
 * or below the brute-force optimum, exact equals it, on hundreds of random
 * small DAGs with groups and both memory policies; hand-checked values on the
 * paper's examples; the MIP start and the time limit.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <math.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "solvers/mip.h"
#include "solvers/search.h"
#include "solvers/simple.h"
#include "solvers/units.h"
#include "tests/support.h"

static sc_mip_result solve(const sc_graph *g, int k, sc_rung rung, int guess, double upper,
                           const int *start)
{
	sc_settings set = g->settings;
	set.k = k;
	sc_mip_params p = {.rung = rung, .k = k, .guess = guess, .upper = upper, .start = start};
	sc_mip_result res;
	sc_error err;
	cr_assert_eq(sc_mip_solve(g, &set, &p, NULL, NULL, &res, &err), SC_OK, "%s: %s",
	             sc_rung_name(rung), err.msg);
	return res;
}

static double guess_min(const sc_graph *g, int k)
{
	double v = INFINITY;
	for (int j = 1; j <= k; j++) {
		sc_mip_result r = solve(g, k, SC_RUNG_GUESS, j, INFINITY, NULL);
		cr_assert(r.status == SC_MIP_OPTIMAL || r.status == SC_MIP_INFEASIBLE);
		if (r.bound < v)
			v = r.bound;
	}
	return v;
}

Test(mip, models_equal_their_enumeration_and_bound_the_optimum, .timeout = 600)
{
	ts_rng r = {4242};
	int exact_checked = 0, strict_guess = 0, strict_bottleneck = 0, equal_checked = 0, hard = 0;
	for (int t = 0; t < ts_trials(250); t++) {
		ts_graph_spec spec = {.n = 2 + ts_below(&r, 6),
		                      .edge_p = 0.15 + ts_uniform(&r) * 0.4,
		                      .group_p = ts_uniform(&r) < 0.4 ? 0.3 : 0,
		                      .ngroups = 2};
		sc_settings_init(&spec.settings);
		spec.settings.bandwidth = 0.5 + ts_uniform(&r) * 2;
		double x = ts_uniform(&r);
		if (x < 0.6) {
			spec.settings.memory = 5 + ts_uniform(&r) * 25;
			spec.settings.policy = x < 0.3 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 2 + ts_below(&r, 3);
		hard += g->settings.policy == SC_MEM_HARD;
		int *best = malloc((size_t)g->n * sizeof *best);
		double opt = ts_brute_optimum(g, k, best);
		bool merged;
		double L = ts_unit_bound(g, k, &merged);

		sc_mip_result b = solve(g, k, SC_RUNG_BOTTLENECK, 0, INFINITY, NULL);
		double gmin = guess_min(g, k);
		double bb = ts_three_block_brute(g, k, 0, L);
		double gb = INFINITY;
		for (int j = 1; j <= k; j++)
			gb = fmin(gb, ts_three_block_brute(g, k, j, L));
		/* the models are exactly the relaxations (merging trivial ops
		 * can only raise them, and never above the optimum) */
		if (!merged) {
			cr_assert(fabs(b.bound - bb) <= 1e-6 * (1 + bb) ||
			                  (isinf(bb) && isinf(b.bound)),
			          "bottleneck MIP %.10g, enumeration %.10g (t %d)", b.bound, bb, t);
			cr_assert(fabs(gmin - gb) <= 1e-6 * (1 + gb) || (isinf(gb) && isinf(gmin)),
			          "guess MIP %.10g, enumeration %.10g (t %d)", gmin, gb, t);
			equal_checked++;
		} else {
			cr_assert_geq(b.bound, bb - 1e-6 * (1 + bb));
			cr_assert_geq(gmin, gb - 1e-6 * (1 + gb));
		}
		/* every rung is a lower bound */
		double simple = sc_bound_simple(g, k);
		cr_assert_leq(simple, opt * (1 + 1e-9));
		cr_assert_leq(b.bound, opt * (1 + 1e-6) + 1e-9,
		              "bottleneck %.10g > optimum %.10g (t %d)", b.bound, opt, t);
		cr_assert_leq(gmin, opt * (1 + 1e-6) + 1e-9, "guess %.10g > optimum %.10g (t %d)",
		              gmin, opt, t);
		cr_assert_geq(gmin, b.bound * (1 - 1e-6) - 1e-9, "guess never below bottleneck");
		strict_bottleneck += b.bound > simple * (1 + 1e-6);
		strict_guess += gmin > b.bound * (1 + 1e-6);

		/* exact, from nothing and from a known partition */
		sc_mip_result e = solve(g, k, SC_RUNG_EXACT, 0, INFINITY, NULL);
		if (isinf(opt)) {
			cr_assert_eq(e.status, SC_MIP_INFEASIBLE, "t %d", t);
		} else {
			cr_assert_eq(e.status, SC_MIP_OPTIMAL);
			cr_assert(fabs(e.bound - opt) <= 1e-6 * (1 + opt),
			          "exact %.10g, optimum %.10g (t %d)", e.bound, opt, t);
			cr_assert(e.stages);
			sc_settings set = g->settings;
			set.k = k;
			sc_costs *c = sc_costs_new(g, &set, NULL);
			sc_costs_eval(c, e.stages);
			cr_assert(fabs(sc_costs_objective(c) - opt) <= 1e-6 * (1 + opt),
			          "the MIP's partition costs %.10g, optimum %.10g",
			          sc_costs_objective(c), opt);
			sc_costs_free(c);
			free(e.stages);
			sc_mip_result s = solve(g, k, SC_RUNG_EXACT, 0, opt, best);
			cr_assert_eq(s.status, SC_MIP_OPTIMAL);
			cr_assert(fabs(s.bound - opt) <= 1e-6 * (1 + opt),
			          "started exact %.10g, optimum %.10g (t %d)", s.bound, opt, t);
			free(s.stages);
			exact_checked++;
		}
		free(best);
		sc_graph_free(g);
	}
	cr_assert_gt(exact_checked, ts_trials(250) * 3 / 5);
	cr_assert_gt(equal_checked, ts_trials(250) * 100 / 250);
	cr_assert_gt(hard, ts_trials(250) * 40 / 250);
	/* the rungs are not just the simple bound again */
	cr_assert_gt(strict_bottleneck, ts_trials(250) * 50 / 250);
	cr_assert_gt(strict_guess, ts_trials(250) * 10 / 250);
}

/* Figure 2 (see the file's comment): outs a 1, u 2, v 1, w 1, x 1, y 0 and
 * works 1, 2, 3, 1, 2, 1.  k = 2: the simple bound is 10 / 2 = 5; a middle
 * block doing 5 or more costs at least 9 (e.g. {u, v}: in 1 + 5 + out 3),
 * and so does the best split ({a, u} | rest: 3 + 2 = 5 and 2 + 7 = 9).
 * k = 3: the simple bound is 10 / 3; the cheapest middle block with work
 * >= 4 is {a, u, w} at 4 + 3 = 7, and {a, u, w} | {v} | {x, y} costs
 * 7, 6, 5. */
Test(mip, figure2_by_hand)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	cr_assert_float_eq(sc_bound_simple(g, 2), 5.0, 1e-12);
	cr_assert_float_eq(solve(g, 2, SC_RUNG_BOTTLENECK, 0, INFINITY, NULL).bound, 9.0, 1e-6);
	cr_assert_float_eq(guess_min(g, 2), 9.0, 1e-6);
	sc_mip_result e = solve(g, 2, SC_RUNG_EXACT, 0, INFINITY, NULL);
	cr_assert_float_eq(e.bound, 9.0, 1e-6);
	free(e.stages);
	cr_assert_float_eq(solve(g, 3, SC_RUNG_BOTTLENECK, 0, INFINITY, NULL).bound, 7.0, 1e-6);
	cr_assert_float_eq(guess_min(g, 3), 7.0, 1e-6);
	e = solve(g, 3, SC_RUNG_EXACT, 0, INFINITY, NULL);
	cr_assert_float_eq(e.bound, 7.0, 1e-6);
	free(e.stages);
	sc_graph_free(g);
}

Test(mip, lemma_b2_exact_is_one)
{
	sc_graph *g = ts_load("samples/paper/lemma_b2.dot");
	sc_mip_result e = solve(g, 4, SC_RUNG_EXACT, 0, INFINITY, NULL);
	cr_assert_eq(e.status, SC_MIP_OPTIMAL);
	cr_assert_float_eq(e.bound, 1.0, 1e-6);
	free(e.stages);
	cr_assert_leq(guess_min(g, 4), 1.0 + 1e-6);
	sc_graph_free(g);
}

Test(mip, time_limit_reports_a_valid_bound, .timeout = 60)
{
	/* a graph exact cannot finish in 0.5 s: the bound is still valid */
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	sc_settings set = g->settings;
	set.k = 16;
	sc_mip_params p = {.rung = SC_RUNG_EXACT, .k = 16, .time_limit = 0.5, .upper = INFINITY};
	sc_mip_result res;
	sc_error err;
	cr_assert_eq(sc_mip_solve(g, &set, &p, NULL, NULL, &res, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(res.status, SC_MIP_TIME_LIMIT);
	cr_assert_leq(res.seconds, 10);
	cr_assert_leq(res.bound, 124.34884977404485 * (1 + 1e-9), "REFERENCE optimum for k = 16");
	cr_assert_geq(res.bound, sc_bound_simple(g, 16) * (1 - 1e-9));
	free(res.stages);
	sc_graph_free(g);
}

static void count_progress(void *ud, double bound, double incumbent, long nodes, double secs)
{
	(void)bound, (void)incumbent, (void)nodes, (void)secs;
	++*(int *)ud;
}

/* Short limits with a MIP start and progress reports (as the ladder runs
 * it): CBC 2.10 stopped inside its preprocessing crashed
 * (CglPreProcess::postProcess, limits up to 0.18 s on this graph); every
 * limit must give a valid bound, never a crash or "infeasible". */
Test(mip, short_limits_with_a_start_give_a_valid_bound, .timeout = 120)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/bert_l-6_training.json");
	const double opt = 65.303149120000003; /* REFERENCE.tsv, k = 4 */
	sc_settings set = g->settings;
	set.k = 4;
	/* the start: the exact DP's optimum */
	sc_search_params sp;
	sc_search_params_init(&sp);
	sp.method = "exact";
	sc_error err;
	sc_search *s = sc_search_new(g, &set, &sp, &err);
	cr_assert(s, "%s", err.msg);
	cr_assert_eq(sc_search_run(s, &err), SC_OK, "%s", err.msg);
	int *start = malloc((size_t)g->n * sizeof *start);
	cr_assert(start);
	double best = sc_search_result(s, start, NULL);
	sc_search_free(s);
	cr_assert(fabs(best - opt) <= 1e-6 * opt, "exact DP %.12g", best);
	/* with progress reports CBC logs to stdout: not into the test's */
	fflush(stdout);
	int saved = dup(1), nul = open("/dev/null", O_WRONLY);
	cr_assert(saved >= 0 && nul >= 0);
	dup2(nul, 1);
	for (double t = 0.02; t < 0.6; t += ts_short() ? 0.2 : 0.08) {
		sc_mip_params p = {.rung = SC_RUNG_EXACT,
		                   .k = 4,
		                   .time_limit = t,
		                   .upper = best,
		                   .start = start};
		sc_mip_result res;
		int reports = 0;
		cr_assert_eq(sc_mip_solve(g, &set, &p, count_progress, &reports, &res, &err), SC_OK,
		             "limit %.2f: %s", t, err.msg);
		cr_assert(res.status == SC_MIP_OPTIMAL || res.status == SC_MIP_TIME_LIMIT,
		          "limit %.2f: status %d", t, res.status);
		cr_assert(isfinite(res.bound) && res.bound <= opt * (1 + 1e-6),
		          "limit %.2f: bound %.12g", t, res.bound);
		free(res.stages);
	}
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(nul);
	free(start);
	sc_graph_free(g);
}

Test(mip, bad_parameters)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_settings set = g->settings;
	sc_mip_params p = {.rung = SC_RUNG_GUESS, .k = 3, .guess = 4, .upper = INFINITY};
	sc_mip_result res;
	sc_error err;
	cr_assert_eq(sc_mip_solve(g, &set, &p, NULL, NULL, &res, &err), SC_ERR_INPUT);
	cr_assert(strstr(err.msg, "1..3"), "%s", err.msg);
	p.rung = SC_RUNG_SIMPLE;
	cr_assert_eq(sc_mip_solve(g, &set, &p, NULL, NULL, &res, &err), SC_ERR_INPUT);
	sc_graph_free(g);
}

Test(mip, a_lower_bound_at_the_optimum_is_solved, .timeout = 120)
{
	/* the ladder gives each guess solve the bottleneck rung's value as its
	 * lower bound: when that is the solve's optimum, CBC 2.10 failed an
	 * assertion (OsiClp crunch) and the solve died, on this graph (found by
	 * the huge-k ladder test) at k = 2, j = 2 */
	char dir[64], path[128];
	ts_make_dir(dir, "sc-mip");
	snprintf(path, sizeof path, "%s/tight.dot", dir);
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs("digraph t { memory=6.0616430547754376; memory_policy=overflow;\n"
	      "  a [work=5.3351559873765062, param=7.5803798373734086, out=3.6108601323141851];\n"
	      "  b [work=1.5816159649496431, param=2.4843279517512649, out=0.22534303326689153];\n"
	      "}\n",
	      f);
	fclose(f);
	sc_graph *g = ts_load(path);
	ts_remove_dir(dir);
	sc_settings set = g->settings;
	set.k = 2;
	double opt = ts_brute_optimum(g, 2, NULL);
	sc_mip_result res;
	sc_error err;
	sc_mip_params p = {.rung = SC_RUNG_BOTTLENECK,
	                   .k = 2,
	                   .lower = sc_bound_simple(g, 2),
	                   .upper = INFINITY,
	                   .time_limit = 30};
	cr_assert_eq(sc_mip_solve(g, &set, &p, NULL, NULL, &res, &err), SC_OK, "%s", err.msg);
	double floor_ = res.bound;
	free(res.stages);
	for (int j = 0; j <= 2; j++) {
		/* j = 0: the exact rung with the optimum as its lower bound */
		sc_mip_params q = {.rung = j ? SC_RUNG_GUESS : SC_RUNG_EXACT,
		                   .k = 2,
		                   .guess = j,
		                   .lower = j ? floor_ : opt,
		                   .upper = INFINITY,
		                   .time_limit = 30};
		cr_assert_eq(sc_mip_solve(g, &set, &q, NULL, NULL, &res, &err), SC_OK, "%s",
		             err.msg);
		cr_assert_geq(res.bound, q.lower * (1 - 1e-12), "j %d", j);
		cr_assert_leq(res.bound, opt * (1 + 1e-6) + 1e-9, "j %d: %.10g > %.10g", j,
		              res.bound, opt);
		free(res.stages);
	}
	sc_graph_free(g);
}

/* A MIP whose model would take more than a solve may (10 KiB per op, at
 * least 1 GiB; the ladder's MIPs once took 2.2 GB on 100 000 ops) is
 * refused before CBC runs, with its estimate: here a chain of 2 000 ops at
 * 300 blocks (1.2 KB x 3 999 units and edges x 300 = 1.4 GB). */
Test(mip, a_model_too_large_for_the_memory_is_refused, .timeout = 120)
{
	sc_builder *b = sc_builder_new();
	sc_error err;
	int prev = -1;
	for (int i = 0; i < 2000; i++) {
		char name[32];
		snprintf(name, sizeof name, "c%d", i);
		int v = sc_builder_add_op(b, name, 1, 0, 1, NULL, &err);
		cr_assert(v >= 0, "%s", err.msg);
		if (prev >= 0)
			cr_assert_eq(sc_builder_add_edge(b, prev, v, &err), SC_OK);
		prev = v;
	}
	sc_graph *g = sc_builder_finish(b, "chain", "chain", &err);
	cr_assert(g, "%s", err.msg);
	sc_builder_free(b);
	sc_settings set = g->settings;
	set.k = 300;
	sc_mip_params p = {.rung = SC_RUNG_EXACT, .k = 300, .upper = INFINITY, .time_limit = 1};
	sc_mip_result res;
	cr_assert_eq(sc_mip_solve(g, &set, &p, NULL, NULL, &res, &err), SC_ERR_LIMIT);
	cr_assert(strstr(err.msg, "would take about 1.4 GB") && strstr(err.msg, "2000 units"), "%s",
	          err.msg);
	sc_graph_free(g);
}
