/*
 * test_ideals_floor.c - the floor of the exact DP (sc_dp_floor, ideals.c):
 * a lower bound on every partition's objective, with which the exact
 * method stops without a DP when a quick partition reaches it.
 *
 * Against the brute force of tests/support.c (written apart from the
 * solvers) on small random graphs: inference and training graphs, groups,
 * both memory policies, several bandwidths, and CPU stages.  The floor is
 * never above the optimum (it fails when a stage's bound charges more than
 * every stage holding a unit can cost: the io of a tensor whose producer
 * the stage could hold, a unit twice, a unit outside the order's closure),
 * and it meets the optimum often (it fails when the floor is only the
 * work's).  Then the exact method, stopping at the floor or not, finds the
 * brute force's optimum and calls it proven.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "solvers/ideals.h"
#include "solvers/search.h"
#include "solvers/units.h"
#include "tests/support.h"

/* The floor of the DP on g at k stages (and L CPU stages). */
static double floor_of(const sc_graph *g, int k, int L)
{
	sc_settings set = g->settings;
	set.k = k;
	set.cpus = L;
	sc_units *u = sc_units_new(g, true, &set, NULL);
	cr_assert(u);
	sc_error err;
	sc_dp *d = sc_dp_new(u, &set, k, 0, &err);
	cr_assert(d, "%s", err.msg);
	double v = sc_dp_floor(d);
	sc_dp_free(d);
	sc_units_free(u);
	return v;
}

/* A random graph of trial t: deeper than the DP's own tests (chains for
 * the closure), groups in a third, memory limits of both policies. */
static sc_graph *trial_graph(ts_rng *r, int t, bool training, bool cpus)
{
	ts_graph_spec spec = {.n = (cpus ? 4 : 6) + ts_below(r, 3),
	                      .edge_p = 0.2 + 0.4 * ts_uniform(r),
	                      .group_p = t % 3 == 0 ? 0.3 : 0,
	                      .ngroups = 2,
	                      .integer_weights = t % 2 == 0};
	sc_settings_init(&spec.settings);
	spec.settings.bandwidth = t % 4 == 3 ? 0.25 : t % 4 == 1 ? 4 : 1;
	if (t % 5 > 2) {
		spec.settings.memory = 8 + ts_uniform(r) * 30;
		spec.settings.policy = t % 2 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
	}
	sc_graph *g = training ? ts_random_training_graph(r, &spec) : ts_random_graph(r, &spec);
	if (!cpus)
		return g;
	sc_graph *c = ts_with_cpu_times(r, g, spec.integer_weights, 0, t % 4 == 2 ? 0.3 : 0);
	sc_graph_free(g);
	return c;
}

/* trials random graphs: the floor never above the brute force's optimum,
 * and at it in at least a tight_div-th of the feasible ones. */
static void floor_trials(uint64_t seed, bool training, bool cpus, int trials, int tight_div)
{
	ts_rng r = {seed};
	int finite = 0, tight = 0;
	for (int t = 0; t < trials; t++) {
		sc_graph *g = trial_graph(&r, t, training, cpus);
		int k = cpus ? 1 + ts_below(&r, 2) : 2 + t % 3, L = cpus ? 1 : 0;
		double opt = cpus ? ts_brute_optimum_cpus(g, k, L, NULL, NULL)
		                  : ts_brute_optimum(g, k, NULL);
		double fl = floor_of(g, k, L);
		cr_assert(fl <= opt * (1 + 1e-12),
		          "trial %d (n %d, k %d, L %d): floor %.17g above the optimum %.17g", t,
		          g->n, k, L, fl, opt);
		if (isfinite(opt)) {
			finite++;
			tight += fl >= opt * (1 - 1e-12);
		}
		sc_graph_free(g);
	}
	cr_log_info("%d trials, %d feasible, the floor at the optimum in %d", trials, finite,
	            tight);
	cr_assert_gt(finite, trials / 2);
	/* measured: the work's floor alone meets it in 0 of 145, 3 of 94 and 3
	 * of 80 (inference, training, CPU); the io of a unit's own tensors
	 * only (no branching) in 21, 32 and 7; the branch and bound in 41,
	 * 52 and 9 */
	cr_assert_geq(tight, finite / tight_div, "the floor met the optimum in only %d of %d",
	              tight, finite);
}

Test(ideals_floor, never_above_the_optimum, .timeout = 120)
{
	floor_trials(4201, false, false, 150, 5);
}

Test(ideals_floor, never_above_the_optimum_on_training_graphs, .timeout = 120)
{
	floor_trials(4202, true, false, 100, 2);
}

Test(ideals_floor, never_above_the_optimum_with_cpu_stages, .timeout = 120)
{
	floor_trials(4203, false, true, 80, 10);
}

/* The exact method on random graphs: its optimum, proven, whether the
 * quick partition met the floor or the DP ran. */
Test(ideals_floor, exact_stops_at_the_floor_with_the_optimum, .timeout = 120)
{
	ts_rng r = {4204};
	int trials = 60;
	for (int t = 0; t < trials; t++) {
		sc_graph *g = trial_graph(&r, t, t % 2 == 1, false);
		int k = 2 + t % 3;
		double opt = ts_brute_optimum(g, k, NULL);
		sc_settings set = g->settings;
		set.k = k;
		sc_search_params p;
		sc_search_params_init(&p);
		p.method = "exact";
		sc_error err;
		sc_search *s = sc_search_new(g, &set, &p, &err);
		cr_assert(s, "%s", err.msg);
		cr_assert_eq(sc_search_run(s, &err), SC_OK, "trial %d: %s", t, err.msg);
		int *stage = calloc((size_t)g->n, sizeof *stage);
		bool optimal = false;
		double got = sc_search_result(s, stage, &optimal);
		cr_assert(isinf(opt) ? isinf(got) : ts_close_rel(got, opt, 1e-9),
		          "trial %d: exact %.17g, brute %.17g", t, got, opt);
		cr_assert(optimal, "trial %d: not proven", t);
		if (isfinite(opt))
			cr_assert(ts_close_rel(ts_objective(g, k, stage), opt, 1e-9));
		sc_search_free(s);
		free(stage);
		sc_graph_free(g);
	}
}
