/*
 * test_cover.c - the cover rung (solvers/cover.h): on hundreds of random
 * small graphs (groups, both memory policies, training graphs under both
 * schedules) it never exceeds the brute-force optimum, and it is not the
 * simple bound in disguise: on graphs whose stages must be small it is
 * often well above it.  Its time limit holds on a testbed graph.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/clock.h"
#include "solvers/cover_set.h"
#include "solvers/mip.h"
#include "solvers/simple.h"
#include "tests/support.h"

static sc_mip_result cover(const sc_graph *g, const sc_settings *set, int k, double upper,
                           double seconds)
{
	sc_mip_params p = {.rung = SC_RUNG_COVER, .k = k, .upper = upper, .time_limit = seconds};
	sc_mip_result res;
	sc_error err;
	cr_assert_eq(sc_mip_solve(g, set, &p, NULL, NULL, &res, &err), SC_OK, "%s", err.msg);
	return res;
}

Test(cover, never_above_the_brute_force_optimum, .timeout = 600)
{
	ts_rng r = {2026};
	int checked = 0, above_simple = 0, training = 0;
	double sum_cover = 0, sum_simple = 0;
	for (int t = 0; t < ts_trials(120); t++) {
		ts_graph_spec spec = {.n = 3 + ts_below(&r, 6),
		                      .edge_p = 0.2 + ts_uniform(&r) * 0.5,
		                      .group_p = ts_uniform(&r) < 0.3 ? 0.3 : 0,
		                      .ngroups = 2};
		sc_settings_init(&spec.settings);
		/* io comparable to work, so small stages pay for it */
		spec.settings.bandwidth = 0.2 + ts_uniform(&r) * 2;
		double x = ts_uniform(&r);
		if (x < 0.4) {
			spec.settings.memory = 5 + ts_uniform(&r) * 25;
			spec.settings.policy = x < 0.2 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		bool train = t % 5 == 4;
		sc_graph *g =
		        train ? ts_random_training_graph(&r, &spec) : ts_random_graph(&r, &spec);
		int k = 2 + ts_below(&r, 4);
		sc_settings set = g->settings;
		set.k = k;
		if (train && t % 2)
			set.schedule = SC_SCHEDULE_GPIPE;
		double opt = ts_brute_optimum_sched(g, k, set.schedule, NULL);
		if (!isfinite(opt)) {
			sc_graph_free(g);
			continue;
		}
		/* with the optimum as the top of the search, and without one */
		double upper = t % 2 ? opt : INFINITY;
		sc_mip_result res = cover(g, &set, k, upper, 0);
		cr_assert_eq(res.status, SC_MIP_OPTIMAL, "no time limit: the search ends (t %d)",
		             t);
		cr_assert_leq(res.bound, opt * (1 + 1e-9) + 1e-12,
		              "cover %.12g above the optimum %.12g (t %d, k %d, n %d)", res.bound,
		              opt, t, k, g->n);
		double simple = sc_bound_simple(g, k);
		cr_assert_geq(res.bound, simple * (1 - 1e-9), "cover never below simple (t %d)", t);
		checked++;
		training += train;
		above_simple += res.bound > simple * (1 + 1e-6);
		if (opt > 0) {
			sum_cover += res.bound / opt;
			sum_simple += simple / opt;
		}
		sc_graph_free(g);
	}
	cr_assert_geq(checked, ts_trials(120) / 2, "%d feasible instances", checked);
	cr_assert_gt(training, 0);
	/* it earns its place: above the simple bound on a good share */
	cr_assert_geq(above_simple, checked / 4, "%d of %d above simple", above_simple, checked);
	cr_assert_gt(sum_cover, sum_simple * 1.02, "mean cover/opt %.4f, simple/opt %.4f",
	             sum_cover / checked, sum_simple / checked);
}

