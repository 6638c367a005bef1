/*
 * test_train_solve.c - every search on training graphs (001 section 5.3): on many
 * small random training graphs (forward and backward ops, groups, orphans,
 * no memory limit, an overflow limit and a hard limit that makes some
 * partitions infeasible) the exact DP equals brute force by the rules and
 * costs of tests/support.c (written apart from the program), and every
 * other method returns a partition valid by those rules, costing what it
 * says by core's model and by the independent one, and never below the
 * optimum; under the GPipe schedule too, where the exact method proves
 * the GPipe optimum (test_gpipe_dp.c checks its DP more closely).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "solvers/search.h"
#include "tests/support.h"

static const char *const methods[] = {"exact", "best", "kahn",         "slice", "random",
                                      "brkga", "mla",  "mla-weighted", "dpl",   "refine"};
#define NMETHODS (sizeof methods / sizeof *methods)

/* What a search gave. */
typedef struct outcome {
	double value; /* sc_search_result */
	bool optimal;
	double lower; /* the progress's proven lower bound */
} outcome;

static outcome run(const sc_graph *g, int k, const char *method, uint64_t seed, int *stage)
{
	sc_settings set = g->settings;
	set.k = k;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = method;
	p.seed = seed;
	p.evals = 50;
	sc_error err;
	sc_search *s = sc_search_new(g, &set, &p, &err);
	cr_assert(s, "%s: %s", method, err.msg);
	cr_assert_eq(sc_search_run(s, &err), SC_OK, "%s: %s", method, err.msg);
	outcome o;
	o.value = sc_search_result(s, stage, &o.optimal);
	sc_progress pr;
	sc_search_progress(s, &pr);
	o.lower = pr.lower;
	sc_search_free(s);
	return o;
}

/* The objective of stage by the independent model (ts_costs). */
static double independent(const sc_graph *g, int k, const int *stage)
{
	ts_cost *c = calloc((size_t)k, sizeof *c);
	cr_assert(c);
	sc_settings set = g->settings;
	ts_costs(g, stage, &set, k, c);
	int at;
	double v = g->settings.schedule == SC_SCHEDULE_GPIPE ? ts_gpipe(c, k)
	                                                     : ts_bottleneck(c, k, &at);
	for (int s = 0; s < k && set.policy == SC_MEM_HARD; s++)
		if (c[s].over)
			v = INFINITY;
	free(c);
	return v;
}

static bool close_to(double a, double b, double rel)
{
	return (isinf(a) && isinf(b)) || fabs(a - b) <= rel * (1 + fabs(b));
}

/* A random training graph for trial t: 2 to 9 ops; every third with no
 * memory limit, then overflow, then hard.  The limit is 0.75 to 1.05
 * times the parameters of the fullest stage of an optimal partition
 * without a limit, so that it often binds, sometimes so hard that nothing
 * fits, and sometimes not at all.  *free_opt: that optimum. */
static sc_graph *trial_graph(ts_rng *r, int t, int k, sc_schedule sched, double *free_opt)
{
	ts_graph_spec spec = {.n = 2 + ts_below(r, 8),
	                      .edge_p = 0.2 + ts_uniform(r) * 0.5,
	                      .group_p = ts_uniform(r) < 0.5 ? 0.4 : 0,
	                      .ngroups = 2,
	                      .integer_weights = t % 4 == 0};
	sc_settings_init(&spec.settings);
	spec.settings.bandwidth = t % 5 == 4 ? 0.5 + ts_uniform(r) * 2 : 1;
	spec.settings.schedule = sched;
	sc_graph *g = ts_random_training_graph(r, &spec);
	int *best = malloc((size_t)g->n * sizeof *best);
	double *param = calloc((size_t)k, sizeof *param);
	cr_assert(best && param);
	*free_opt = ts_brute_optimum(g, k, best);
	int policy = t % 3;
	if (policy > 0) {
		double full = 0;
		for (int v = 0; v < g->n; v++)
			param[best[v]] += g->param[v];
		for (int s = 0; s < k; s++)
			full = fmax(full, param[s]);
		g->settings.memory = full * (0.75 + 0.3 * ts_uniform(r));
		g->settings.policy = policy == 1 ? SC_MEM_OVERFLOW : SC_MEM_HARD;
	}
	free(best);
	free(param);
	return g;
}

