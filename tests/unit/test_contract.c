/*
 * test_contract.c - the safe contractions (solvers/contract.c): on random
 * graphs built to trigger every rule (zero-work sources and sinks with and
 * without parameters, zero-work chain links, isolated ops, beside a random
 * core), the best partition that keeps every unit whole equals the brute
 * force optimum over all partitions, under unlimited memory, a limit that
 * cannot bind, a binding hard limit and a binding overflow limit; and the
 * exact DP on the contracted units agrees.  A GNMT-like graph (weights as
 * zero-work sources and zero-work sinks hanging off single ops of a few
 * wide layers) contracts to its core.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/cost.h"
#include "core/partition.h"
#include "solvers/contract_report.h"
#include "solvers/mip.h"
#include "solvers/search.h"
#include "solvers/units.h"
#include "tests/support.h"

enum { MEM_INF, MEM_LOOSE_HARD, MEM_LOOSE_OVERFLOW, MEM_TIGHT_HARD, MEM_TIGHT_OVERFLOW, MEM_CASES };

static int add(sc_builder *b, int *count, double w, double p, double o)
{
	char name[32];
	sc_error err;
	snprintf(name, sizeof name, "op%d", *count);
	int v = sc_builder_add_op(b, name, w, p, o, NULL, &err);
	cr_assert(v >= 0, "%s", err.msg);
	(*count)++;
	return v;
}

static void edge(sc_builder *b, int from, int to)
{
	sc_error err;
	cr_assert(sc_builder_add_edge(b, from, to, &err) == SC_OK, "%s", err.msg);
}

/* The graph built in b, under the memory case mem_case for its
 * total_param parameter bytes: unlimited, a limit all of them fit (hard or
 * overflow), or half of them (binding). */
static sc_graph *finish(sc_builder *b, double total_param, int mem_case, const char *name)
{
	sc_settings set;
	sc_settings_init(&set);
	switch (mem_case) {
	case MEM_LOOSE_HARD:
	case MEM_LOOSE_OVERFLOW:
		set.memory = total_param;
		set.policy = mem_case == MEM_LOOSE_HARD ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		break;
	case MEM_TIGHT_HARD:
	case MEM_TIGHT_OVERFLOW:
		set.memory = floor(total_param / 2);
		set.policy = mem_case == MEM_TIGHT_HARD ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		break;
	default: break;
	}
	sc_builder_set_settings(b, &set);
	sc_error err;
	sc_graph *g = sc_builder_finish(b, name, name, &err);
	cr_assert(g, "%s", err.msg);
	sc_builder_free(b);
	return g;
}

/* A random core of `core` ops with zero-work leaves, chain links and
 * isolated ops around it, total ops at most max_ops. */
static sc_graph *leafy_graph(ts_rng *r, int core, int max_ops, int mem_case)
{
	sc_builder *b = sc_builder_new();
	cr_assert(b);
	int n = 0;
	int base[16];
	double total_param = 0;
	for (int i = 0; i < core; i++) {
		double p = ts_below(r, 10);
		base[i] = add(b, &n, 1 + ts_below(r, 9), p, ts_below(r, 6));
		total_param += p;
		for (int j = 0; j < i; j++)
			if (ts_uniform(r) < 0.4)
				edge(b, base[j], base[i]);
	}
	while (n < max_ops) {
		/* zero-work ops hold parameters half of the time */
		double p = ts_below(r, 2) ? 0 : 1 + ts_below(r, 9);
		double o = ts_below(r, 6);
		int a = base[ts_below(r, core)];
		switch (ts_below(r, 5)) {
		case 0: /* a sink off one op */ edge(b, a, add(b, &n, 0, p, o)); break;
		case 1: /* a source into one op */ edge(b, add(b, &n, 0, p, o), a); break;
		case 2: /* a source into two ops: into-successor must not fire */
			if (core > 1) {
				int z = add(b, &n, 0, p, o);
				edge(b, z, base[0]);
				edge(b, z, base[core - 1]);
			}
			break;
		case 3: /* a chain a -> c -> z (-> a later op, or a sink) */
			if (n + 2 <= max_ops) {
				int c = add(b, &n, 1 + ts_below(r, 5), 0, ts_below(r, 6));
				int z = add(b, &n, 0, p, o);
				edge(b, a, c);
				edge(b, c, z);
				int at = 0;
				while (at < core && base[at] != a)
					at++;
				if (at + 1 < core && ts_below(r, 3))
					edge(b, z, base[at + 1 + ts_below(r, core - at - 1)]);
			} else {
				edge(b, a, add(b, &n, 0, p, o));
			}
			break;
		default: /* isolated */ add(b, &n, 0, p, o); break;
		}
		total_param += p;
	}
	return finish(b, total_param, mem_case, "leafy");
}