Test(cover, time_limit_holds_and_the_bound_is_kept, .timeout = 120)
{
	sc_graph *g = ts_load("samples/testbed/regal-ba-100-2.dot");
	sc_settings set = g->settings;
	set.k = 16;
	double simple = sc_bound_simple(g, 16);
	double t0 = sc_clock_now();
	/* an upper bound far above the optimum: many probes to go */
	sc_mip_result res = cover(g, &set, 16, 4 * simple, 2);
	double took = sc_clock_now() - t0;
	cr_assert_lt(took, 2 + 1.5, "a 2 s limit took %.2f s", took);
	cr_assert_geq(res.bound, simple * (1 - 1e-9));
	sc_graph_free(g);
}

/* The cheapest set with pi(S) >= T (sc_cov_jump_mip, the cover rung's
 * proof step): its bound never exceeds the brute-force minimum over all
 * sets, is close to it when CBC finishes, and the set it leaves is one of
 * pi(S) >= T at the cost it reports, under both memory policies. */
Test(cover, the_cheapest_set_of_enough_dual_against_brute_force, .timeout = 300)
{
	ts_rng r = {77};
	int exact = 0, none = 0;
	for (int t = 0; t < ts_trials(150); t++) {
		ts_graph_spec spec = {.n = 2 + ts_below(&r, 9),
		                      .edge_p = 0.15 + ts_uniform(&r) * 0.6,
		                      .group_p = ts_uniform(&r) < 0.3 ? 0.3 : 0,
		                      .ngroups = 2};
		sc_settings_init(&spec.settings);
		spec.settings.bandwidth = 0.2 + ts_uniform(&r) * 2;
		double x = ts_uniform(&r);
		if (x < 0.5) {
			spec.settings.memory = 5 + ts_uniform(&r) * 25;
			spec.settings.policy = x < 0.25 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		sc_graph *g = ts_random_graph(&r, &spec);
		sc_error err;
		sc_units *u = sc_units_new(g, true, &g->settings, &err);
		cr_assert(u, "%s", err.msg);
		sc_cov c;
		cr_assert(sc_cov_init(&c, u, &g->settings));
		double total = 0;
		for (int X = 0; X < c.n; X++) {
			c.pi[X] = ts_uniform(&r) < 0.2 ? 0 : ts_uniform(&r);
			total += c.pi[X];
		}
		if (total == 0) /* T > 0: the empty set never counts */
			total = c.pi[0] = 1;
		double T = total * (0.1 + 0.95 * ts_uniform(&r));
		/* brute force over every non-empty set of units */
		double best = INFINITY;
		for (unsigned m = 1; m < 1u << c.n; m++) {
			double v = 0;
			for (int X = 0; X < c.n; X++)
				if (m >> X & 1) {
					sc_cov_toggle(&c, X, true);
					v += c.pi[X];
				}
			if (v >= T && sc_cov_fits(&c))
				best = fmin(best, sc_cov_cost(&c));
			sc_cov_clear(&c);
		}
		double J;
		cr_assert(sc_cov_jump_mip(&c, T, 1 + ts_uniform(&r) * 10, 30, &J));
		cr_assert_leq(J, best * (1 + 1e-7) + 1e-9,
		              "bound %.12g above the minimum %.12g (t %d)", J, best, t);
		if (isfinite(best)) {
			exact += J >= best * (1 - 1e-5) - 1e-9;
			double v = 0;
			for (int j = 0; j < c.nmem; j++)
				v += c.pi[c.members[j]];
			cr_assert_geq(v, T * (1 - 1e-6), "the set left has pi %.9g < T %.9g (t %d)",
			              v, T, t);
			cr_assert(sc_cov_fits(&c));
			if (v >= T) /* (CBC may leave one a hair below T) */
				cr_assert_geq(
				        sc_cov_cost(&c), best * (1 - 1e-9) - 1e-12,
				        "the set left costs %.12g, the minimum is %.12g (t %d)",
				        sc_cov_cost(&c), best, t);
		} else {
			none++;
		}
		sc_cov_free(&c);
		sc_units_free(u);
		sc_graph_free(g);
	}
	/* CBC finishes these: its bound is the minimum, not just below it */
	cr_assert_geq(exact, ts_trials(150) * 9 / 10 - none, "%d exact, %d without a set", exact,
	              none);
}
