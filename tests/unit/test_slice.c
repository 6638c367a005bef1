/*
 * test_slice.c - contraction into units, topological orders, and SliceGraph
 * against every segmentation of the order on small random graphs, and
 * against the textbook DP on inference and training graphs.
 *
 * Longer than 600 lines: the training cases run through the same
 * segmentation and textbook checkers as the inference ones.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cost.h"
#include "core/gen.h"
#include "core/partition.h"
#include "solvers/order.h"
#include "solvers/slice.h"
#include "solvers/units.h"
#include "tests/support.h"

static void random_spec(ts_rng *r, ts_graph_spec *spec, int maxn)
{
	*spec = (ts_graph_spec){.n = 1 + ts_below(r, maxn),
	                        .edge_p = ts_uniform(r) * 0.5,
	                        .group_p = ts_uniform(r) < 0.4 ? 0.3 : 0,
	                        .ngroups = 2};
	sc_settings_init(&spec->settings);
	spec->settings.bandwidth = 0.5 + ts_uniform(r) * 2;
	double x = ts_uniform(r);
	if (x < 0.6) {
		spec->settings.memory = 5 + ts_uniform(r) * 25;
		spec->settings.policy = x < 0.3 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
	}
}

Test(units, groups_and_their_cycles_are_contracted)
{
	/* a -> b -> c with a and c in one group: b must join them */
	sc_builder *b = sc_builder_new();
	sc_error err;
	sc_builder_add_op(b, "a", 1, 0, 1, "g", &err);
	sc_builder_add_op(b, "b", 1, 0, 1, NULL, &err);
	sc_builder_add_op(b, "c", 1, 0, 1, "g", &err);
	sc_builder_add_op(b, "d", 1, 0, 1, NULL, &err);
	sc_builder_add_edge(b, 0, 1, &err);
	sc_builder_add_edge(b, 1, 2, &err);
	sc_builder_add_edge(b, 2, 3, &err);
	sc_graph *g = sc_builder_finish(b, "t", NULL, &err);
	sc_builder_free(b);
	sc_units *u = sc_units_new(g, false, NULL, &err);
	cr_assert(u);
	cr_assert_eq(u->n, 2);
	cr_assert_eq(u->unit_of[0], u->unit_of[1]);
	cr_assert_eq(u->unit_of[1], u->unit_of[2]);
	cr_assert_neq(u->unit_of[2], u->unit_of[3]);
	cr_assert_lt(u->unit_of[0], u->unit_of[3], "units are numbered in pipeline order");
	cr_assert_eq(u->work[u->unit_of[0]], 3);
	sc_units_free(u);
	sc_graph_free(g);
}

Test(units, every_valid_partition_keeps_units_together)
{
	ts_rng r = {17};
	for (int t = 0; t < 150; t++) {
		ts_graph_spec spec;
		random_spec(&r, &spec, 7);
		sc_graph *g = ts_random_graph(&r, &spec);
		sc_units *u = sc_units_new(g, false, NULL, NULL);
		cr_assert(u);
		for (int a = 0; a < u->n; a++)
			for (int i = u->succ_off[a]; i < u->succ_off[a + 1]; i++)
				cr_assert_lt(a, u->succ[i]);
		/* enumerate all assignments into 3 stages */
		int *st = calloc((size_t)g->n, sizeof *st);
		for (;;) {
			if (sc_part_check(g, st, 3, NULL))
				for (int v = 0; v < g->n; v++)
					for (int w = 0; w < g->n; w++)
						if (u->unit_of[v] == u->unit_of[w])
							cr_assert_eq(st[v], st[w]);
			int i = 0;
			while (i < g->n && ++st[i] == 3)
				st[i++] = 0;
			if (i == g->n)
				break;
		}
		free(st);
		sc_units_free(u);
		sc_graph_free(g);
	}
}

