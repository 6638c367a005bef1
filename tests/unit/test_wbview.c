/*
 * test_wbview.c - the workbench's view logic that needs no terminal: the
 * node browser's filter (any case), stage limit, limit to a set of ops (a
 * module's) and orders, checked against
 * a plain sort on random graphs and partitions; the detail pane's legal
 * range and the edges pinning its ends, against core's range and the rules
 * written here apart, on random inference and training graphs and on two
 * hand-derived cases.
 */
#include <criterion/criterion.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/names.h"
#include "core/partition.h"
#include "solvers/simple.h"
#include "tests/support.h"
#include "tui/wb/wb_detail.h"
#include "tui/wb/wb_nodes.h"

/* name contains filter, ASCII letters in any case: by lowering both. */
static bool contains_any_case(const char *name, const char *filter)
{
	if (!filter || !*filter)
		return true;
	char a[256], b[256];
	snprintf(a, sizeof a, "%s", name);
	snprintf(b, sizeof b, "%s", filter);
	for (char *p = a; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	for (char *p = b; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return strstr(a, b) != NULL;
}

Test(wbview, the_filter_matches_in_any_case)
{
	cr_assert(wb_name_matches("Conv1_Grad", "conv1"));
	cr_assert(wb_name_matches("conv1_grad", "GRAD"));
	cr_assert(wb_name_matches("conv1_grad", "v1_g"));
	cr_assert(wb_name_matches("x", ""));
	cr_assert(wb_name_matches("x", NULL));
	cr_assert(!wb_name_matches("conv1", "conv2"));
	cr_assert(!wb_name_matches("co", "conv"));
	cr_assert(!wb_name_matches("", "a"));
}

Test(wbview, node_orders_and_filter_match_a_plain_sort)
{
	ts_rng r = {31};
	static const char *const filters[] = {"1", "", NULL, "P1", "OP"};
	for (int t = 0; t < 100; t++) {
		ts_graph_spec spec = {
		        .n = 1 + ts_below(&r, 40), .edge_p = 0.1, .integer_weights = true};
		sc_settings_init(&spec.settings);
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 1 + ts_below(&r, 6);
		int *stage = malloc((size_t)g->n * sizeof *stage),
		    *out = malloc((size_t)g->n * sizeof *out);
		sc_greedy_split(g, k, stage, NULL);
		int *by_name = sc_names_order(g->op_name, g->n);
		int *by_work = wb_ops_by(g, by_name, g->work),
		    *by_param = wb_ops_by(g, by_name, g->param);
		const char *filter = filters[t % 5];
		int only = t % 4 == 3 ? ts_below(&r, k) : -1;
		/* every third graph: a random set of ops alone (a module's) */
		bool *among = NULL;
		if (t % 3 == 1) {
			among = malloc((size_t)g->n * sizeof *among);
			for (int v = 0; v < g->n; v++)
				among[v] = ts_below(&r, 2);
		}
		for (int sort = 0; sort < WB_NSORTS; sort++) {
			const int *by = sort == WB_SORT_PARAM ? by_param : by_work;
			int m = wb_order_ops(g, stage, k, filter, only, among, sort, by_name, by,
			                     out);
			int want = 0;
			for (int v = 0; v < g->n; v++)
				want += contains_any_case(g->op_name[v], filter) &&
				        (only < 0 || stage[v] == only) && (!among || among[v]);
			cr_assert_eq(m, want, "every matching op once");
			for (int i = 0; i < m; i++) {
				cr_assert(contains_any_case(g->op_name[out[i]], filter));
				cr_assert(only < 0 || stage[out[i]] == only);
				cr_assert(!among || among[out[i]]);
			}
			for (int i = 0; i + 1 < m; i++) {
				int a = out[i], b = out[i + 1];
				int byname = sc_names_cmp(g->op_name[a], g->op_name[b]);
				cr_assert_neq(a, b);
				if (sort == WB_SORT_STAGE)
					cr_assert(stage[a] < stage[b] ||
					                  (stage[a] == stage[b] && byname < 0),
					          "by stage, then name");
				else if (sort == WB_SORT_WORK)
					cr_assert(g->work[a] > g->work[b] ||
					                  (g->work[a] == g->work[b] && byname < 0),
					          "by decreasing work, then name");
				else if (sort == WB_SORT_PARAM)
					cr_assert(
					        g->param[a] > g->param[b] ||
					                (g->param[a] == g->param[b] && byname < 0),
					        "by decreasing param, then name");
				else
					cr_assert_lt(byname, 0, "by name");
			}
		}
		free(among);
		free(by_name);
		free(by_work);
		free(by_param);
		free(stage);
		free(out);
		sc_graph_free(g);
	}
}

/* ---- the detail pane's range and pins ----------------------------------- */

static bool is_edge(const sc_graph *g, int a, int b)
{
	for (int i = g->succ_off[a]; i < g->succ_off[a + 1]; i++)
		if (g->succ[i] == b)
			return true;
	return false;
}

static bool same_group(const sc_graph *g, int a, int b)
{
	return a == b || (g->group[a] >= 0 && g->group[a] == g->group[b]);
}

/* Whether moving v's group to stage t keeps stage valid (ts_valid). */
static bool group_may_go(const sc_graph *g, int *stage, int k, int v, int t)
{
	int *st = malloc((size_t)g->n * sizeof *st);
	memcpy(st, stage, (size_t)g->n * sizeof *st);
	for (int u = 0; u < g->n; u++)
		if (same_group(g, u, v))
			st[u] = t;
	bool ok = ts_valid(g, st, k);
	free(st);
	return ok;
}

/* Checks an end's pin: nothing pins the first or last stage; else by sits
 * in that stage outside v's group, the edge is one of the graph's between
 * by and v's group, it obeys a rule of the order, and by is its tail under
 * the forward rule at lo (a predecessor), its head under the mirror rule,
 * and the other way round at hi. */
static void check_pin(const sc_graph *g, const int *stage, int k, int v, int end, bool lo,
                      const wb_pin *p)
{
	if (lo ? end == 0 : end == k - 1) {
		cr_assert_eq(p->by, -1, "the %s stage needs no pin", lo ? "first" : "last");
		return;
	}
	cr_assert_geq(p->by, 0, "op %s: its %s end %d has no pin", g->op_name[v],
	              lo ? "lower" : "upper", end);
	cr_assert_eq(stage[p->by], end);
	cr_assert(!same_group(g, p->by, v));
	cr_assert(is_edge(g, p->from, p->to), "the pin is an edge of the graph");
	cr_assert_eq(p->rule, sc_graph_edge_rule(g, p->from, p->to));
	cr_assert_neq(p->rule, SC_RULE_FREE, "a free edge pins nothing");
	bool by_tail = p->from == p->by;
	int other = by_tail ? p->to : p->from;
	cr_assert(same_group(g, other, v), "the edge's other end is in v's group");
	bool want_tail = (p->rule == SC_RULE_FORWARD) == lo;
	cr_assert_eq(by_tail, want_tail, "the pin's direction fits its rule");
	cr_assert_geq(p->more, 0);
}

/* What the random trials covered: ends held by an edge, by a mirrored one. */
static int seen_pinned, seen_mirror;

static void check_all_pins(const sc_graph *g, int *stage, int k)
{
	for (int v = 0; v < g->n; v++) {
		int lo, hi, clo, chi;
		wb_pin plo, phi;
		wb_range_pins(g, stage, k, v, &lo, &hi, &plo, &phi);
		sc_part_legal_range(g, stage, k, v, &clo, &chi);
		cr_assert_eq(lo, clo);
		cr_assert_eq(hi, chi);
		cr_assert(lo <= stage[v] && stage[v] <= hi);
		check_pin(g, stage, k, v, lo, true, &plo);
		check_pin(g, stage, k, v, hi, false, &phi);
		seen_pinned += (plo.by >= 0) + (phi.by >= 0);
		seen_mirror += (plo.by >= 0 && plo.rule == SC_RULE_MIRROR) +
		               (phi.by >= 0 && phi.rule == SC_RULE_MIRROR);
		/* the range itself, by the rules written apart */
		for (int t = lo; t <= hi; t++)
			cr_assert(group_may_go(g, stage, k, v, t), "%s may go to %d", g->op_name[v],
			          t + 1);
		if (lo > 0)
			cr_assert(!group_may_go(g, stage, k, v, lo - 1));
		if (hi < k - 1)
			cr_assert(!group_may_go(g, stage, k, v, hi + 1));
	}
}

Test(wbview, range_pins_on_random_graphs)
{
	ts_rng r = {57};
	int checked = 0;
	for (int t = 0; t < ts_trials(60); t++) {
		ts_graph_spec spec = {.n = 2 + ts_below(&r, 7),
		                      .edge_p = 0.35,
		                      .group_p = t % 2 ? 0.3 : 0,
		                      .ngroups = 2,
		                      .integer_weights = true};
		sc_settings_init(&spec.settings);
		bool training = t % 3 == 2;
		sc_graph *g =
		        training ? ts_random_training_graph(&r, &spec) : ts_random_graph(&r, &spec);
		int k = 2 + ts_below(&r, 2);
		int *stage = malloc((size_t)g->n * sizeof *stage);
		/* a valid partition with ops in several stages: an optimum */
		if (isfinite(ts_brute_optimum(g, k, stage))) {
			check_all_pins(g, stage, k);
			checked++;
		}
		free(stage);
		sc_graph_free(g);
	}
	cr_assert_geq(checked, ts_trials(60) / 2, "most trials have a valid partition");
	cr_assert_gt(seen_pinned, 0, "some end is held by an edge");
	cr_assert_gt(seen_mirror, 0, "some end is held by a mirrored edge");
}

/* figure2 under its own partition ({a, u} {v, w} {x, y}): u may go to
 * stages 1-2, stage 1 being the first and stage 2 pinned by u -> v (v in
 * stage 2) and one more (w); x to 2-3, pinned below by v -> x and w -> x. */
Test(wbview, range_pins_on_figure2_by_hand)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	int *stage = malloc((size_t)g->n * sizeof *stage);
	memcpy(stage, g->init_stage, (size_t)g->n * sizeof *stage);
	int lo, hi, u = sc_graph_find(g, "u"), x = sc_graph_find(g, "x");
	wb_pin plo, phi;
	wb_range_pins(g, stage, 3, u, &lo, &hi, &plo, &phi);
	cr_assert_eq(lo, 0);
	cr_assert_eq(hi, 1);
	cr_assert_eq(plo.by, -1);
	cr_assert_str_eq(g->op_name[phi.by], "v");
	cr_assert_str_eq(g->op_name[phi.from], "u");
	cr_assert_str_eq(g->op_name[phi.to], "v");
	cr_assert_eq(phi.rule, SC_RULE_FORWARD);
	cr_assert_eq(phi.more, 1);
	wb_range_pins(g, stage, 3, x, &lo, &hi, &plo, &phi);
	cr_assert_eq(lo, 1);
	cr_assert_eq(hi, 2);
	cr_assert_str_eq(g->op_name[plo.by], "v");
	cr_assert_str_eq(g->op_name[plo.to], "x");
	cr_assert_eq(plo.more, 1);
	cr_assert_eq(phi.by, -1);
	free(stage);
	sc_graph_free(g);
}

/* residual in {input, conv1} {conv2, add} {mm_a, mm_b, concat, output}: the
 * group matmul may go to stages 2-3, pinned below by add (add -> mm_a and
 * add -> mm_b, one of them named, the other counted); conv2 to 1-2, pinned
 * above by conv2 -> add. */
Test(wbview, range_pins_on_residual_by_hand)
{
	sc_graph *g = ts_load("samples/small/residual.dot");
	static const char *const names[] = {"input", "conv1", "conv2",  "add",
	                                    "mm_a",  "mm_b",  "concat", "output"};
	static const int in[] = {0, 0, 1, 1, 2, 2, 2, 2};
	int *stage = malloc((size_t)g->n * sizeof *stage);
	for (int i = 0; i < 8; i++)
		stage[sc_graph_find(g, names[i])] = in[i];
	int lo, hi;
	wb_pin plo, phi;
	wb_range_pins(g, stage, 3, sc_graph_find(g, "mm_b"), &lo, &hi, &plo, &phi);
	cr_assert_eq(lo, 1);
	cr_assert_eq(hi, 2);
	cr_assert_str_eq(g->op_name[plo.by], "add");
	cr_assert_str_eq(g->op_name[plo.from], "add");
	cr_assert(strncmp(g->op_name[plo.to], "mm_", 3) == 0);
	cr_assert_eq(plo.more, 1);
	cr_assert_eq(phi.by, -1);
	wb_range_pins(g, stage, 3, sc_graph_find(g, "conv2"), &lo, &hi, &plo, &phi);
	cr_assert_eq(lo, 0);
	cr_assert_eq(hi, 1);
	cr_assert_eq(plo.by, -1);
	cr_assert_str_eq(g->op_name[phi.by], "add");
	cr_assert_str_eq(g->op_name[phi.from], "conv2");
	cr_assert_eq(phi.more, 0);
	free(stage);
	sc_graph_free(g);
}
