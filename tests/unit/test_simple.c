/*
 * test_simple.c - the simple bound never exceeds the brute-force optimum,
 * equals its formula on the paper's examples, and the greedy first partition
 * is always valid.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/cost.h"
#include "core/partition.h"
#include "solvers/simple.h"
#include "tests/support.h"

Test(simple, lemma_b2_values)
{
	sc_graph *g = ts_load("samples/paper/lemma_b2.dot");
	/* total work 4: max(0.875, 4 / k) */
	cr_assert_float_eq(sc_bound_simple(g, 1), 4, 1e-12);
	cr_assert_float_eq(sc_bound_simple(g, 4), 1, 1e-12);
	cr_assert_float_eq(sc_bound_simple(g, 8), 0.875, 1e-12);
	/* here the bound is tight at k = 4: OPT = 1 */
	cr_assert_float_eq(ts_brute_optimum(g, 4, NULL), 1, 1e-12);
	sc_graph_free(g);
}

Test(simple, groups_are_indivisible)
{
	sc_graph *g = ts_load("samples/small/residual.dot");
	/* group matmul has work 3 + 3 = 6, as much as conv1 alone; total 21 */
	cr_assert_float_eq(sc_bound_simple(g, 4), 6, 1e-12);
	cr_assert_float_eq(sc_bound_simple(g, 2), 10.5, 1e-12);
	/* k = 8: 21 / 8 < 6, so the indivisible group decides */
	cr_assert_float_eq(sc_bound_simple(g, 8), 6, 1e-12);
	sc_graph_free(g);
}

Test(simple, never_above_the_optimum_and_greedy_is_valid)
{
	ts_rng r = {11};
	int checked = 0;
	for (int t = 0; t < 300; t++) {
		ts_graph_spec spec = {.n = 1 + ts_below(&r, 8),
		                      .edge_p = ts_uniform(&r) * 0.5,
		                      .group_p = ts_uniform(&r) < 0.4 ? 0.4 : 0,
		                      .ngroups = 2};
		sc_settings_init(&spec.settings);
		spec.settings.bandwidth = 0.5 + ts_uniform(&r) * 2;
		if (ts_uniform(&r) < 0.5) {
			spec.settings.memory = 5 + ts_uniform(&r) * 30;
			spec.settings.policy = ts_uniform(&r) < 0.5 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 4);
		double opt = ts_brute_optimum(g, k, NULL);
		double lb = sc_bound_simple(g, k);
		cr_assert_leq(lb, opt * (1 + 1e-12), "simple %g > optimum %g", lb, opt);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		cr_assert_eq(sc_greedy_split(g, k, stage, NULL), SC_OK);
		cr_assert(sc_part_check(g, stage, k, NULL));
		sc_settings set = g->settings;
		set.k = k;
		sc_costs *c = sc_costs_new(g, &set, NULL);
		sc_costs_eval(c, stage);
		/* the greedy partition is an upper bound on the optimum */
		cr_assert_geq(sc_costs_objective(c), opt * (1 - 1e-12));
		checked += isfinite(opt);
		free(stage);
		sc_costs_free(c);
		sc_graph_free(g);
	}
	cr_assert_gt(checked, 150, "most instances are feasible");
}
