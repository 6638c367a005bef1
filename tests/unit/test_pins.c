/*
 * test_pins.c - ops pinned to a stage (sc_settings.pin): on
 * small random graphs, inference and training, under every memory policy,
 * with one to three ops pinned to random stages, every search method
 * returns a valid partition that keeps the pins, never below the
 * brute-force optimum over the pinned partitions (support.c, written apart
 * from the solvers), and the exact DP and the exact MIP reach it; pins
 * that cannot hold are refused with a message naming both ops, and never
 * when a pinned partition exists.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/partition.h"
#include "solvers/mip.h"
#include "solvers/search.h"
#include "solvers/units.h"
#include "tests/support.h"

static bool same(double a, double b)
{
	return (isinf(a) && isinf(b)) || fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

static sc_graph *draw_graph(ts_rng *r, int t)
{
	ts_graph_spec spec = {.n = 6 + ts_below(r, 3),
	                      .edge_p = 0.35,
	                      .group_p = 0.2,
	                      .ngroups = 2,
	                      .integer_weights = t % 2 == 0};
	sc_settings_init(&spec.settings);
	switch (t % 3) {
	case 1: /* a hard limit that binds now and then */
		spec.settings.memory = 12 + ts_below(r, 10);
		spec.settings.policy = SC_MEM_HARD;
		break;
	case 2:
		spec.settings.memory = 10;
		spec.settings.policy = SC_MEM_OVERFLOW;
		break;
	default: break;
	}
	return t % 4 == 3 ? ts_random_training_graph(r, &spec) : ts_random_graph(r, &spec);
}

/* The result of method on g with pins, or INFINITY with *refused set when
 * the search refuses the pins. */
static double pinned_search(const sc_graph *g, int k, const int *pin, const char *method,
                            int *stage, bool *optimal, bool *refused)
{
	sc_settings set = g->settings;
	set.k = k;
	set.pin = pin;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = method;
	p.seed = 7;
	p.evals = 3000;
	sc_error err;
	*refused = false;
	sc_search *s = sc_search_new(g, &set, &p, &err);
	if (!s) {
		cr_assert_eq(err.code, SC_ERR_INPUT, "%s: %s", method, err.msg);
		cr_assert(strstr(err.msg, "pins cannot all hold"), "%s: %s", method, err.msg);
		*refused = true;
		return INFINITY;
	}
	cr_assert_eq(sc_search_run(s, &err), SC_OK, "%s: %s", method, err.msg);
	double v = sc_search_result(s, stage, optimal);
	sc_search_free(s);
	return v;
}

Test(pins, every_method_keeps_the_pins_and_exact_finds_the_pinned_optimum, .timeout = 300)
{
	static const char *const methods[] = {"exact", "best",   "brkga", "slice", "kahn",
	                                      "dpl",   "random", "mla",   "refine"};
	int nm = (int)(sizeof methods / sizeof methods[0]);
	ts_rng r = {91};
	int trials = ts_trials(80), solved = 0, refused_ok = 0, changed = 0;
	for (int t = 0; t < trials; t++) {
		sc_graph *g = draw_graph(&r, t);
		int k = 2 + t % 2, n = g->n;
		int *pin = malloc((size_t)n * sizeof *pin),
		    *stage = malloc((size_t)n * sizeof *stage);
		cr_assert(pin && stage);
		for (int v = 0; v < n; v++)
			pin[v] = -1;
		for (int i = 1 + ts_below(&r, 3); i > 0; i--)
			pin[ts_below(&r, n)] = ts_below(&r, k);
		double brute = ts_brute_optimum_pinned(g, k, g->settings.schedule, pin, NULL);
		double free_opt = ts_brute_optimum_pinned(g, k, g->settings.schedule, NULL, NULL);
		changed += brute > free_opt * (1 + 1e-9);
		for (int m = 0; m < nm; m++) {
			bool optimal = false, refused;
			for (int v = 0; v < n; v++)
				stage[v] = -1;
			double v = pinned_search(g, k, pin, methods[m], stage, &optimal, &refused);
			if (refused) {
				cr_assert(isinf(brute),
				          "trial %d, %s: pins refused, but a pinned "
				          "partition of %g exists",
				          t, methods[m], brute);
				refused_ok++;
				continue;
			}
			if (isinf(v)) {
				cr_assert(strcmp(methods[m], "exact") != 0 || isinf(brute),
				          "trial %d: exact found nothing, brute force %g", t,
				          brute);
				continue;
			}
			cr_assert(ts_valid(g, stage, k), "trial %d, %s: invalid partition", t,
			          methods[m]);
			for (int o = 0; o < n; o++)
				cr_assert(pin[o] < 0 || stage[o] == pin[o],
				          "trial %d, %s: op %d in stage %d, pinned to %d", t,
				          methods[m], o, stage[o], pin[o]);
			cr_assert(same(ts_objective(g, k, stage), v), "trial %d, %s", t,
			          methods[m]);
			cr_assert(v >= brute * (1 - 1e-9),
			          "trial %d, %s: %.17g below the pinned "
			          "optimum %.17g",
			          t, methods[m], v, brute);
			if (strcmp(methods[m], "exact") == 0) {
				cr_assert(optimal, "trial %d: exact did not prove its result", t);
				cr_assert(same(v, brute),
				          "trial %d: exact %.17g, pinned optimum %.17g", t, v,
				          brute);
				solved++;
			}
		}
		free(pin);
		free(stage);
		sc_graph_free(g);
	}
	cr_assert_gt(solved, trials / 2, "exact solved only %d of %d", solved, trials);
	cr_assert_gt(changed, 0, "no pin ever changed the optimum: the test tests nothing");
	(void)refused_ok;
}