/* The best objective over the valid partitions that keep every unit of u
 * whole, by enumerating the k^units assignments of units. */
static double brute_on_units(const sc_graph *g, const sc_units *u, int k)
{
	sc_settings set = g->settings;
	set.k = k;
	int *us = calloc((size_t)u->n + 1, sizeof *us), *st = calloc((size_t)g->n + 1, sizeof *st);
	sc_costs *c = sc_costs_new(g, &set, NULL);
	cr_assert(us && st && c);
	double opt = INFINITY;
	for (;;) {
		sc_units_expand(u, us, st);
		if (sc_part_check(g, st, k, NULL)) {
			sc_costs_eval(c, st);
			double v = sc_costs_objective(c);
			if (v < opt)
				opt = v;
		}
		int i = 0;
		while (i < u->n && ++us[i] == k)
			us[i++] = 0;
		if (i == u->n)
			break;
	}
	sc_costs_free(c);
	free(us);
	free(st);
	return opt;
}

static bool same(double a, double b)
{
	return (isinf(a) && isinf(b)) || fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

static bool all_fired(const int *fired)
{
	for (int i = 0; i < SC_CONTRACT_NRULES; i++)
		if (fired[i] == 0)
			return false;
	return true;
}

/* The best partition keeping every unit of u whole is the brute-force
 * optimum, and the exact DP (which contracts g itself) reaches it too. */
static void keeps_the_optimum(const sc_graph *g, const sc_units *u, int k, int t, int mc)
{
	double brute = ts_brute_optimum(g, k, NULL);
	double kept = brute_on_units(g, u, k);
	cr_assert(same(kept, brute),
	          "trial %d, memory case %d, k=%d: contracted optimum %.17g, brute force %.17g", t,
	          mc, k, kept, brute);
	bool optimal = false;
	double dp = ts_search(g, k, "exact", 1, 0, NULL, &optimal);
	cr_assert(optimal);
	cr_assert(same(dp, brute), "trial %d, memory case %d, k=%d: exact %.17g, brute %.17g", t,
	          mc, k, dp, brute);
}

Test(contract, every_rule_keeps_the_optimum, .timeout = 300)
{
	ts_rng r = {13};
	int fired[SC_CONTRACT_NRULES] = {0}, merged_param_ops = 0;
	/* a short run (STAGECUT_TEST_SHORT) goes on past its share of trials
	 * until every rule has fired, so each is still checked */
	int trials = ts_trials(60);
	for (int t = 0; t < 60 && (t < trials || !all_fired(fired)); t++)
		for (int mc = 0; mc < MEM_CASES; mc++) {
			int k = 2 + t % 2;
			int max_ops = k == 2 ? 12 : 10;
			sc_graph *g = leafy_graph(&r, 3 + ts_below(&r, 3), max_ops, mc);
			sc_units *u = sc_units_new(g, true, &g->settings, NULL);
			cr_assert(u);
			for (int i = 0; i < SC_CONTRACT_NRULES; i++)
				fired[i] += u->contraction.by_rule[i];
			/* under a binding limit only units without parameters move, so
			 * (no groups here) a unit holds at most one op with parameters;
			 * under a loose one they move too */
			for (int x = 0; x < u->n; x++) {
				int holding = 0;
				for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++)
					holding += g->param[u->ops[i]] > 0;
				if (mc == MEM_TIGHT_HARD || mc == MEM_TIGHT_OVERFLOW)
					cr_assert_leq(holding, 1,
					              "trial %d: unit %d holds %d ops with "
					              "parameters under a binding limit",
					              t, x, holding);
				else if (holding > 1)
					merged_param_ops++;
			}
			keeps_the_optimum(g, u, k, t, mc);
			sc_units_free(u);
			sc_graph_free(g);
		}
	for (int i = 0; i < SC_CONTRACT_NRULES; i++)
		cr_assert(fired[i] > 0, "rule %s never fired", sc_contract_rule_name(i));
	cr_assert(merged_param_ops > 0, "no zero-work op with parameters was ever merged");
}

/* A GNMT-like graph: `layers` wide layers of `width` parallel ops each (all
 * of a layer read all of the previous one), every op fed by a zero-work
 * weight source holding parameters and, every other op, a zero-work sink
 * (a summary) hanging off it; hard memory large enough for all
 * parameters. */