Test(order, kahn_follows_priorities_and_edges)
{
	ts_rng r = {3};
	for (int t = 0; t < 100; t++) {
		ts_graph_spec spec;
		random_spec(&r, &spec, 30);
		sc_graph *g = ts_random_graph(&r, &spec);
		sc_units *u = sc_units_new(g, false, NULL, NULL);
		sc_orderer *o = sc_orderer_new(u, NULL);
		double *prio = malloc((size_t)u->n * sizeof *prio);
		int *order = malloc((size_t)u->n * sizeof *order),
		    *pos = malloc((size_t)u->n * sizeof *pos);
		for (int i = 0; i < u->n; i++)
			prio[i] = ts_uniform(&r);
		for (int pass = 0; pass < 2; pass++) {
			if (pass == 0)
				sc_order_kahn(o, prio, order);
			else
				sc_order_dfs(o, order);
			for (int i = 0; i < u->n; i++)
				pos[i] = -1;
			for (int i = 0; i < u->n; i++) {
				cr_assert_eq(pos[order[i]], -1);
				pos[order[i]] = i;
			}
			for (int a = 0; a < u->n; a++)
				for (int i = u->succ_off[a]; i < u->succ_off[a + 1]; i++)
					cr_assert_lt(pos[a], pos[u->succ[i]]);
		}
		/* Kahn: each unit is the highest-priority one ready at its turn */
		sc_order_kahn(o, prio, order);
		for (int i = 0; i < u->n; i++)
			pos[order[i]] = i;
		for (int i = 0; i < u->n; i++)
			for (int w = 0; w < u->n; w++) {
				if (pos[w] <= i)
					continue;
				bool ready = true;
				for (int j = u->pred_off[w]; j < u->pred_off[w + 1]; j++)
					ready &= pos[u->pred[j]] < i;
				if (ready)
					cr_assert_geq(prio[order[i]], prio[w]);
			}
		free(prio);
		free(order);
		free(pos);
		sc_orderer_free(o);
		sc_units_free(u);
		sc_graph_free(g);
	}
}

/* The best split of order by trying every non-decreasing stage sequence. */
static double brute_slice(const sc_graph *g, const sc_units *u, const int *order, int k)
{
	int n = u->n;
	int *seq = calloc((size_t)n, sizeof *seq), *us = malloc((size_t)n * sizeof *us);
	int *os = malloc((size_t)g->n * sizeof *os);
	sc_settings set = g->settings;
	set.k = k;
	sc_costs *c = sc_costs_new(g, &set, NULL);
	double best = INFINITY;
	for (;;) {
		bool mono = true;
		for (int p = 1; p < n; p++)
			mono &= seq[p] >= seq[p - 1];
		if (mono) {
			for (int p = 0; p < n; p++)
				us[order[p]] = seq[p];
			sc_units_expand(u, us, os);
			cr_assert(sc_part_check(g, os, k, NULL));
			sc_costs_eval(c, os);
			double v = sc_costs_objective(c);
			if (v < best)
				best = v;
		}
		int i = n - 1;
		while (i >= 0 && ++seq[i] == k)
			seq[i--] = 0;
		if (i < 0)
			break;
	}
	free(seq);
	free(us);
	free(os);
	sc_costs_free(c);
	return best;
}

static double eval_units(const sc_graph *g, const sc_units *u, const int *us, int k)
{
	int *os = malloc((size_t)g->n * sizeof *os);
	sc_units_expand(u, us, os);
	cr_assert(sc_part_check(g, os, k, NULL), "the split is a valid partition");
	sc_settings set = g->settings;
	set.k = k;
	sc_costs *c = sc_costs_new(g, &set, NULL);
	sc_costs_eval(c, os);
	double v = sc_costs_objective(c);
	sc_costs_free(c);
	free(os);
	return v;
}

/* Slices a random order of each of 400 random graphs (training graphs
 * when training) in every mode, with and without cutoffs, against every
 * segmentation of the order. */
