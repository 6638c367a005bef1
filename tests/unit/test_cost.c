/*
 * test_cost.c - the cost model against hand-computed stage costs on the
 * paper's examples, against a from-the-definition recomputation on random
 * graphs, and the incremental update against the whole evaluation.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "core/partition.h"
#include "tests/support.h"

#define EPS 1e-9

static void close_to(double got, double want, const char *what)
{
	double tol = EPS * (1 + fabs(want));
	cr_assert(fabs(got - want) <= tol, "%s: got %.17g, want %.17g", what, got, want);
}

/* Evaluates g's partition given as op-name/1-based-stage pairs. */
static sc_costs *eval_named(const sc_graph *g, int k, const char *const *names, const int *stages,
                            int **stage_out)
{
	int *stage = malloc((size_t)g->n * sizeof *stage);
	for (int v = 0; v < g->n; v++)
		stage[v] = -1;
	for (int i = 0; names[i]; i++) {
		int v = sc_graph_find(g, names[i]);
		cr_assert_geq(v, 0, "no op %s", names[i]);
		stage[v] = stages[i] - 1;
	}
	for (int v = 0; v < g->n; v++)
		cr_assert_geq(stage[v], 0, "op %s has no stage in the test", g->op_name[v]);
	sc_settings set = g->settings;
	set.k = k;
	sc_error err;
	sc_costs *c = sc_costs_new(g, &set, &err);
	cr_assert(c, "%s", err.msg);
	sc_costs_eval(c, stage);
	if (stage_out)
		*stage_out = stage;
	else
		free(stage);
	return c;
}

Test(cost, figure2_by_hand)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	const char *names[] = {"a", "u", "v", "w", "x", "y", NULL};
	const int stages[] = {1, 1, 2, 2, 3, 3};
	sc_costs *c = eval_named(g, 3, names, stages, NULL);
	/* see the comment at the top of figure2.dot */
	const double io_in[] = {0, 2, 2}, work[] = {3, 4, 3}, io_out[] = {2, 2, 0},
	             cost[] = {5, 8, 5};
	for (int s = 0; s < 3; s++) {
		close_to(c->st[s].io_in, io_in[s], "io_in");
		close_to(c->st[s].work, work[s], "work");
		close_to(c->st[s].io_out, io_out[s], "io_out");
		close_to(c->st[s].cost, cost[s], "cost");
		cr_assert_eq(c->st[s].ops, 2);
	}
	int at;
	close_to(sc_costs_bottleneck(c, &at), 8, "bottleneck");
	cr_assert_eq(at, 1);
	/* the tensor cut property: u's tensor counted once although v and w both
	 * read it, so stage 2's io in is out(u) = 2, not 4 */
	close_to(c->st[1].in_bytes, 2, "in bytes");
	sc_costs_free(c);
	sc_graph_free(g);
}

Test(cost, lemma_b2_optimum_and_one_stage)
{
	sc_graph *g = ts_load("samples/paper/lemma_b2.dot");
	cr_assert(g->init_stage);
	sc_settings set = g->settings;
	sc_error err;
	sc_costs *c = sc_costs_new(g, &set, &err);
	sc_costs_eval(c, g->init_stage);
	/* each stage {h_i, l_i} costs (1 - 1/8) + 1/8 = 1 with no io */
	for (int s = 0; s < 4; s++)
		close_to(c->st[s].cost, 1, "stage cost");
	close_to(sc_costs_bottleneck(c, NULL), 1, "OPT");
	/* everything in one stage: 4 * 0.875 + 4 * 0.125 = 4 = k * OPT */
	int *one = calloc((size_t)g->n, sizeof *one);
	sc_costs_eval(c, one);
	close_to(sc_costs_bottleneck(c, NULL), 4, "one stage");
	/* cutting h1 from l1 costs 40 on both sides */
	int h1 = sc_graph_find(g, "h1");
	one[h1] = 0;
	for (int v = 0; v < g->n; v++)
		one[v] = v == h1 ? 0 : 1;
	sc_costs_eval(c, one);
	cr_assert_geq(sc_costs_bottleneck(c, NULL), 40);
	free(one);
	sc_costs_free(c);
	sc_graph_free(g);
}