static sc_graph *gnmt_like(int layers, int width, double memory, int *core_ops)
{
	sc_builder *b = sc_builder_new();
	cr_assert(b);
	int n = 0, prev[16], cur[16];
	double total = 0;
	for (int l = 0; l < layers; l++)
		for (int i = 0; i < width; i++) {
			cur[i] = add(b, &n, 1 + (l * 7 + i * 3) % 5, 0, 1 + (l + i) % 3);
			if (l > 0)
				for (int j = 0; j < width; j++)
					edge(b, prev[j], cur[i]);
			int w = add(b, &n, 0, 100 + l, 4);
			edge(b, w, cur[i]);
			total += 100 + l;
			if ((l + i) % 2 == 0) {
				int s = add(b, &n, 0, 10, 1);
				edge(b, cur[i], s);
				total += 10;
			}
			if (i == width - 1)
				memcpy(prev, cur, sizeof prev);
		}
	*core_ops = layers * width;
	sc_settings set;
	sc_settings_init(&set);
	set.memory = memory > 0 ? memory : total;
	set.policy = SC_MEM_HARD;
	sc_builder_set_settings(b, &set);
	sc_error err;
	sc_graph *g = sc_builder_finish(b, "gnmt-like", "gnmt-like", &err);
	cr_assert(g, "%s", err.msg);
	sc_builder_free(b);
	return g;
}

Test(contract, gnmt_like_contracts_to_its_layers)
{
	int core;
	sc_graph *g = gnmt_like(6, 3, 0, &core);
	sc_contract_report rep;
	sc_error err;
	cr_assert(sc_contract_report_of(g, 100000, &rep, &err) == SC_OK);
	/* every weight and summary joins its op: the units are the layer ops,
	 * whose ideals are the layered prefixes: empty, then any subset of a
	 * layer on top of the full layers before it, so 1 + 6 x (2^3 - 1) */
	cr_assert_eq(rep.stats.units_after, core);
	cr_assert_eq(rep.ideals_after, 1 + 6 * 7);
	cr_assert_eq(rep.ideals_before, 100001, "%ld before", rep.ideals_before);
	sc_graph_free(g);
	/* with memory for less than all parameters, only the ops without
	 * parameters could move, and there are none */
	g = gnmt_like(6, 3, 500, &core);
	cr_assert(sc_contract_report_of(g, 1000, &rep, &err) == SC_OK);
	cr_assert_eq(rep.stats.units_after, g->n);
	sc_graph_free(g);
}

Test(contract, gnmt_like_small_exact_matches_brute_force, .timeout = 120)
{
	int core;
	for (int mem = 0; mem < 2; mem++) {
		/* 2 layers x 2: 4 ops, 4 weights, 2 summaries = 10 ops */
		sc_graph *g = gnmt_like(2, 2, mem ? 210 : 0, &core);
		cr_assert_eq(g->n, 10);
		for (int k = 2; k <= 3; k++) {
			double brute = ts_brute_optimum(g, k, NULL);
			bool optimal = false;
			double dp = ts_search(g, k, "exact", 1, 0, NULL, &optimal);
			cr_assert(optimal);
			cr_assert(same(dp, brute), "memory case %d k=%d: exact %.17g, brute %.17g",
			          mem, k, dp, brute);
		}
		sc_graph_free(g);
	}
}

/* An op of a training graph (grouped with group, or alone when group is
 * NULL), forward or backward. */
static int add_pass(sc_builder *b, int *count, double w, double p, double o, const char *group,
                    bool backward)
{
	char name[32];
	sc_error err;
	snprintf(name, sizeof name, "%s%d", backward ? "b" : "f", *count);
	int v = sc_builder_add_op(b, name, w, p, o, group, &err);
	cr_assert(v >= 0, "%s", err.msg);
	if (backward)
		cr_assert(sc_builder_set_backward(b, v, &err) == SC_OK, "%s", err.msg);
	(*count)++;
	return v;
}

/* A training graph built to trigger every rule where the order arcs and
 * the edges differ: a core of forward ops, each with a backward twin in its
 * group (forward edges, their gradients mirrored, forward-to-backward edges
 * that order nothing); around it zero-work weights and summaries with
 * their gradient twins, zero-work chain links, isolated pairs, and
 * orphans (backward ops with no forward op in their group) hanging off a
 * forward op or a backward one.  At most max_ops ops; memory as in
 * leafy_graph. */