static void every_segmentation(uint64_t seed, bool training)
{
	ts_rng r = {seed};
	int compared = 0;
	for (int t = 0; t < 400; t++) {
		ts_graph_spec spec;
		random_spec(&r, &spec, 9);
		sc_graph *g =
		        training ? ts_random_training_graph(&r, &spec) : ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 4);
		sc_units *u = sc_units_new(g, false, NULL, NULL);
		sc_settings set = g->settings;
		set.k = k;
		sc_slicer *s = sc_slicer_new(u, &set, NULL);
		sc_orderer *o = sc_orderer_new(u, NULL);
		double *prio = malloc((size_t)u->n * sizeof *prio);
		int *order = malloc((size_t)u->n * sizeof *order),
		    *us = malloc((size_t)u->n * sizeof *us);
		for (int i = 0; i < u->n; i++)
			prio[i] = ts_uniform(&r);
		sc_order_kahn(o, prio, order);
		double want = brute_slice(g, u, order, k);
		/* every way of filling the table: the choice, walking, rows */
		for (int mode = SC_SLICE_AUTO; mode <= SC_SLICE_ROWS; mode++) {
			sc_slicer_set_mode(s, mode);
			double got = sc_slice(s, order, INFINITY, us);
			if (isinf(want)) {
				cr_assert(isinf(got), "no feasible split, but slice says %g", got);
				continue;
			}
			cr_assert(fabs(got - want) <= 1e-9 * (1 + want),
			          "mode %d: slice %.17g, brute force %.17g", mode, got, want);
			cr_assert(fabs(eval_units(g, u, us, k) - got) <= 1e-9 * (1 + got),
			          "the returned split costs what slice says");
			compared += mode == SC_SLICE_AUTO;
			/* with a cutoff below the optimum: some split above the cutoff */
			double cut = want * 0.7;
			double v = sc_slice(s, order, cut, us);
			cr_assert_geq(v, cut * (1 - 1e-12));
			cr_assert_geq(v, want * (1 - 1e-12));
			if (isfinite(v))
				cr_assert(fabs(eval_units(g, u, us, k) - v) <= 1e-9 * (1 + v));
			/* with a cutoff above it (an incumbent it beats): exact,
			 * and a split that costs it */
			v = sc_slice(s, order, want * 1.5 + 1, us);
			cr_assert(fabs(v - want) <= 1e-9 * (1 + want));
			cr_assert(fabs(eval_units(g, u, us, k) - v) <= 1e-9 * (1 + v));
			/* an incumbent just above the optimum: the narrowest windows */
			v = sc_slice(s, order, want * (1 + 1e-9) + 1e-12, us);
			cr_assert(fabs(v - want) <= 1e-9 * (1 + want), "mode %d: %.17g, %.17g",
			          mode, v, want);
		}
		free(prio);
		free(order);
		free(us);
		sc_orderer_free(o);
		sc_slicer_free(s);
		sc_units_free(u);
		sc_graph_free(g);
	}
	cr_assert_gt(compared, 200);
}

Test(slice, equals_every_segmentation, .timeout = 240)
{
	every_segmentation(123, false);
}

/* Training graphs: tensors also flow against the order (into backward ops
 * placed earlier), which the segment costs must count. */
Test(slice, equals_every_segmentation_on_training_graphs, .timeout = 240)
{
	every_segmentation(124, true);
}

/* The equal-work split of an order says what its split costs, whatever
 * order the slicer sliced before (it once read the positions of the
 * last sliced order, or unset memory before the first slicing, so kahn's
 * value and split depended on what had run before). */
Test(slice, equal_work_costs_its_own_order)
{
	ts_rng r = {2727};
	int checked = 0;
	for (int t = 0; t < 300; t++) {
		ts_graph_spec spec;
		random_spec(&r, &spec, 9);
		sc_graph *g = t % 3 == 2 ? ts_random_training_graph(&r, &spec)
		                         : ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 4);
		sc_units *u = sc_units_new(g, false, NULL, NULL);
		sc_settings set = g->settings;
		set.k = k;
		sc_slicer *s = sc_slicer_new(u, &set, NULL);
		sc_orderer *o = sc_orderer_new(u, NULL);
		double *prio = malloc((size_t)u->n * sizeof *prio);
		int *order = malloc((size_t)u->n * sizeof *order),
		    *other = malloc((size_t)u->n * sizeof *other),
		    *us = malloc((size_t)u->n * sizeof *us);
		for (int i = 0; i < u->n; i++)
			prio[i] = ts_uniform(&r);
		sc_order_kahn(o, prio, other);
		for (int i = 0; i < u->n; i++)
			prio[i] = ts_uniform(&r);
		sc_order_kahn(o, prio, order);
		/* first (nothing sliced yet), then after slicing another order */
		for (int round = 0; round < 2; round++) {
			if (round == 1)
				sc_slice(s, other, INFINITY, us);
			double v = sc_slice_equal_work(s, order, us);
			for (int p = 1; p < u->n; p++)
				cr_assert_leq(us[order[p - 1]], us[order[p]],
				              "a split of the order");
			double cost = eval_units(g, u, us, k);
			if (isfinite(v) || isfinite(cost)) {
				cr_assert(fabs(cost - v) <= 1e-9 * (1 + v),
				          "graph %d, round %d: equal work says %.17g, its split "
				          "costs %.17g",
				          t, round, v, cost);
				checked++;
			}
		}
		free(prio);
		free(order);
		free(other);
		free(us);
		sc_orderer_free(o);
		sc_slicer_free(s);
		sc_units_free(u);
		sc_graph_free(g);
	}
	cr_assert_gt(checked, 300);
}

