/*
 * test_ideals.c - the exact dynamic program over ideals (ideals.c, 001
 * section 5.1.1): it reproduces the 30 published optima of the msr-fiddle
 * graphs (samples/msr-fiddle/REFERENCE.tsv) and proves them.  Its agreement
 * with brute force on random graphs is checked with every other method in
 * test_search.c; here the DP pruned by a partition's bottleneck equals the
 * DP without pruning and brute force, under every memory policy, and its
 * progress counts the ideals and layers.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "solvers/contract_report.h"
#include "solvers/ideals.h"
#include "solvers/search.h"
#include "solvers/units.h"
#include "tests/support.h"

Test(ideals, exact_reproduces_the_published_optima, .timeout = 120)
{
	FILE *f = fopen("samples/msr-fiddle/REFERENCE.tsv", "r");
	cr_assert(f);
	char line[512], path[300], last[300] = "";
	int rows = 0;
	sc_graph *g = NULL;
	int *stage = NULL;
	cr_assert(fgets(line, sizeof line, f)); /* header */
	while (fgets(line, sizeof line, f)) {
		char graph[256];
		int k;
		double want, secs;
		cr_assert_eq(sscanf(line, "%255s %d %lf %lf", graph, &k, &want, &secs), 4, "%s",
		             line);
		snprintf(path, sizeof path, "samples/msr-fiddle/%s", graph);
		if (strcmp(path, last) != 0) {
			sc_graph_free(g);
			free(stage);
			g = ts_load(path);
			stage = malloc((size_t)g->n * sizeof *stage);
			snprintf(last, sizeof last, "%s", path);
		}
		bool optimal;
		double got = ts_search(g, k, "exact", 1, 0, stage, &optimal);
		cr_assert(optimal);
		cr_assert(fabs(got - want) <= 1e-9 * want, "%s k=%d: exact %.17g, published %.17g",
		          graph, k, got, want);
		cr_assert(fabs(ts_objective(g, k, stage) - got) <= 1e-12 * got);
		rows++;
	}
	fclose(f);
	cr_assert_eq(rows, 30);
	sc_graph_free(g);
	free(stage);
}

/* Runs the DP on u to the end with bound ub (strict or not); returns the optimum and fills
 * unit_stage and the progress. */
static double run_dp(const sc_units *u, const sc_settings *set, int k, double ub, bool strict,
                     int *unit_stage, sc_dp_progress_info *p)
{
	sc_error err;
	sc_dp *d = sc_dp_new(u, set, k, 0, &err);
	cr_assert(d, "%s", err.msg);
	sc_dp_set_bound(d, ub, strict);
	int more;
	while ((more = sc_dp_step(d, sc_clock_now() + 0.01, &err)) > 0)
		;
	cr_assert_eq(more, 0, "%s", err.msg);
	sc_dp_progress(d, p);
	double v = sc_dp_result(d, unit_stage);
	sc_dp_free(d);
	return v;
}

