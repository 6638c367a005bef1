/*
 * test_search.c - the search framework and every method through it
 * (search.c, methods.c, slicing.c): `exact` equals a brute-force optimum on
 * hundreds of random small graphs (groups, both memory policies) and every
 * other method returns a valid partition no better than that optimum and
 * costing what it says; a cancel or a time limit stops a search with a
 * valid partition; bad methods and parameters are refused.  The methods'
 * own tests are beside it: test_brkga.c, test_ideals.c, test_refine.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gen.h"
#include "solvers/ideals.h"
#include "solvers/search.h"
#include "solvers/search_impl.h"
#include "tests/support.h"

static const char *const heuristics[] = {"kahn",         "slice", "random", "brkga", "mla",
                                         "mla-weighted", "dpl",   "refine", "best"};
#define NHEUR (sizeof heuristics / sizeof *heuristics)

Test(search, exact_is_the_brute_force_optimum_and_others_are_no_better, .timeout = 300)
{
	ts_rng r = {777};
	int feasible = 0, hard = 0, grouped = 0;
	for (int t = 0; t < 300; t++) {
		ts_graph_spec spec = {.n = 1 + ts_below(&r, 8),
		                      .edge_p = ts_uniform(&r) * 0.5,
		                      .group_p = ts_uniform(&r) < 0.4 ? 0.35 : 0,
		                      .ngroups = 2};
		sc_settings_init(&spec.settings);
		spec.settings.bandwidth = 0.5 + ts_uniform(&r) * 2;
		double x = ts_uniform(&r);
		if (x < 0.6) {
			spec.settings.memory = 5 + ts_uniform(&r) * 25;
			spec.settings.policy = x < 0.3 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 4);
		double opt = ts_brute_optimum(g, k, NULL);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		bool optimal;
		double ex = ts_search(g, k, "exact", 1, 0, stage, &optimal);
		cr_assert(optimal, "exact proves optimality");
		if (isinf(opt)) {
			cr_assert(isinf(ex), "no feasible partition, exact says %g", ex);
		} else {
			cr_assert(fabs(ex - opt) <= 1e-9 * (1 + opt),
			          "exact %.17g, brute force %.17g (t %d)", ex, opt, t);
			cr_assert(fabs(ts_objective(g, k, stage) - ex) <= 1e-12 * (1 + ex));
			feasible++;
		}
		hard += g->settings.policy == SC_MEM_HARD;
		grouped += g->ngroups > 0;
		for (size_t h = 0; h < NHEUR; h++) {
			double v = ts_search(g, k, heuristics[h], 5, 50, stage, &optimal);
			if (isinf(v))
				continue; /* heuristics may miss a feasible partition */
			cr_assert_geq(v, opt * (1 - 1e-12), "%s %.17g below the optimum %.17g",
			              heuristics[h], v, opt);
			cr_assert(fabs(ts_objective(g, k, stage) - v) <= 1e-12 * (1 + v), "%s",
			          heuristics[h]);
		}
		free(stage);
		sc_graph_free(g);
	}
	cr_assert_gt(feasible, 200);
	cr_assert_gt(hard, 50);
	cr_assert_gt(grouped, 50);
}

Test(search, cancel_and_time_limit_stop_with_a_valid_partition, .timeout = 60)
{
	sc_graph *g = sc_gen_regal(150, 3, SC_GEN_ANY, 8, NULL);
	cr_assert(g);
	sc_settings set = g->settings;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "brkga";
	p.evals = 100000000;
	p.time_limit = 0.3;
	sc_search *s = sc_search_new(g, &set, &p, NULL);
	cr_assert(s);
	cr_assert_eq(sc_search_run(s, NULL), SC_OK);
	sc_progress pr;
	sc_search_progress(s, &pr);
	cr_assert(pr.done);
	cr_assert_lt(pr.evals, 100000000);
	int *stage = malloc((size_t)g->n * sizeof *stage);
	double v = sc_search_result(s, stage, NULL);
	cr_assert(isfinite(v));
	cr_assert_float_eq(ts_objective(g, 8, stage), v, 1e-9 * v);
	sc_search_free(s);

	p.time_limit = 0;
	s = sc_search_new(g, &set, &p, NULL);
	cr_assert(sc_search_step(s));
	sc_search_cancel(s);
	while (sc_search_step(s))
		;
	sc_search_progress(s, &pr);
	cr_assert(pr.cancelled);
	v = sc_search_result(s, stage, NULL);
	cr_assert(isfinite(v), "a cancelled search keeps its best partition");
	cr_assert_float_eq(ts_objective(g, 8, stage), v, 1e-9 * v);
	sc_search_free(s);
	free(stage);
	sc_graph_free(g);
}