Test(slice, lemma_b2_bad_order_is_k_times_optimal)
{
	sc_graph *g = ts_load("samples/paper/lemma_b2.dot");
	sc_units *u = sc_units_new(g, false, NULL, NULL);
	sc_settings set = g->settings;
	sc_slicer *s = sc_slicer_new(u, &set, NULL);
	/* the order (h1, h2, h3, h4, l4, l3, l2, l1) of the lemma */
	const char *names[] = {"h1", "h2", "h3", "h4", "l4", "l3", "l2", "l1"};
	int order[8];
	for (int i = 0; i < 8; i++)
		order[i] = u->unit_of[sc_graph_find(g, names[i])];
	cr_assert_float_eq(sc_slice(s, order, INFINITY, NULL), 4, 1e-12);
	/* the order (h1, l1, h2, l2, ...) slices to the optimum 1 */
	const char *good[] = {"h1", "l1", "h2", "l2", "h3", "l3", "h4", "l4"};
	for (int i = 0; i < 8; i++)
		order[i] = u->unit_of[sc_graph_find(g, good[i])];
	cr_assert_float_eq(sc_slice(s, order, INFINITY, NULL), 1, 1e-12);
	sc_slicer_free(s);
	sc_units_free(u);
	sc_graph_free(g);
}

/* The cost of the segment [l, r] of order, by core's cost model: the units
 * before it in stage 0, it in stage 1, the rest in stage 2. */
static double segment_cost(const sc_units *u, sc_costs *c, const int *order, int l, int r, int *us,
                           int *os)
{
	for (int p = 0; p < u->n; p++)
		us[order[p]] = p < l ? 0 : p <= r ? 1 : 2;
	sc_units_expand(u, us, os);
	sc_costs_eval(c, os);
	bool hard = c->set.policy == SC_MEM_HARD;
	return hard && c->st[1].over_memory ? INFINITY : c->st[1].cost;
}

/* The textbook SliceGraph (000 Alg. 1): every segment's cost from scratch,
 * no bounds, no windows. */
static double reference_slice(const sc_graph *g, const sc_units *u, const int *order, int k)
{
	int n = u->n;
	sc_settings set = g->settings;
	set.k = 3;
	sc_costs *c = sc_costs_new(g, &set, NULL);
	int *us = malloc((size_t)n * sizeof *us), *os = malloc((size_t)g->n * sizeof *os);
	double *cost = malloc((size_t)n * (size_t)n * sizeof *cost);
	for (int l = 0; l < n; l++)
		for (int r = l; r < n; r++)
			cost[l * n + r] = segment_cost(u, c, order, l, r, us, os);
	double *P = malloc((size_t)(n + 1) * sizeof *P), *Q = malloc((size_t)(n + 1) * sizeof *Q);
	P[0] = 0;
	for (int t = 1; t <= n; t++)
		P[t] = INFINITY;
	for (int j = 1; j <= k; j++) {
		for (int t = 0; t <= n; t++) {
			Q[t] = P[t];
			for (int l = 0; l < t; l++) {
				double v = fmax(P[l], cost[l * n + t - 1]);
				if (v < Q[t])
					Q[t] = v;
			}
		}
		memcpy(P, Q, (size_t)(n + 1) * sizeof *P);
	}
	double best = P[n];
	free(P);
	free(Q);
	free(cost);
	free(us);
	free(os);
	sc_costs_free(c);
	return best;
}