static sc_graph *leafy_training_graph(ts_rng *r, int core, int max_ops, int mem_case)
{
	sc_builder *b = sc_builder_new();
	cr_assert(b);
	int n = 0, fw[8], bw[8], groups = 0;
	char gname[32];
	double total_param = 0;
#define PAIR(f, g_, w, p)                                                                          \
	do {                                                                                       \
		snprintf(gname, sizeof gname, "c%d", groups++);                                    \
		(f) = add_pass(b, &n, (w), (p), ts_below(r, 6), gname, false);                     \
		(g_) = add_pass(b, &n, (w) > 0 ? 1 + ts_below(r, 9) : 0, 0, ts_below(r, 6), gname, \
		                true);                                                             \
		total_param += (p);                                                                \
	} while (0)
	for (int i = 0; i < core; i++) {
		PAIR(fw[i], bw[i], 1 + ts_below(r, 9), ts_below(r, 10));
		for (int j = 0; j < i; j++)
			if (ts_uniform(r) < 0.4) {
				edge(b, fw[j], fw[i]);
				if (ts_below(r, 3))
					edge(b, bw[i], bw[j]);
			}
		/* activations read by the backward pass, its own or another's */
		if (ts_below(r, 2))
			edge(b, fw[i], bw[i]);
		if (i > 0 && ts_below(r, 3) == 0)
			edge(b, fw[ts_below(r, i)], bw[i]);
	}
	while (n + 2 <= max_ops) {
		double p = ts_below(r, 2) ? 0 : 1 + ts_below(r, 9);
		int a = ts_below(r, core), z, zg;
		switch (ts_below(r, 7)) {
		case 0: /* a summary off one op, its gradient into the op's */
			PAIR(z, zg, 0, p);
			edge(b, fw[a], z);
			if (ts_below(r, 2))
				edge(b, zg, bw[a]);
			break;
		case 1: /* a weight into one op, its gradient from the op's; the
		         * weight maybe read by another op's backward pass too (an
		         * edge that orders nothing) */
			PAIR(z, zg, 0, p);
			edge(b, z, fw[a]);
			if (ts_below(r, 3))
				edge(b, bw[a], zg);
			if (ts_below(r, 2))
				edge(b, z, zg);
			if (ts_below(r, 2))
				edge(b, z, bw[ts_below(r, core)]);
			break;
		case 2: /* a weight into two ops */
			PAIR(z, zg, 0, p);
			edge(b, z, fw[0]);
			edge(b, z, fw[core - 1]);
			break;
		case 3: /* a chain link after one op, its gradient read by the
		         * op's backward twin or another's */
			PAIR(z, zg, 0, p);
			edge(b, fw[a], z);
			if (a + 1 < core && ts_below(r, 2))
				edge(b, z, fw[a + 1 + ts_below(r, core - a - 1)]);
			if (ts_below(r, 2))
				edge(b, zg, bw[ts_below(r, core)]);
			if (ts_below(r, 2))
				edge(b, fw[ts_below(r, core)], zg);
			break;
		case 4: /* an isolated pair, maybe with its own edge */
			PAIR(z, zg, 0, p);
			if (ts_below(r, 2))
				edge(b, z, zg);
			break;
		case 5: /* an orphan reading a forward op: no arc, one edge */
			z = add_pass(b, &n, 0, p, ts_below(r, 3) ? 0 : ts_below(r, 6), NULL, true);
			edge(b, fw[a], z);
			total_param += p;
			break;
		default: /* an orphan reading a backward op (a mirrored arc) */
			z = add_pass(b, &n, 0, p, ts_below(r, 3) ? 0 : ts_below(r, 6), NULL, true);
			edge(b, bw[a], z);
			total_param += p;
			break;
		}
	}
#undef PAIR
	return finish(b, total_param, mem_case, "leafy-training");
}

/* On training graphs the rules read the order arcs for validity and the
 * edges for the io (contract.c): the best partition that keeps every
 * contracted unit whole equals the brute-force optimum (written apart,
 * support.c) under every memory case, and so does the exact DP; every
 * rule fires, and so does a join of a unit with no arc (an orphan that
 * only reads a forward op).  Under GPipe nothing is contracted. */