/* The exact MIP with pins fixes them: its optimum is the pinned one. */
Test(pins, the_exact_mip_takes_the_pins, .timeout = 300)
{
	ts_rng r = {17};
	int trials = ts_trials(24), checked = 0;
	for (int t = 0; t < trials; t++) {
		sc_graph *g = draw_graph(&r, t);
		int k = 2 + t % 2, n = g->n;
		int *pin = malloc((size_t)n * sizeof *pin);
		cr_assert(pin);
		for (int v = 0; v < n; v++)
			pin[v] = -1;
		pin[ts_below(&r, n)] = ts_below(&r, k);
		pin[ts_below(&r, n)] = ts_below(&r, k);
		double brute = ts_brute_optimum_pinned(g, k, g->settings.schedule, pin, NULL);
		sc_settings set = g->settings;
		set.k = k;
		set.pin = pin;
		sc_mip_params p = {.rung = SC_RUNG_EXACT, .k = k, .upper = INFINITY};
		sc_mip_result res;
		sc_error err;
		sc_status st = sc_mip_solve(g, &set, &p, NULL, NULL, &res, &err);
		if (st == SC_ERR_INPUT) {
			cr_assert(isinf(brute), "trial %d: %s", t, err.msg);
		} else {
			cr_assert_eq(st, SC_OK, "trial %d: %s", t, err.msg);
			if (isinf(brute)) {
				cr_assert_eq(res.status, SC_MIP_INFEASIBLE, "trial %d", t);
			} else {
				cr_assert_eq(res.status, SC_MIP_OPTIMAL, "trial %d", t);
				cr_assert(same(res.incumbent, brute) ||
				                  fabs(res.incumbent - brute) <=
				                          1e-6 * fmax(1, brute),
				          "trial %d: exact MIP %.17g, pinned optimum %.17g", t,
				          res.incumbent, brute);
				cr_assert(res.stages);
				for (int v = 0; v < n; v++)
					cr_assert(pin[v] < 0 || res.stages[v] == pin[v], "trial %d",
					          t);
				checked++;
			}
			free(res.stages);
		}
		free(pin);
		sc_graph_free(g);
	}
	cr_assert_gt(checked, 0);
}

/* Pins that contradict a group or the order are refused, naming both ops;
 * a pin past the last stage too. */
Test(pins, pins_that_cannot_hold_are_refused)
{
	sc_builder *b = sc_builder_new();
	sc_error err;
	int a = sc_builder_add_op(b, "a", 1, 0, 1, NULL, &err);
	int c = sc_builder_add_op(b, "c", 1, 0, 1, "grp", &err);
	int d = sc_builder_add_op(b, "d", 1, 0, 1, "grp", &err);
	cr_assert(sc_builder_add_edge(b, a, c, &err) == SC_OK);
	sc_graph *g = sc_builder_finish(b, "t", "t", &err);
	cr_assert(g, "%s", err.msg);
	sc_builder_free(b);
	int pin[3] = {-1, -1, -1};
	sc_settings set = g->settings;
	set.k = 3;
	set.pin = pin;
	sc_search_params p;
	sc_search_params_init(&p);
	/* a group split */
	pin[c] = 0;
	pin[d] = 1;
	cr_assert_null(sc_search_new(g, &set, &p, &err));
	cr_assert(strstr(err.msg, "'c' (stage 1) and 'd' (stage 2)"), "%s", err.msg);
	/* against the order: a -> c, a pinned after c */
	pin[d] = -1;
	pin[c] = 0;
	pin[a] = 2;
	cr_assert_null(sc_search_new(g, &set, &p, &err));
	cr_assert(strstr(err.msg, "pins cannot all hold") && strstr(err.msg, "'a'") &&
	                  strstr(err.msg, "'c'"),
	          "%s", err.msg);
	/* past the last stage */
	pin[a] = 3;
	pin[c] = -1;
	cr_assert_null(sc_search_new(g, &set, &p, &err));
	cr_assert(strstr(err.msg, "'a' is pinned to stage 4 of 3"), "%s", err.msg);
	/* and a valid pin on a graph with fewer ops than stages keeps its stage */
	pin[a] = 2;
	int stage[3];
	bool optimal;
	sc_search *s = sc_search_new(g, &set, &p, &err);
	cr_assert(s, "%s", err.msg);
	cr_assert_eq(sc_search_run(s, &err), SC_OK, "%s", err.msg);
	cr_assert(isfinite(sc_search_result(s, stage, &optimal)));
	cr_assert_eq(stage[a], 2);
	cr_assert_eq(stage[c], 2);
	cr_assert_eq(stage[d], 2);
	sc_search_free(s);
	sc_graph_free(g);
}