/* On graphs too large to enumerate (REGAL-style and random, 20-90 ops, so
 * the windows are narrow against the order and the row method is chosen),
 * both ways of filling the table equal the textbook DP, with and without an
 * incumbent it beats; an incumbent it cannot beat gives a value at least the
 * incumbent.  Both memory policies, tight and loose limits. */
/* Checks every way of filling the table on a random order of g's units
 * (contracted when merge) against the textbook DP: with no incumbent, one
 * it beats and the tightest; one it cannot beat gives at least it.
 * Returns whether a split fits. */
static bool against_textbook(ts_rng *r, const sc_graph *g, int k, bool merge, int t)
{
	sc_units *u = sc_units_new(g, merge, &g->settings, NULL);
	sc_settings set = g->settings;
	set.k = k;
	sc_slicer *s = sc_slicer_new(u, &set, NULL);
	sc_orderer *o = sc_orderer_new(u, NULL);
	double *prio = malloc((size_t)u->n * sizeof *prio);
	int *order = malloc((size_t)u->n * sizeof *order), *us = malloc((size_t)u->n * sizeof *us);
	for (int i = 0; i < u->n; i++)
		prio[i] = ts_uniform(r);
	sc_order_kahn(o, prio, order);
	double want = reference_slice(g, u, order, k);
	double inc[] = {INFINITY, want * 1.01 + 1e-9, want * (1 + 1e-9) + 1e-12};
	for (int mode = SC_SLICE_AUTO; mode <= SC_SLICE_ROWS; mode++) {
		sc_slicer_set_mode(s, mode);
		for (int i = 0; i < 3; i++) {
			double v = sc_slice(s, order, inc[i], us);
			if (isinf(want)) {
				cr_assert(isinf(v), "graph %d: nothing fits, slice %g", t, v);
				continue;
			}
			cr_assert(fabs(v - want) <= 1e-9 * (1 + want),
			          "graph %d mode %d incumbent %g: %.17g, textbook %.17g", t, mode,
			          inc[i], v, want);
			cr_assert(fabs(eval_units(g, u, us, k) - v) <= 1e-9 * (1 + v));
		}
		if (isfinite(want) && want > 0) {
			double v = sc_slice(s, order, want * 0.99, us);
			cr_assert_geq(v, want * 0.99 * (1 - 1e-12));
		}
	}
	free(prio);
	free(order);
	free(us);
	sc_orderer_free(o);
	sc_slicer_free(s);
	sc_units_free(u);
	return isfinite(want);
}

/* Random training graphs of 20 to 80 ops, and the msr-fiddle training
 * graphs (their units are few enough for the textbook DP), under every
 * memory policy. */
Test(slice, pruned_equals_the_textbook_dp_on_training_graphs, .timeout = 240)
{
	ts_rng r = {2028};
	int compared = 0, trials = ts_trials(60);
	for (int t = 0; t < trials; t++) {
		ts_graph_spec spec;
		random_spec(&r, &spec, 60);
		spec.n += 20;
		sc_graph *g = ts_random_training_graph(&r, &spec);
		compared += against_textbook(&r, g, 2 + ts_below(&r, 7), false, t);
		sc_graph_free(g);
	}
	cr_assert_gt(compared, trials / 2);
	static const char *const files[] = {"operator/bert_l-3_training.json",
	                                    "operator/resnet50_training.json",
	                                    "layer/resnet50_training.json"};
	for (int f = 0; f < 3; f++) {
		char path[300];
		snprintf(path, sizeof path, "samples/msr-fiddle/%s", files[f]);
		sc_graph *g = ts_load(path);
		cr_assert(sc_graph_is_training(g));
		cr_assert(against_textbook(&r, g, 4 + 4 * f, true, 1000 + f), "%s", path);
		sc_graph_free(g);
	}
}

