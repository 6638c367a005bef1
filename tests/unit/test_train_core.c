/*
 * test_train_core.c - the training-graph model in core/: the order arcs,
 * sc_part_check and the editor against the rules written apart in the test
 * (ts_valid), the costs by pass against the independent model (ts_costs),
 * whole and after moves.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "core/edit.h"
#include "core/graph.h"
#include "core/partition.h"
#include "tests/support.h"

static sc_graph *random_training(ts_rng *r, int n)
{
	ts_graph_spec spec = {.n = n, .edge_p = 0.35, .group_p = 0.3, .ngroups = 3};
	sc_settings_init(&spec.settings);
	return ts_random_training_graph(r, &spec);
}

/* ord_topo is a permutation in which every order arc goes forward, and the
 * arcs are exactly the edges the rules order (forward edges as they are,
 * orphan edges reversed). */
Test(train_core, order_arcs_are_the_rules)
{
	ts_rng r = {11};
	for (int t = 0; t < ts_trials(200); t++) {
		sc_graph *g = random_training(&r, 2 + t % 14);
		int *pos = malloc((size_t)g->n * sizeof *pos);
		for (int v = 0; v < g->n; v++)
			pos[v] = -1;
		for (int i = 0; i < g->n; i++) {
			cr_assert_eq(pos[g->ord_topo[i]], -1);
			pos[g->ord_topo[i]] = i;
		}
		int want = 0;
		for (int u = 0; u < g->n; u++)
			for (int i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
				int v = g->succ[i];
				bool bu = g->backward[u], bv = g->backward[v];
				cr_assert(!(bu && !bv),
				          "an edge from the backward pass into the forward");
				want += (!bu && !bv) ||
				        (bu && bv && (g->orphan[u] || g->orphan[v]));
			}
		cr_assert_eq(g->m_order, want);
		for (int a = 0; a < g->n; a++)
			for (int i = g->ord_succ_off[a]; i < g->ord_succ_off[a + 1]; i++) {
				int b = g->ord_succ[i];
				cr_assert(pos[a] < pos[b], "arc against ord_topo");
				/* forward a -> b is an edge; backward, b -> a is */
				int from = g->backward[a] ? b : a, to = g->backward[a] ? a : b;
				bool edge = false;
				for (int j = g->succ_off[from]; j < g->succ_off[from + 1]; j++)
					edge |= g->succ[j] == to;
				cr_assert(edge);
			}
		free(pos);
		sc_graph_free(g);
	}
}

/* sc_part_check agrees with ts_valid on random stage assignments; the costs
 * of sc_costs_eval, and after every sc_costs_move, equal ts_costs by pass;
 * the GPipe objective equals max fw + max bw. */
Test(train_core, check_and_costs_agree_with_the_model_written_apart)
{
	ts_rng r = {12};
	int agree_valid = 0;
	for (int t = 0; t < ts_trials(300); t++) {
		sc_graph *g = random_training(&r, 2 + t % 12);
		int k = 1 + t % 4;
		sc_settings set = g->settings;
		set.k = k;
		set.schedule = t % 2 ? SC_SCHEDULE_GPIPE : SC_SCHEDULE_1F1B;
		sc_error err;
		sc_costs *c = sc_costs_new(g, &set, &err);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		ts_cost *tc = calloc((size_t)k, sizeof *tc);
		for (int v = 0; v < g->n; v++)
			stage[v] = ts_below(&r, k);
		bool valid = ts_valid(g, stage, k);
		cr_assert_eq(sc_part_check(g, stage, k, NULL), valid);
		agree_valid += valid;
		sc_costs_eval(c, stage);
		for (int step = 0; step < 6; step++) {
			ts_costs(g, stage, &set, k, tc);
			for (int s = 0; s < k; s++) {
				cr_assert(ts_close_rel(c->st[s].cost, tc[s].cost, 1e-9));
				cr_assert(ts_close_rel(c->st[s].cost_fw, tc[s].cost_fw, 1e-9));
				cr_assert(ts_close_rel(c->st[s].cost_bw, tc[s].cost_bw, 1e-9));
				cr_assert(ts_close_rel(c->st[s].work_bw, tc[s].work_bw, 1e-9));
			}
			int at;
			double want = set.schedule == SC_SCHEDULE_GPIPE ? ts_gpipe(tc, k)
			                                                : ts_bottleneck(tc, k, &at);
			cr_assert(ts_close_rel(sc_costs_objective(c), want, 1e-9));
			cr_assert(sc_costs_gpipe(c, NULL, NULL) >=
			          sc_costs_bottleneck(c, NULL) - 1e-9);
			sc_costs_move(c, stage, ts_below(&r, g->n), ts_below(&r, k));
		}
		free(tc);
		free(stage);
		sc_costs_free(c);
		sc_graph_free(g);
	}
	/* about a third of the draws are valid (103 of 300 with this seed) */
	cr_log_info("valid %d", agree_valid);
	cr_assert(agree_valid >= ts_trials(300) / 10, "too few valid assignments drawn (%d)",
	          agree_valid);
}