Test(search, bad_parameters_are_refused)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_settings set = g->settings;
	sc_search_params p;
	sc_search_params_init(&p);
	sc_error err;
	p.method = "annealing";
	cr_assert_null(sc_search_new(g, &set, &p, &err));
	cr_assert(strstr(err.msg, "unknown method 'annealing'") && strstr(err.msg, "brkga"), "%s",
	          err.msg);
	sc_search_params_init(&p);
	p.elite = 0.8;
	p.mutants = 0.3;
	cr_assert_null(sc_search_new(g, &set, &p, &err));
	sc_search_params_init(&p);
	p.method = "exact";
	p.ideal_limit = 3;
	sc_search *s = sc_search_new(g, &set, &p, &err);
	cr_assert_null(s, "figure2 has more than 3 ideals");
	cr_assert(strstr(err.msg, "more than 3 ideals"), "%s", err.msg);
	sc_graph_free(g);
}

/* k past the number of ops: at most n stages can be non-empty, so every
 * method searches with k = n and leaves the rest empty.  The result must be
 * the same partition as with k = n (same seed), valid for the k asked for,
 * and it must not cost memory or time in proportion to k (k = 1 000 000
 * took gigabytes and minutes when the searches sized their tables by k). */
Test(search, a_huge_k_searches_with_as_many_stages_as_ops, .timeout = 60)
{
	static const char *const methods[] = {"kahn",         "slice", "random", "brkga",  "mla",
	                                      "mla-weighted", "dpl",   "exact",  "refine", "best"};
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	int *a = malloc((size_t)g->n * sizeof *a), *b = malloc((size_t)g->n * sizeof *b);
	for (size_t h = 0; h < sizeof methods / sizeof *methods; h++) {
		double huge = ts_search(g, 1000000, methods[h], 3, 0, a, NULL);
		double same = ts_search(g, g->n, methods[h], 3, 0, b, NULL);
		cr_assert(isfinite(huge), "%s", methods[h]);
		cr_assert_eq(huge, same, "%s: %.17g with k = 1e6, %.17g with k = n", methods[h],
		             huge, same);
		cr_assert_float_eq(ts_objective(g, 1000000, a), huge, 1e-12 * huge, "%s",
		                   methods[h]);
		for (int v = 0; v < g->n; v++)
			cr_assert_eq(a[v], b[v], "%s: op %d", methods[h], v);
	}
	free(a);
	free(b);
	sc_graph_free(g);
}

/* Two chains of len ops between a source and a sink, pseudo-random work
 * and tensors: (len + 1)^2 + 2 ideals in little memory, and a DP that
 * settles k = 4 in about a second. */
static sc_graph *two_chains(int len)
{
	sc_builder *b = sc_builder_new();
	ts_rng r = {2626};
	char name[32];
	int src = sc_builder_add_op(b, "s", 1, 0, 5, NULL, NULL);
	int sink = sc_builder_add_op(b, "t", 1, 0, 5, NULL, NULL);
	for (int c = 0; c < 2; c++) {
		int prev = src;
		for (int i = 0; i < len; i++) {
			snprintf(name, sizeof name, "c%d_%d", c, i);
			int v = sc_builder_add_op(b, name, 1 + ts_below(&r, 20), 0,
			                          1 + ts_below(&r, 9), NULL, NULL);
			sc_builder_add_edge(b, prev, v, NULL);
			prev = v;
		}
		sc_builder_add_edge(b, prev, sink, NULL);
	}
	sc_error err;
	sc_graph *g = sc_builder_finish(b, "two-chains", "two-chains", &err);
	sc_builder_free(b);
	cr_assert(g, "%s", err.msg);
	return g;
}

