/*
 * test_brkga.c - the genetic searches (brkga.c: brkga, mla, mla-weighted):
 * a seed gives the same partition every time (random-T too), and a time
 * limit too short to decode one population still gives a valid partition.
 * The framework's tests are in test_search.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/search.h"
#include "tests/support.h"

Test(brkga, same_seed_same_partition)
{
	sc_graph *g = ts_load("samples/msr-fiddle/operator/resnet50_inference.json");
	int *a = malloc((size_t)g->n * sizeof *a), *b = malloc((size_t)g->n * sizeof *b);
	const char *methods[] = {"brkga", "random", "mla-weighted"};
	for (int m = 0; m < 3; m++) {
		double va = ts_search(g, 8, methods[m], 42, 400, a, NULL);
		double vb = ts_search(g, 8, methods[m], 42, 400, b, NULL);
		cr_assert_eq(va, vb, "%s", methods[m]);
		cr_assert_eq(memcmp(a, b, (size_t)g->n * sizeof *a), 0, "%s", methods[m]);
	}
	free(a);
	free(b);
	sc_graph_free(g);
}

Test(brkga, a_time_limit_before_any_evaluation_still_gives_a_partition)
{
	/* population sqrt(1e9) ~ 31623 cannot be decoded in 1 ms */
	sc_graph *g = ts_load("samples/msr-fiddle/operator/bert_l-3_inference.json");
	sc_settings set = g->settings;
	set.k = 8;
	sc_search_params p;
	sc_search_params_init(&p);
	p.method = "brkga";
	p.evals = 1000000000;
	p.time_limit = 0.001;
	sc_error err;
	sc_search *s = sc_search_new(g, &set, &p, &err);
	cr_assert_eq(sc_search_run(s, &err), SC_OK);
	int *stage = malloc((size_t)g->n * sizeof *stage);
	double v = sc_search_result(s, stage, NULL);
	cr_assert(isfinite(v), "a valid partition, not none");
	cr_assert(fabs(ts_objective(g, 8, stage) - v) <= 1e-12 * v);
	free(stage);
	sc_search_free(s);
	sc_graph_free(g);
}