/* Legal ranges (order arcs and groups) contain exactly the stages a move of
 * the op's group to which keeps ts_valid; the editor refuses the others. */
Test(train_core, legal_range_and_editor_follow_the_rules)
{
	ts_rng r = {13};
	int refused = 0;
	for (int t = 0; t < ts_trials(150); t++) {
		sc_graph *g = random_training(&r, 3 + t % 10);
		int k = 2 + t % 3;
		/* a valid start: every op in stage 1 */
		int *stage = calloc((size_t)g->n, sizeof *stage);
		int *trial = malloc((size_t)g->n * sizeof *trial);
		sc_error err;
		sc_settings set = g->settings;
		set.k = k;
		sc_editor *ed = sc_editor_new(g, &set, stage, &err);
		cr_assert(ed, "%s", err.msg);
		for (int step = 0; step < 20; step++) {
			int v = ts_below(&r, g->n), to = ts_below(&r, k);
			const int *cur = sc_editor_stages(ed);
			int lo, hi;
			sc_part_legal_range(g, cur, k, v, &lo, &hi);
			memcpy(trial, cur, (size_t)g->n * sizeof *trial);
			for (int u = 0; u < g->n; u++)
				if (u == v || (g->group[v] >= 0 && g->group[u] == g->group[v]))
					trial[u] = to;
			bool ok = ts_valid(g, trial, k);
			cr_assert_eq(ok, lo <= to && to <= hi, "range [%d, %d], to %d", lo, to, hi);
			char why[256];
			cr_assert_eq(sc_editor_move(ed, v, to, why, sizeof why), ok, "%s", why);
			refused += !ok;
			cr_assert(ts_valid(g, sc_editor_stages(ed), k));
			/* with its dependents it always moves, and stays valid */
			if (!ok) {
				cr_assert(sc_editor_move_with_dependents(ed, v, to, why,
				                                         sizeof why) > 0,
				          "%s", why);
				cr_assert_eq(sc_editor_stages(ed)[v], to);
				cr_assert(ts_valid(g, sc_editor_stages(ed), k));
			}
		}
		sc_editor_free(ed);
		free(trial);
		free(stage);
		sc_graph_free(g);
	}
	cr_log_info("refused %d", refused);
	cr_assert(refused >= ts_trials(150) / 5, "too few refused moves (%d)", refused);
}

/* The builder refuses an edge from a backward op to a forward op. */
Test(train_core, backward_into_forward_is_refused)
{
	sc_builder *b = sc_builder_new();
	sc_error err;
	int f = sc_builder_add_op(b, "f", 1, 0, 1, NULL, &err);
	int w = sc_builder_add_op(b, "w", 1, 0, 1, NULL, &err);
	cr_assert(sc_builder_set_backward(b, w, &err) == SC_OK);
	cr_assert(sc_builder_add_edge(b, w, f, &err) == SC_OK);
	sc_graph *g = sc_builder_finish(b, "x.dot", "x", &err);
	cr_assert_null(g);
	cr_assert(strstr(err.msg, "x.dot: edge 'w' -> 'f' goes from a backward op to a forward op"),
	          "%s", err.msg);
	sc_builder_free(b);
}