Test(contract, training_rules_keep_the_optimum, .timeout = 300)
{
	ts_rng r = {29};
	int fired[SC_CONTRACT_NRULES] = {0}, arcless_joins = 0;
	int trials = ts_trials(60);
	for (int t = 0; t < 60 && (t < trials || !all_fired(fired) || !arcless_joins); t++)
		for (int mc = 0; mc < MEM_CASES; mc++) {
			int k = 2 + t % 2;
			int max_ops = k == 2 ? 12 : 10;
			sc_graph *g = leafy_training_graph(&r, 2 + ts_below(&r, 2), max_ops, mc);
			cr_assert(sc_graph_is_training(g));
			sc_units *plain = sc_units_new(g, false, &g->settings, NULL);
			sc_units *u = sc_units_new(g, true, &g->settings, NULL);
			cr_assert(plain && u);
			for (int i = 0; i < SC_CONTRACT_NRULES; i++)
				fired[i] += u->contraction.by_rule[i];
			/* a unit without arcs but with edges, now beside another */
			for (int x = 0; x < plain->n; x++) {
				if (plain->succ_off[x + 1] > plain->succ_off[x] ||
				    plain->pred_off[x + 1] > plain->pred_off[x])
					continue;
				int op = plain->ops[plain->ops_off[x]];
				bool edges = g->succ_off[op + 1] > g->succ_off[op] ||
				             g->pred_off[op + 1] > g->pred_off[op];
				int ux = u->unit_of[op];
				if (edges && u->ops_off[ux + 1] - u->ops_off[ux] >
				                     plain->ops_off[x + 1] - plain->ops_off[x])
					arcless_joins++;
			}
			keeps_the_optimum(g, u, k, t, mc);
			sc_settings gp = g->settings;
			gp.schedule = SC_SCHEDULE_GPIPE;
			sc_units *ug = sc_units_new(g, true, &gp, NULL);
			cr_assert(ug);
			cr_assert_eq(ug->n, plain->n, "trial %d: contracted under GPipe", t);
			sc_units_free(ug);
			sc_units_free(plain);
			sc_units_free(u);
			sc_graph_free(g);
		}
	for (int i = 0; i < SC_CONTRACT_NRULES; i++)
		cr_assert(fired[i] > 0, "rule %s never fired on a training graph",
		          sc_contract_rule_name(i));
	cr_assert(arcless_joins > 0, "no unit without arcs ever joined a neighbour");
}

/* The reference training graphs: layer/bert24_training loses units to the
 * rules (its weights' zero-work pairs), and the exact DP still gives the
 * published optima on it (test_ideals.c). */
Test(contract, reference_training_graph_contracts)
{
	sc_graph *g = ts_load("samples/msr-fiddle/layer/bert24_training.json");
	cr_assert(sc_graph_is_training(g));
	sc_contract_report rep;
	sc_error err;
	cr_assert(sc_contract_report_of(g, 100000, &rep, &err) == SC_OK);
	cr_assert_lt(rep.stats.units_after, rep.stats.units_before);
	cr_assert_lt(rep.ideals_after, rep.ideals_before);
	sc_graph_free(g);
}

/* GNMT training (the case: the exact DP ran 300 s without a proof,
 * the published program takes 29 s at k = 4): the rules shrink its ideals
 * from more than a million to a few hundred, and the exact DP's optimum on
 * the contracted units equals the exact MIP's on the plain groups (a model
 * without the rules, within CBC's tolerance) at k = 2 and 4. */
Test(contract, gnmt_training_contracts_and_keeps_its_optimum, .timeout = 240)
{
	sc_graph *g = ts_load("samples/msr-fiddle/layer/gnmt_training.json");
	cr_assert(sc_graph_is_training(g));
	sc_contract_report rep;
	sc_error err;
	cr_assert(sc_contract_report_of(g, 1000000, &rep, &err) == SC_OK);
	cr_assert_gt(rep.ideals_before, 1000000, "%ld ideals without the rules", rep.ideals_before);
	cr_assert_lt(rep.ideals_after, 1000, "%ld ideals with them", rep.ideals_after);
	for (int k = 2; k <= 4; k += 2) {
		bool optimal = false;
		double dp = ts_search(g, k, "exact", 1, 0, NULL, &optimal);
		cr_assert(optimal);
		sc_settings set = g->settings;
		set.k = k;
		sc_mip_params p = {.rung = SC_RUNG_EXACT, .k = k, .upper = INFINITY, .plain = true};
		sc_mip_result res;
		cr_assert_eq(sc_mip_solve(g, &set, &p, NULL, NULL, &res, &err), SC_OK, "%s",
		             err.msg);
		free(res.stages);
		cr_assert_eq(res.status, SC_MIP_OPTIMAL, "k=%d", k);
		cr_assert(fabs(res.incumbent - dp) <= 1e-6 * dp,
		          "k=%d: exact DP %.17g, exact MIP %.17g", k, dp, res.incumbent);
	}
	sc_graph_free(g);
}