Test(cost, residual_bandwidth_and_hard_memory)
{
	sc_graph *g = ts_load("samples/small/residual.dot");
	cr_assert_eq(g->settings.policy, SC_MEM_HARD);
	cr_assert_eq(g->settings.bandwidth, 2);
	const char *names[] = {"input", "conv1",  "conv2",  "add", "mm_a",
	                       "mm_b",  "concat", "output", NULL};
	const int ok[] = {1, 1, 2, 2, 3, 3, 3, 3};
	sc_costs *c = eval_named(g, 3, names, ok, NULL);
	/* stage 1: work 6, out: input's 8 and conv1's 8 bytes at B = 2 -> 8; 14
	 * stage 2: work 7, in 16 bytes -> 8, out add's 8 bytes once -> 4;     19
	 * stage 3: work 8, in add's 8 bytes -> 4;                             12 */
	close_to(c->st[0].cost, 14, "stage 1");
	close_to(c->st[1].cost, 19, "stage 2");
	close_to(c->st[2].cost, 12, "stage 3");
	cr_assert(sc_costs_feasible(c));
	close_to(sc_costs_objective(c), 19, "objective");
	sc_costs_free(c);

	const int heavy[] = {1, 1, 1, 1, 2, 2, 2, 2};
	c = eval_named(g, 3, names, heavy, NULL);
	/* stage 1 holds 120 bytes of parameters > 100: infeasible, no overflow */
	cr_assert(c->st[0].over_memory);
	close_to(c->st[0].overflow, 0, "hard policy charges nothing");
	cr_assert_not(sc_costs_feasible(c));
	cr_assert(isinf(sc_costs_objective(c)));
	sc_costs_free(c);

	/* the same partition under the overflow policy pays (120 - 100) / 2 */
	g->settings.policy = SC_MEM_OVERFLOW;
	c = eval_named(g, 3, names, heavy, NULL);
	close_to(c->st[0].overflow, 10, "overflow");
	/* work 13 + io out (add's 8 bytes) / 2 + overflow 10 */
	close_to(c->st[0].cost, 13 + 4 + 10, "stage 1 with overflow");
	cr_assert(sc_costs_feasible(c));
	sc_costs_free(c);
	sc_graph_free(g);
}

static void random_settings(ts_rng *r, sc_settings *s)
{
	sc_settings_init(s);
	s->bandwidth = 0.5 + ts_uniform(r) * 3;
	s->memory = ts_uniform(r) < 0.3 ? INFINITY : ts_uniform(r) * 40;
	s->policy = ts_uniform(r) < 0.5 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
}

static void assert_same_costs(const sc_costs *a, const sc_costs *b)
{
	for (int s = 0; s < a->k; s++) {
		cr_assert_eq(a->st[s].ops, b->st[s].ops, "stage %d ops", s);
		close_to(a->st[s].work, b->st[s].work, "work");
		close_to(a->st[s].param, b->st[s].param, "param");
		close_to(a->st[s].io_in, b->st[s].io_in, "io_in");
		close_to(a->st[s].io_out, b->st[s].io_out, "io_out");
		close_to(a->st[s].overflow, b->st[s].overflow, "overflow");
		close_to(a->st[s].cost, b->st[s].cost, "cost");
		cr_assert_eq(a->st[s].over_memory, b->st[s].over_memory);
	}
}

Test(cost, eval_matches_the_definition_on_random_graphs)
{
	ts_rng r = {2024};
	for (int t = 0; t < 300; t++) {
		ts_graph_spec spec = {.n = 1 + ts_below(&r, 25), .edge_p = ts_uniform(&r) * 0.4};
		random_settings(&r, &spec.settings);
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 5);
		sc_settings set = g->settings;
		set.k = k;
		sc_costs *c = sc_costs_new(g, &set, NULL);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		bool *in = malloc((size_t)g->n * sizeof *in);
		/* any assignment, valid or not: the cost model does not care */
		for (int v = 0; v < g->n; v++)
			stage[v] = ts_below(&r, k);
		sc_costs_eval(c, stage);
		double worst = 0;
		for (int s = 0; s < k; s++) {
			for (int v = 0; v < g->n; v++)
				in[v] = stage[v] == s;
			double want = sc_cost_of_set(g, &set, in);
			close_to(c->st[s].cost, want, "stage cost vs definition");
			if (want > worst)
				worst = want;
		}
		close_to(sc_costs_bottleneck(c, NULL), worst, "bottleneck");
		free(stage);
		free(in);
		sc_costs_free(c);
		sc_graph_free(g);
	}
}

Test(cost, incremental_moves_match_whole_evaluation)
{
	ts_rng r = {99};
	for (int t = 0; t < 100; t++) {
		ts_graph_spec spec = {.n = 2 + ts_below(&r, 60), .edge_p = ts_uniform(&r) * 0.2};
		random_settings(&r, &spec.settings);
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 8);
		sc_settings set = g->settings;
		set.k = k;
		sc_costs *inc = sc_costs_new(g, &set, NULL), *full = sc_costs_new(g, &set, NULL);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		for (int v = 0; v < g->n; v++)
			stage[v] = ts_below(&r, k);
		sc_costs_eval(inc, stage);
		for (int step = 0; step < 200; step++) {
			int v = ts_below(&r, g->n), to = ts_below(&r, k);
			sc_costs_move(inc, stage, v, to);
			cr_assert_eq(stage[v], to);
			sc_costs_eval(full, stage);
			assert_same_costs(inc, full);
			int a, b;
			close_to(sc_costs_bottleneck(inc, &a), sc_costs_bottleneck(full, &b),
			         "bottleneck");
			cr_assert_eq(sc_costs_feasible(inc), sc_costs_feasible(full));
		}
		free(stage);
		sc_costs_free(inc);
		sc_costs_free(full);
		sc_graph_free(g);
	}
}

Test(cost, k_must_be_positive)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_settings set = g->settings;
	set.k = 0;
	sc_error err;
	cr_assert_null(sc_costs_new(g, &set, &err));
	cr_assert_eq(err.code, SC_ERR_INPUT);
	sc_graph_free(g);
}
