/*
 * test_tight.c - every search under a tight hard memory limit:
 * on small random graphs, inference and training, with M between total / k
 * (below which nothing fits) and total / (k - 1), some feasible and some
 * not as a brute force decides (support.c, written apart from the
 * solvers): every method returns only partitions that fit, never below the
 * optimum; the exact DP finds the optimum when one fits and proves that
 * none does when none does; and no method claims "none fits" (INFINITY
 * with optimal) unless the brute force agrees.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/first_fit.h"
#include "solvers/search.h"
#include "tests/support.h"

static bool same(double a, double b)
{
	return (isinf(a) && isinf(b)) || fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

Test(tight, every_method_under_a_tight_hard_limit, .timeout = 300)
{
	static const char *const methods[] = {"exact", "best",   "brkga", "slice", "kahn",
	                                      "dpl",   "random", "mla",   "refine"};
	int nm = (int)(sizeof methods / sizeof methods[0]);
	ts_rng r = {31};
	int trials = ts_trials(100), feasible = 0, infeasible = 0;
	for (int t = 0; t < trials; t++) {
		ts_graph_spec spec = {.n = 5 + ts_below(&r, 4),
		                      .edge_p = 0.3,
		                      .group_p = t % 3 == 0 ? 0.25 : 0,
		                      .ngroups = 2,
		                      .integer_weights = true};
		sc_settings_init(&spec.settings);
		sc_graph *g = t % 4 == 3 ? ts_random_training_graph(&r, &spec)
		                         : ts_random_graph(&r, &spec);
		int k = 2 + t % 2, n = g->n;
		double total = 0;
		for (int v = 0; v < n; v++)
			total += g->param[v];
		g->settings.memory = total / k + ts_uniform(&r) * (total / (k - 1) - total / k);
		g->settings.policy = SC_MEM_HARD;
		double brute = ts_brute_optimum(g, k, NULL);
		if (isinf(brute))
			infeasible++;
		else
			feasible++;
		int *stage = malloc((size_t)n * sizeof *stage);
		cr_assert(stage);
		for (int m = 0; m < nm; m++) {
			bool optimal = false;
			double v = ts_search(g, k, methods[m], 1, 2000, stage, &optimal);
			if (isinf(v)) {
				cr_assert(!optimal || isinf(brute),
				          "trial %d, %s: 'none fits' proven, but %g fits", t,
				          methods[m], brute);
				cr_assert(strcmp(methods[m], "exact") != 0 || isinf(brute),
				          "trial %d: exact found nothing, brute force %g", t,
				          brute);
				cr_assert(strcmp(methods[m], "exact") != 0 || optimal,
				          "trial %d: exact did not prove that nothing fits", t);
				continue;
			}
			cr_assert(isfinite(brute), "trial %d, %s: %g, but nothing fits", t,
			          methods[m], v);
			cr_assert(ts_valid(g, stage, k), "trial %d, %s: invalid", t, methods[m]);
			cr_assert(same(ts_objective(g, k, stage), v), "trial %d, %s", t,
			          methods[m]);
			cr_assert(v >= brute * (1 - 1e-9), "trial %d, %s: %.17g below %.17g", t,
			          methods[m], v, brute);
			if (strcmp(methods[m], "exact") == 0)
				cr_assert(optimal && same(v, brute),
				          "trial %d: exact %.17g, brute %.17g", t, v, brute);
		}
		free(stage);
		sc_graph_free(g);
	}
	/* both kinds were drawn */
	cr_assert_gt(feasible, 0);
	cr_assert_gt(infeasible, 0);
}

/* First fit (first_fit.h) on random graphs under a tight hard limit, with
 * pins on some: what it returns is valid, keeps the pins and fits M; it
 * finds nothing where nothing fits (brute force), and it finds a partition
 * on most graphs where one fits and the equal-work split does not (that is
 * what it is for: refinement then starts from a feasible partition). */
Test(tight, first_fit_fits_or_says_nothing, .timeout = 120)
{
	ts_rng r = {3131};
	int trials = ts_trials(300), feasible = 0, found_n = 0;
	for (int t = 0; t < trials; t++) {
		ts_graph_spec spec = {.n = 6 + ts_below(&r, 5),
		                      .edge_p = 0.25,
		                      .group_p = t % 3 == 0 ? 0.2 : 0,
		                      .ngroups = 2,
		                      .integer_weights = true};
		sc_settings_init(&spec.settings);
		sc_graph *g = t % 4 == 3 ? ts_random_training_graph(&r, &spec)
		                         : ts_random_graph(&r, &spec);
		int k = 2 + t % 3, n = g->n;
		double total = 0;
		for (int v = 0; v < n; v++)
			total += g->param[v];
		g->settings.memory = total / k + ts_uniform(&r) * (total / (k - 1) - total / k);
		g->settings.policy = SC_MEM_HARD;
		g->settings.k = k;
		/* one op pinned in every third trial */
		int *pin = NULL;
		if (t % 3 == 1) {
			pin = malloc((size_t)n * sizeof *pin);
			cr_assert(pin);
			for (int v = 0; v < n; v++)
				pin[v] = -1;
			pin[ts_below(&r, n)] = ts_below(&r, k);
		}
		double brute = ts_brute_optimum_pinned(g, k, g->settings.schedule, pin, NULL);
		sc_settings set = g->settings;
		set.pin = pin;
		sc_error err;
		sc_units *u = sc_units_new(g, false, &set, &err);
		if (!u) { /* pins that cannot hold */
			cr_assert(isinf(brute), "trial %d: %s", t, err.msg);
			free(pin);
			sc_graph_free(g);
			continue;
		}
		sc_orderer *o = sc_orderer_new(u, &err);
		int *us = malloc((size_t)u->n * sizeof *us),
		    *stage = malloc((size_t)n * sizeof *stage);
		cr_assert(o && us && stage);
		bool found;
		cr_assert_eq(sc_first_fit(u, o, k, g->settings.memory, us, &found, &err), SC_OK);
		if (isfinite(brute))
			feasible++;
		if (found) {
			found_n++;
			cr_assert(isfinite(brute), "trial %d: first fit fits where nothing does",
			          t);
			sc_units_expand(u, us, stage);
			cr_assert(ts_valid(g, stage, k), "trial %d: invalid", t);
			for (int v = 0; pin && v < n; v++)
				cr_assert(pin[v] < 0 || stage[v] == pin[v],
				          "trial %d: a pin broken", t);
			double *param = calloc((size_t)k, sizeof *param);
			for (int v = 0; v < n; v++)
				param[stage[v]] += g->param[v];
			for (int s = 0; s < k; s++)
				cr_assert_leq(param[s], g->settings.memory, "trial %d, stage %d", t,
				              s + 1);
			free(param);
		}
		free(us);
		free(stage);
		free(pin);
		sc_orderer_free(o);
		sc_units_free(u);
		sc_graph_free(g);
	}
	/* 216 of 219 without pins when written */
	cr_assert_gt(feasible, trials / 4, "the trials have feasible cases");
	cr_assert_geq(found_n, 0.9 * feasible, "first fit found %d of %d", found_n, feasible);
}