Test(slice, pruned_equals_the_textbook_dp_with_and_without_an_incumbent, .timeout = 240)
{
	ts_rng r = {2026};
	int compared = 0;
	for (int t = 0; t < ts_trials(120); t++) {
		sc_graph *g;
		if (t % 2 == 0) {
			g = sc_gen_regal(20 + ts_below(&r, 70), (uint64_t)t + 1, SC_GEN_ANY, 4,
			                 NULL);
			cr_assert(g);
			if (t % 4 == 0) {
				double tp = 0;
				for (int v = 0; v < g->n; v++) {
					g->param[v] = ts_uniform(&r) * 10;
					tp += g->param[v];
				}
				g->settings.memory = tp / (2 + ts_below(&r, 4));
				g->settings.policy = t % 8 == 0 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
			}
		} else {
			ts_graph_spec spec;
			random_spec(&r, &spec, 60);
			g = ts_random_graph(&r, &spec);
		}
		int k = 2 + ts_below(&r, 7);
		sc_units *u = sc_units_new(g, true, &g->settings, NULL);
		sc_settings set = g->settings;
		set.k = k;
		sc_slicer *s = sc_slicer_new(u, &set, NULL);
		sc_orderer *o = sc_orderer_new(u, NULL);
		double *prio = malloc((size_t)u->n * sizeof *prio);
		int *order = malloc((size_t)u->n * sizeof *order),
		    *us = malloc((size_t)u->n * sizeof *us);
		for (int i = 0; i < u->n; i++)
			prio[i] = ts_uniform(&r);
		sc_order_kahn(o, prio, order);
		double want = reference_slice(g, u, order, k);
		double inc[] = {INFINITY, want * 1.01 + 1e-9, want * (1 + 1e-9) + 1e-12};
		for (int mode = SC_SLICE_AUTO; mode <= SC_SLICE_ROWS; mode++) {
			sc_slicer_set_mode(s, mode);
			for (int i = 0; i < 3; i++) {
				double v = sc_slice(s, order, inc[i], us);
				if (isinf(want)) {
					cr_assert(isinf(v), "graph %d: nothing fits, slice %g", t,
					          v);
					continue;
				}
				cr_assert(fabs(v - want) <= 1e-9 * (1 + want),
				          "graph %d mode %d incumbent %g: %.17g, textbook %.17g", t,
				          mode, inc[i], v, want);
				cr_assert(fabs(eval_units(g, u, us, k) - v) <= 1e-9 * (1 + v));
			}
			if (isfinite(want) && want > 0) {
				double v = sc_slice(s, order, want * 0.99, us);
				cr_assert_geq(v, want * 0.99 * (1 - 1e-12));
			}
		}
		compared += isfinite(want);
		free(prio);
		free(order);
		free(us);
		sc_orderer_free(o);
		sc_slicer_free(s);
		sc_units_free(u);
		sc_graph_free(g);
	}
	cr_assert_gt(compared, ts_trials(120) / 2);
}

/* On generated graphs large enough for the automatic choice to take rows
 * (5 000 ops, k 4 and 8, with hard and overflow memory limits, which also
 * end rows early): walking, rows and the choice give the same optimum and
 * splits that cost it, with no incumbent, an incumbent it beats, and the
 * tightest incumbent. */
