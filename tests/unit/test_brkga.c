/*
 * test_brkga.c - the genetic searches (brkga.c: brkga, mla, mla-weighted):
 * a seed gives the same partition every time (random-T too), and a time
 * limit too short to decode one population still gives a valid partition,
 * on training graphs too.
 * The framework's tests are in test_search.c.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The same on training graphs, whose order arcs are not their edges: the
 * first partition the framework falls back on must follow the training
 * rules (an equal-work split of the edges' topological order breaks the
 * mirrored order of the orphans' edges). */
Test(brkga, a_time_limit_before_any_evaluation_on_a_training_graph)
{
	static const char *const files[] = {"operator/bert_l-3_training.json",
	                                    "operator/bert_l-6_training.json",
	                                    "operator/resnet50_training.json"};
	for (int f = 0; f < 3; f++) {
		char path[300];
		snprintf(path, sizeof path, "samples/msr-fiddle/%s", files[f]);
		sc_graph *g = ts_load(path);
		cr_assert(sc_graph_is_training(g) && g->orphans > 0, "%s", path);
		for (int k = 2; k <= 8; k *= 2) {
			sc_settings set = g->settings;
			set.k = k;
			set.memory = INFINITY; /* so that the equal-work split counts */
			sc_search_params p;
			sc_search_params_init(&p);
			p.method = "brkga";
			p.evals = 1000000000;
			p.time_limit = 1e-9;
			p.refine = false;
			sc_error err;
			sc_search *s = sc_search_new(g, &set, &p, &err);
			cr_assert(s, "%s", err.msg);
			cr_assert_eq(sc_search_run(s, &err), SC_OK);
			sc_progress pr;
			sc_search_progress(s, &pr);
			cr_assert_eq(pr.evals, 0, "%s k=%d: the limit came first", path, k);
			int *stage = malloc((size_t)g->n * sizeof *stage);
			double v = sc_search_result(s, stage, NULL);
			cr_assert(isfinite(v), "%s k=%d: a partition, not none", path, k);
			cr_assert(ts_valid(g, stage, k), "%s k=%d: valid by the rules", path, k);
			free(stage);
			sc_search_free(s);
		}
		sc_graph_free(g);
	}
}