static bool same(double a, double b)
{
	return (isinf(a) && isinf(b)) || fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

Test(ideals, pruning_by_a_bound_keeps_the_optimum, .timeout = 300)
{
	ts_rng r = {2026};
	int trials = ts_trials(80), pruned_less = 0;
	for (int t = 0; t < trials; t++) {
		ts_graph_spec spec = {.n = 5 + ts_below(&r, 4),
		                      .edge_p = 0.2 + 0.3 * ts_uniform(&r),
		                      .group_p = t % 3 == 0 ? 0.3 : 0,
		                      .ngroups = 2,
		                      .integer_weights = t % 2 == 0};
		sc_settings_init(&spec.settings);
		/* every policy: no limit, overflow and hard limits that bind or
		 * not */
		int policy = t % 5;
		if (policy > 0) {
			spec.settings.memory = policy <= 2 ? 12 : 40;
			spec.settings.policy = policy % 2 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		spec.settings.bandwidth = t % 4 == 3 ? 0.5 : 1;
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 2 + t % 3;
		if (k == 4 && g->n > 7)
			k = 3;
		sc_settings set = g->settings;
		set.k = k;
		sc_units *u = sc_units_new(g, true, set.memory, NULL);
		cr_assert(u);
		int *us = malloc((size_t)(u->n + 1) * sizeof *us);
		int *st = malloc((size_t)(g->n + 1) * sizeof *st);
		sc_dp_progress_info plain_p, pruned_p;
		double plain = run_dp(u, &set, k, INFINITY, false, us, &plain_p);
		double brute = ts_brute_optimum(g, k, NULL);
		cr_assert(same(plain, brute), "trial %d: DP %.17g, brute force %.17g", t, plain,
		          brute);
		/* the bound: the optimum itself (the tightest a search can give),
		 * and a looser one */
		if (isfinite(plain)) {
			sc_units_expand(u, us, st);
			cr_assert(same(ts_objective(g, k, st), plain));
			for (int b = 0; b < 2; b++) {
				double ub = b ? plain * 1.3 : ts_objective(g, k, st);
				double pruned = run_dp(u, &set, k, ub, false, us, &pruned_p);
				cr_assert(same(pruned, plain),
				          "trial %d, bound %g: pruned %.17g, plain %.17g", t, ub,
				          pruned, plain);
				sc_units_expand(u, us, st);
				cr_assert(same(ts_objective(g, k, st), plain));
				cr_assert_leq(pruned_p.ideals, plain_p.ideals);
				cr_assert_leq(pruned_p.evals, plain_p.evals);
				pruned_less += pruned_p.evals < plain_p.evals;
				/* strictly below the bound: nothing under the optimum, the
				 * optimum under a looser bound */
				double strict = run_dp(u, &set, k, ub, true, us, &pruned_p);
				if (b)
					cr_assert(same(strict, plain),
					          "trial %d: strict %.17g, plain %.17g", t, strict,
					          plain);
				else
					cr_assert(isinf(strict),
					          "trial %d: strict below the optimum %.17g "
					          "found %.17g",
					          t, plain, strict);
			}
		}
		/* progress at the end: every ideal filled, every layer done */
		cr_assert_eq(plain_p.ideals_done, plain_p.ideals);
		cr_assert_eq(plain_p.layers, u->n + 1);
		cr_assert_eq(plain_p.layers_done, u->n + 1);
		sc_contract_report rep;
		sc_error err;
		cr_assert(sc_contract_report_of(g, 10000000, &rep, &err) == SC_OK);
		/* the DP makes only the ideals some stage within the limit reaches */
		cr_assert_leq(plain_p.ideals, rep.ideals_after);
		if (spec.settings.policy != SC_MEM_HARD)
			cr_assert_eq(plain_p.ideals, rep.ideals_after);
		free(us);
		free(st);
		sc_units_free(u);
		sc_graph_free(g);
	}
	cr_assert_gt(pruned_less, trials / 4, "pruning saved work in only %d runs", pruned_less);
}

Test(ideals, a_small_limit_is_refused_and_memory_sizes_the_default)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_units *u = sc_units_new(g, true, INFINITY, NULL);
	sc_settings set = g->settings;
	sc_error err;
	sc_dp *d = sc_dp_new(u, &set, 3, 3, &err);
	int more;
	while ((more = sc_dp_step(d, sc_clock_now() + 0.01, &err)) > 0)
		;
	cr_assert_eq(more, -1);
	cr_assert_eq(err.code, SC_ERR_LIMIT);
	cr_assert(strstr(err.msg, "more than 3 ideals"), "%s", err.msg);
	sc_dp_free(d);
	/* the default: a quarter of the memory over the bytes per ideal */
	long lim = sc_dp_memory_limit(u, 3);
	cr_assert_gt(lim, 100000);
	cr_assert_lt((double)lim * (double)sc_dp_bytes_per_ideal(u, 3), 8.1 * 1024 * 1024 * 1024);
	sc_units_free(u);
	sc_graph_free(g);
}