/* Runs every method on trials random training graphs under sched and
 * checks them against brute force; returns through the counters how
 * often the cases the test means to cover came up. */
static void every_method(uint64_t seed, int trials, sc_schedule sched, int *binding,
                         int *infeasible, int *orphans, int *unproven)
{
	ts_rng r = {seed};
	for (int t = 0; t < trials; t++) {
		int k = 2 + ts_below(&r, 3);
		double free_opt;
		sc_graph *g = trial_graph(&r, t, k, sched, &free_opt);
		cr_assert(sc_graph_is_training(g));
		double opt = ts_brute_optimum(g, k, NULL);
		if (g->settings.policy == SC_MEM_HARD) {
			*binding += isfinite(opt) && !(opt <= free_opt * (1 + 1e-12));
			*infeasible += isinf(opt);
		}
		*orphans += g->orphans > 0;
		int *stage = malloc((size_t)g->n * sizeof *stage);
		cr_assert(stage);
		for (size_t m = 0; m < NMETHODS; m++) {
			for (int v = 0; v < g->n; v++)
				stage[v] = -1;
			outcome o = run(g, k, methods[m], 3 + (uint64_t)t, stage);
			const char *name = methods[m];
			bool exact = strcmp(name, "exact") == 0;
			if (exact)
				cr_assert(o.optimal, "trial %d: exact proves its result", t);
			if (exact)
				/* its bound is the optimum */
				cr_assert(close_to(o.lower, opt, 1e-9),
				          "trial %d: exact's bound %.17g, the optimum %.17g", t,
				          o.lower, opt);
			if (o.optimal || exact)
				cr_assert(close_to(o.value, opt, 1e-9),
				          "trial %d: %s proves %.17g, brute force %.17g", t, name,
				          o.value, opt);
			if (exact && !o.optimal)
				(*unproven)++;
			if (isinf(o.value)) {
				/* heuristics may miss a feasible partition; exact may not */
				cr_assert(!exact || isinf(opt) || !o.optimal, "trial %d", t);
				continue;
			}
			cr_assert(ts_valid(g, stage, k),
			          "trial %d: %s returns an invalid partition", t, name);
			cr_assert_geq(o.value, opt * (1 - 1e-12), "trial %d: %s %.17g below %.17g",
			              t, name, o.value, opt);
			cr_assert(close_to(ts_objective(g, k, stage), o.value, 1e-12),
			          "trial %d: %s reports %.17g, core says %.17g", t, name, o.value,
			          ts_objective(g, k, stage));
			cr_assert(close_to(independent(g, k, stage), o.value, 1e-9),
			          "trial %d: %s reports %.17g, the independent model %.17g", t,
			          name, o.value, independent(g, k, stage));
		}
		free(stage);
		sc_graph_free(g);
	}
}

Test(train_solve, every_method_against_brute_force, .timeout = 300)
{
	int binding = 0, infeasible = 0, orphans = 0, unproven = 0;
	int trials = ts_trials(600);
	every_method(1414, trials, SC_SCHEDULE_1F1B, &binding, &infeasible, &orphans, &unproven);
	cr_assert_eq(unproven, 0);
	if (trials >= 600) {
		cr_assert_gt(binding, 30, "the hard limit binds in %d trials", binding);
		cr_assert_gt(infeasible, 30, "nothing fits in %d trials", infeasible);
		cr_assert_gt(orphans, 300, "orphans in %d trials", orphans);
	}
}

Test(train_solve, every_method_against_brute_force_under_gpipe, .timeout = 300)
{
	int binding = 0, infeasible = 0, orphans = 0, unproven = 0;
	int trials = ts_trials(600);
	every_method(1515, trials, SC_SCHEDULE_GPIPE, &binding, &infeasible, &orphans, &unproven);
	cr_assert_eq(unproven, 0);
	if (trials >= 600) {
		cr_assert_gt(binding, 30, "the hard limit binds in %d trials", binding);
		cr_assert_gt(orphans, 300, "orphans in %d trials", orphans);
	}
}