Test(slice, rows_equal_the_walk_on_large_graphs, .timeout = 120)
{
	int rows_chosen = 0;
	for (int t = 0; t < 6; t++) {
		sc_graph *g = sc_gen_regal(5000, (uint64_t)t + 1, SC_GEN_ANY, 8, NULL);
		cr_assert(g);
		int k = t % 2 ? 8 : 4;
		if (t >= 2) {
			double tp = 0;
			for (int v = 0; v < g->n; v++) {
				g->param[v] = (double)(v % 7);
				tp += g->param[v];
			}
			g->settings.memory = tp / k * 1.02;
			g->settings.policy = t >= 4 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		sc_units *u = sc_units_new(g, true, &g->settings, NULL);
		sc_settings set = g->settings;
		set.k = k;
		sc_slicer *s = sc_slicer_new(u, &set, NULL);
		sc_orderer *o = sc_orderer_new(u, NULL);
		double *prio = malloc((size_t)u->n * sizeof *prio);
		int *order = malloc((size_t)u->n * sizeof *order),
		    *us = malloc((size_t)u->n * sizeof *us);
		ts_rng r = {(uint64_t)t + 99};
		for (int i = 0; i < u->n; i++)
			prio[i] = ts_uniform(&r);
		sc_order_kahn(o, prio, order);
		sc_slicer_set_mode(s, SC_SLICE_WALK);
		double want = sc_slice(s, order, INFINITY, NULL);
		cr_assert(isfinite(want), "graph %d", t);
		double inc[] = {INFINITY, want * 1.001, want * (1 + 1e-12)};
		for (int mode = SC_SLICE_AUTO; mode <= SC_SLICE_ROWS; mode++) {
			sc_slicer_set_mode(s, mode);
			for (int i = 0; i < 3; i++) {
				double v = sc_slice(s, order, inc[i], us);
				if (mode == SC_SLICE_AUTO && i == 2)
					rows_chosen += sc_slicer_last_mode(s) == SC_SLICE_ROWS;
				cr_assert(fabs(v - want) <= 1e-9 * want,
				          "graph %d mode %d: %.17g, %.17g", t, mode, v, want);
				cr_assert(fabs(eval_units(g, u, us, k) - v) <= 1e-9 * v);
			}
		}
		free(prio);
		free(order);
		free(us);
		sc_orderer_free(o);
		sc_slicer_free(s);
		sc_units_free(u);
		sc_graph_free(g);
	}
	cr_assert_gt(rows_chosen, 0, "the automatic choice never took the row method");
}

/* A random training graph of 9 000 ops (over 4 096 units, so the
 * automatic choice may take rows), k 4 and 8: walking, rows and the choice
 * give the same optimum and splits that cost it. */
Test(slice, rows_equal_the_walk_on_a_large_training_graph, .timeout = 120)
{
	ts_rng r = {4242};
	ts_graph_spec spec = {.n = 9000, .edge_p = 3.0 / 9000, .group_p = 0.1, .ngroups = 50};
	sc_settings_init(&spec.settings);
	sc_graph *g = ts_random_training_graph(&r, &spec);
	sc_units *u = sc_units_new(g, true, &g->settings, NULL);
	cr_assert_gt(u->n, 4096);
	int rows_chosen = 0;
	/* under the sanitizers (short), k = 4 only */
	for (int t = 0; t < (ts_short() ? 1 : 2); t++) {
		int k = t ? 8 : 4;
		sc_settings set = g->settings;
		set.k = k;
		sc_slicer *s = sc_slicer_new(u, &set, NULL);
		sc_orderer *o = sc_orderer_new(u, NULL);
		double *prio = malloc((size_t)u->n * sizeof *prio);
		int *order = malloc((size_t)u->n * sizeof *order),
		    *us = malloc((size_t)u->n * sizeof *us);
		for (int i = 0; i < u->n; i++)
			prio[i] = ts_uniform(&r);
		sc_order_kahn(o, prio, order);
		sc_slicer_set_mode(s, SC_SLICE_WALK);
		double want = sc_slice(s, order, INFINITY, us);
		cr_assert(fabs(eval_units(g, u, us, k) - want) <= 1e-9 * want);
		double inc[] = {INFINITY, want * 1.001, want * (1 + 1e-12)};
		for (int mode = SC_SLICE_AUTO; mode <= SC_SLICE_ROWS; mode++) {
			sc_slicer_set_mode(s, mode);
			for (int i = 0; i < 3; i++) {
				double v = sc_slice(s, order, inc[i], us);
				if (mode == SC_SLICE_AUTO && i == 2)
					rows_chosen += sc_slicer_last_mode(s) == SC_SLICE_ROWS;
				cr_assert(fabs(v - want) <= 1e-9 * want,
				          "k %d mode %d: %.17g, %.17g", k, mode, v, want);
				cr_assert(fabs(eval_units(g, u, us, k) - v) <= 1e-9 * v);
			}
		}
		free(prio);
		free(order);
		free(us);
		sc_orderer_free(o);
		sc_slicer_free(s);
	}
	cr_assert_gt(rows_chosen, 0, "the automatic choice never took the row method");
	sc_units_free(u);
	sc_graph_free(g);
}