/* `best` chooses the exact DP by the memory it needs and the time, not by a
 * fixed count: 22 803 ideals took brkga (no proof) while the limit was
 * 20 000; they take a few megabytes and a second, so the DP runs and proves
 * the optimum.  Given 5 s, the DP is expected to get through 5 000 ideals
 * only, so brkga runs; --ideal-limit still decides when given. */
Test(search, best_chooses_exact_by_memory_and_time_not_a_fixed_count, .timeout = 60)
{
	sc_graph *g = two_chains(150);
	sc_error err;
	sc_units *u = sc_units_new(g, true, &g->settings, &err);
	cr_assert(u, "%s", err.msg);
	cr_assert_eq(sc_ideals_count(u, 1000000), 151L * 151 + 2, "two chains' ideals");
	sc_settings set = g->settings;
	set.k = 4;
	cr_assert_geq(sc_dp_best_limit(u, &set, 0), 100000, "two minutes of DP");
	cr_assert_eq(sc_dp_best_limit(u, &set, 5), 5000, "5 s: 5 000 ideals");
	sc_units_free(u);
	int *stage = malloc((size_t)g->n * sizeof *stage);
	bool optimal;
	double ex = ts_search(g, 4, "exact", 1, 0, stage, &optimal);
	cr_assert(optimal);
	double best = ts_search(g, 4, "best", 1, 0, stage, &optimal);
	cr_assert(optimal, "best ran the exact DP over 22 803 ideals");
	cr_assert_float_eq(best, ex, 1e-9 * ex);
	cr_assert_float_eq(ts_objective(g, 4, stage), best, 1e-9 * best);
	sc_search_params p;
	sc_search_params_init(&p);
	p.time_limit = 5;
	p.evals = 200;
	sc_search *s = sc_search_new(g, &set, &p, &err);
	cr_assert(s, "%s", err.msg);
	cr_assert_eq(sc_search_run(s, &err), SC_OK, "%s", err.msg);
	sc_progress pr;
	sc_search_progress(s, &pr);
	cr_assert(!pr.optimal && pr.ideals == 0, "5 s: brkga, not the DP");
	sc_search_free(s);
	sc_search_params_init(&p);
	p.ideal_limit = 30000;
	p.time_limit = 5;
	s = sc_search_new(g, &set, &p, &err);
	cr_assert(s, "%s", err.msg);
	cr_assert_eq(sc_search_run(s, &err), SC_OK, "%s", err.msg);
	sc_search_progress(s, &pr);
	cr_assert(pr.optimal, "--ideal-limit 30000 decides: exact");
	sc_search_free(s);
	free(stage);
	sc_graph_free(g);
}

/* sc_search_best_is_exact says what best would run, without running it:
 * the same two chains' 22 803 ideals fit two minutes (no time limit) but
 * not 5 s at the estimate, and --ideal-limit decides when given. */
Test(search, best_is_exact_answers_as_best_chooses, .timeout = 60)
{
	sc_graph *g = two_chains(150);
	sc_settings set = g->settings;
	set.k = 4;
	sc_search_params p;
	sc_search_params_init(&p);
	sc_error err;
	bool exact = false;
	cr_assert_eq(sc_search_best_is_exact(g, &set, &p, &exact, &err), SC_OK, "%s", err.msg);
	cr_assert(exact, "no time limit: the DP");
	p.time_limit = 5;
	cr_assert_eq(sc_search_best_is_exact(g, &set, &p, &exact, &err), SC_OK, "%s", err.msg);
	cr_assert(!exact, "5 s: brkga");
	p.ideal_limit = 30000;
	cr_assert_eq(sc_search_best_is_exact(g, &set, &p, &exact, &err), SC_OK, "%s", err.msg);
	cr_assert(exact, "--ideal-limit 30000 holds them");
	cr_assert_eq(sc_search_best_is_exact(g, &set, NULL, &exact, NULL), SC_OK);
	cr_assert(exact, "NULL params: the defaults");
	sc_graph_free(g);
}
