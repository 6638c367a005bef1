/*
 * test_activations.c - what a stage holds (activations.h, DESIGN.md
 * section 1, Memory per stage), held to an oracle written here from the
 * definition, apart from activations.c: the stash as the union of the
 * saved tensors, the working peak as the bytes live at each position
 * summed tensor by tensor (O(n^2), no sweep); a hand-computed example;
 * the incremental costs equal to the whole; the training graph's parts;
 * and the searches under a hard limit against brute force with the oracle.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/activations.h"
#include "core/cost.h"
#include "core/fleet.h"
#include "core/training.h"
#include "solvers/search.h"
#include "tests/support.h"

static bool fwd(const sc_graph *g, int v)
{
	return !g->backward || !g->backward[v];
}

/* The oracle: the stash and working peak of stage s of stage[]. */
static void oracle(const sc_graph *g, const int *stage, int s, double *stash, double *peak)
{
	const sc_acts *a = g->acts;
	int n = g->n, m = 0;
	int *ops = malloc((size_t)n * sizeof *ops), *pos = malloc((size_t)n * sizeof *pos);
	bool *saved = calloc((size_t)n, sizeof *saved);
	cr_assert(ops && pos && saved);
	for (int i = 0; i < n; i++) {
		int v = a->order[i];
		pos[v] = -1;
		if (stage[v] == s && fwd(g, v))
			ops[m++] = v;
	}
	for (int i = 0; i < m; i++)
		pos[ops[i]] = i;
	*stash = 0;
	if (sc_graph_is_training(g)) {
		for (int i = 0; i < m; i++) {
			*stash += a->save_own[ops[i]];
			for (int j = a->save_off[ops[i]]; j < a->save_off[ops[i] + 1]; j++)
				saved[a->save[j]] = true;
		}
		for (int t = 0; t < n; t++)
			if (saved[t])
				*stash += g->out[t];
	}
	*peak = 0;
	for (int p = 0; p < m; p++) {
		double live = 0;
		for (int t = 0; t < n; t++) {
			if (!fwd(g, t))
				continue;
			/* t's readers: the last one in the stage, and whether a
			 * forward op elsewhere (or none at all) reads it */
			int last = -1, readers = 0;
			bool outside = false;
			for (int e = g->succ_off[t]; e < g->succ_off[t + 1]; e++) {
				int x = g->succ[e];
				if (!fwd(g, x))
					continue;
				readers++;
				if (stage[x] == s)
					last = pos[x] > last ? pos[x] : last;
				else
					outside = true;
			}
			bool in_s = stage[t] == s;
			int born = in_s ? pos[t] : 0;
			int dies = in_s ? (outside || readers == 0 ? m - 1 : last) : last;
			if (!in_s && last < 0)
				continue; /* read nowhere in the stage */
			if (born <= p && p <= dies)
				live += g->out[t];
		}
		if (live > *peak)
			*peak = live;
	}
	free(ops);
	free(pos);
	free(saved);
}

/* Random saves for forward graph g: each op saves its own output, some
 * inputs' tensors, and a few bytes more, now and then. */
static void random_acts(ts_rng *r, sc_graph *g)
{
	sc_error err;
	g->acts = sc_acts_new(g, true, &err);
	cr_assert(g->acts);
	int *off = calloc((size_t)g->n + 1, sizeof *off);
	int *save = calloc((size_t)g->m + (size_t)g->n + 1, sizeof *save);
	double *own = calloc((size_t)g->n, sizeof *own);
	cr_assert(off && save && own);
	int len = 0;
	for (int v = 0; v < g->n; v++) {
		off[v] = len;
		if (ts_below(r, 2))
			save[len++] = v;
		for (int e = g->pred_off[v]; e < g->pred_off[v + 1]; e++)
			if (ts_below(r, 2))
				save[len++] = g->pred[e];
		own[v] = ts_below(r, 4) == 0 ? 1 + ts_below(r, 5) : 0;
	}
	off[g->n] = len;
	cr_assert_eq(sc_acts_set_saves(g->acts, g, off, save, own, &err), SC_OK, "%s", err.msg);
	free(off);
	free(save);
	free(own);
}

static sc_graph *train(const sc_graph *fw, sc_optimizer o, int param_bytes)
{
	sc_error err;
	sc_train_spec spec = {.optimizer = o, .param_bytes = param_bytes};
	sc_graph *t = sc_graph_training(fw, &spec, &err);
	cr_assert(t, "%s", err.msg);
	return t;
}

/* The chain a -> b -> c with a -> c; b saves a's tensor, c its own. */
static sc_graph *hand_graph(void)
{
	sc_error err;
	sc_builder *b = sc_builder_new();
	cr_assert(b);
	cr_assert_eq(sc_builder_add_op(b, "a", 1, 10, 4, NULL, &err), 0);
	cr_assert_eq(sc_builder_add_op(b, "b", 1, 0, 2, NULL, &err), 1);
	cr_assert_eq(sc_builder_add_op(b, "c", 1, 0, 1, NULL, &err), 2);
	sc_builder_add_edge(b, 0, 1, &err);
	sc_builder_add_edge(b, 1, 2, &err);
	sc_builder_add_edge(b, 0, 2, &err);
	sc_graph *g = sc_builder_finish(b, "hand", "hand", &err);
	sc_builder_free(b);
	cr_assert(g, "%s", err.msg);
	g->acts = sc_acts_new(g, true, &err);
	int off[] = {0, 0, 1, 2}, save[] = {0, 2};
	cr_assert_eq(sc_acts_set_saves(g->acts, g, off, save, NULL, &err), SC_OK);
	return g;
}

/* {a, b} | {c}.  Inference: stage 1 runs a (a's 4 bytes live, held to the
 * end: c reads it in stage 2), then b (a's 4 and b's 2): peak 6; stage 2
 * runs c with a's 4 and b's 2 from stage 1 and its own 1: peak 7.
 * Training (adam, fp32 parameters: 8 bytes of state per 4 of parameter):
 * stage 1 holds params 10, grads 10, optimizer 20, the stash of a's
 * tensor (4, saved by b) for min(2 - 1 + 1, 2) = 2 micro-batches and the
 * peak 6: 54; stage 2 the stash of c's 1 byte for one micro-batch and the
 * peak 7: 8. */
Test(activations, hand_computed_stash_and_peak)
{
	sc_graph *g = hand_graph();
	int stage[] = {0, 0, 1};
	sc_settings set = g->settings;
	set.k = 2;
	sc_error err;
	sc_costs *c = sc_costs_new(g, &set, &err);
	sc_costs_eval(c, stage);
	cr_assert_eq(c->st[0].peak, 6);
	cr_assert_eq(c->st[1].peak, 7);
	cr_assert_eq(c->st[0].stash, 0, "inference stashes nothing");
	cr_assert_eq(c->st[0].need, 16);
	cr_assert_eq(c->st[1].need, 7);
	sc_costs_free(c);

	sc_graph *t = train(g, SC_OPT_ADAM, 4);
	int ts[7];
	for (int v = 0; v < t->n; v++)
		ts[v] = v == 6 ? 1 : stage[v % 3];
	set = t->settings;
	set.k = 2;
	c = sc_costs_new(t, &set, &err);
	sc_costs_eval(c, ts);
	sc_mem_parts p = sc_costs_memory_parts(c, 0), q = sc_costs_memory_parts(c, 1);
	cr_assert_eq(p.params, 10);
	cr_assert_eq(p.grads, 10);
	cr_assert_eq(p.optimizer, 20);
	cr_assert_eq(p.stash, 4);
	cr_assert_eq(p.in_flight, 2);
	cr_assert_eq(p.working_peak, 6);
	cr_assert_eq(p.total, 54);
	cr_assert_eq(q.stash, 1);
	cr_assert_eq(q.in_flight, 1);
	cr_assert_eq(q.total, 8);
	cr_assert_str_eq(sc_mem_parts_largest(&p), "optimizer");
	/* GPipe holds every micro-batch's stash in every stage */
	set.schedule = SC_SCHEDULE_GPIPE;
	set.microbatches = 5;
	sc_costs_free(c);
	c = sc_costs_new(t, &set, &err);
	sc_costs_eval(c, ts);
	cr_assert_eq(sc_costs_memory_parts(c, 1).in_flight, 5);
	cr_assert_eq(c->st[1].need, 1 * 5 + 7);
	sc_costs_free(c);
	sc_graph_free(t);
	sc_graph_free(g);
}

Test(activations, optimizer_bytes_per_parameter)
{
	/* adam: 16 bytes a parameter with its gradient, in fp16 as in fp32 */
	cr_assert_eq(2 + 2 + 2 * sc_optimizer_bytes(SC_OPT_ADAM, 2), 16);
	cr_assert_eq(4 + 4 + 4 * sc_optimizer_bytes(SC_OPT_ADAM, 4), 16);
	cr_assert_eq(2 + 2 + 2 * sc_optimizer_bytes(SC_OPT_SGD, 2), 8);
	cr_assert_eq(4 + 4 + 4 * sc_optimizer_bytes(SC_OPT_MOMENTUM, 4), 12);
	sc_optimizer o;
	cr_assert(sc_optimizer_parse("Adam", &o) && o == SC_OPT_ADAM);
	cr_assert(!sc_optimizer_parse("adamw", &o));
}

/* sc_costs against the oracle on random graphs and partitions, whole and
 * after moves. */
Test(activations, costs_match_the_oracle, .timeout = 120)
{
	ts_rng r = {7};
	for (int trial = 0; trial < ts_trials(150); trial++) {
		ts_graph_spec spec = {
		        .n = 3 + ts_below(&r, 10), .edge_p = 0.35, .integer_weights = true};
		sc_settings_init(&spec.settings);
		sc_graph *fw = ts_random_graph(&r, &spec);
		random_acts(&r, fw);
		sc_graph *g = trial % 2 ? train(fw, (sc_optimizer)ts_below(&r, 3), 2) : fw;
		int k = 1 + ts_below(&r, 4), n = g->n;
		int *stage = malloc((size_t)n * sizeof *stage);
		for (int v = 0; v < n; v++)
			stage[v] = ts_below(&r, k);
		sc_settings set = g->settings;
		set.k = k;
		set.schedule = ts_below(&r, 2) ? SC_SCHEDULE_GPIPE : SC_SCHEDULE_1F1B;
		set.microbatches = ts_below(&r, 4);
		sc_error err;
		sc_costs *c = sc_costs_new(g, &set, &err);
		sc_costs_eval(c, stage);
		for (int moves = 0; moves <= 6; moves++) {
			for (int s = 0; s < k; s++) {
				double st, pk;
				oracle(g, stage, s, &st, &pk);
				cr_assert_eq(c->st[s].stash, st, "trial %d move %d stage %d stash",
				             trial, moves, s);
				cr_assert_eq(c->st[s].peak, pk, "trial %d move %d stage %d peak",
				             trial, moves, s);
				int mb = set.microbatches ? set.microbatches : k;
				int fl = !sc_graph_is_training(g)            ? 1
				         : set.schedule == SC_SCHEDULE_GPIPE ? mb
				         : k - s < mb                        ? k - s
				                                             : mb;
				double f = sc_graph_is_training(g)
				                   ? 1 + g->acts->grads + g->acts->optimizer
				                   : 1;
				cr_assert(ts_close_rel(c->st[s].need,
				                       c->st[s].param * f + st * fl + pk, 1e-12),
				          "trial %d stage %d need %.17g", trial, s, c->st[s].need);
			}
			sc_costs_move(c, stage, ts_below(&r, n), ts_below(&r, k));
		}
		sc_costs_free(c);
		free(stage);
		if (g != fw)
			sc_graph_free(g);
		sc_graph_free(fw);
	}
}

/* The best partition under a hard limit on the whole memory, by brute
 * force: bottleneck from the tests' own costs, feasibility from the
 * oracle. */
static double brute(const sc_graph *g, int k)
{
	int n = g->n, *stage = calloc((size_t)n, sizeof *stage);
	ts_cost *tc = calloc((size_t)k, sizeof *tc);
	double best = INFINITY;
	sc_settings set = g->settings;
	for (;;) {
		if (ts_valid(g, stage, k)) {
			bool fits = true;
			for (int s = 0; s < k && fits; s++) {
				double st, pk, param = 0;
				oracle(g, stage, s, &st, &pk);
				for (int v = 0; v < n; v++)
					param += stage[v] == s ? g->param[v] : 0;
				sc_mem_parts p = sc_acts_parts(g, &set, k, s, param, st, pk);
				fits = p.total <= set.memory;
			}
			if (fits) {
				ts_costs(g, stage, &set, k, tc);
				int at;
				double v = ts_bottleneck(tc, k, &at);
				best = v < best ? v : best;
			}
		}
		int i = 0;
		while (i < n && ++stage[i] == k)
			stage[i++] = 0;
		if (i == n)
			break;
	}
	free(tc);
	free(stage);
	return best;
}

Test(activations, searches_under_a_hard_limit_match_brute_force, .timeout = 300)
{
	ts_rng r = {11};
	int proven = 0;
	for (int trial = 0; trial < ts_trials(100); trial++) {
		ts_graph_spec spec = {
		        .n = 3 + ts_below(&r, 3), .edge_p = 0.4, .integer_weights = true};
		sc_settings_init(&spec.settings);
		sc_graph *fw = ts_random_graph(&r, &spec);
		random_acts(&r, fw);
		sc_graph *g = trial % 2 ? train(fw, SC_OPT_SGD, 4) : fw;
		int k = 2 + (fw->n < 5 ? trial % 2 : 0), n = g->n;
		/* a limit between the largest op's memory alone and all of it */
		sc_error err;
		sc_settings one = g->settings;
		one.k = 1;
		sc_costs *c = sc_costs_new(g, &one, &err);
		int *stage = calloc((size_t)n, sizeof *stage);
		sc_costs_eval(c, stage);
		g->settings.memory = c->st[0].need * (0.55 + 0.4 * ts_uniform(&r));
		g->settings.policy = SC_MEM_HARD;
		sc_costs_free(c);
		double want = brute(g, k);
		for (int m = 0; m < 2; m++) {
			bool optimal = false;
			double v = ts_search(g, k, m ? "best" : "exact", 1, 2000, stage, &optimal);
			if (isinf(v)) {
				cr_assert(!optimal || isinf(want),
				          "trial %d: none fits proven, brute %g", trial, want);
				continue;
			}
			cr_assert(v >= want * (1 - 1e-9), "trial %d: %.17g below the optimum %.17g",
			          trial, v, want);
			cr_assert(!optimal || ts_close_rel(v, want, 1e-9),
			          "trial %d: %.17g proven, brute force %.17g", trial, v, want);
			proven += optimal;
			for (int s = 0; s < k; s++) {
				double st, pk, param = 0;
				oracle(g, stage, s, &st, &pk);
				for (int v2 = 0; v2 < n; v2++)
					param += stage[v2] == s ? g->param[v2] : 0;
				sc_mem_parts p =
				        sc_acts_parts(g, &g->settings, k, s, param, st, pk);
				cr_assert(p.total <= g->settings.memory, "trial %d: stage %d over",
				          trial, s);
			}
		}
		free(stage);
		if (g != fw)
			sc_graph_free(g);
		sc_graph_free(fw);
	}
	cr_assert_gt(proven, 0, "no result was proven optimal");
}

/* The least objective over every arrangement of f's kinds and every valid
 * assignment, by sc_costs (whose memory costs_match_the_oracle holds to
 * the oracle). */
static double brute_kinds(const sc_graph *g, const sc_fleet *f, int K)
{
	int n = g->n, kind[8], *stage = calloc((size_t)n, sizeof *stage);
	sc_settings set = g->settings;
	set.k = K;
	sc_error err;
	sc_costs *c = sc_costs_new(g, &set, &err);
	cr_assert(c, "%s", err.msg);
	double best = INFINITY;
	int arrangements = 1;
	for (int i = 0; i < K; i++)
		arrangements *= f->n;
	for (int a = 0; a < arrangements; a++) {
		int left[SC_KINDS_MAX], x = a;
		bool fits = true;
		for (int e = 0; e < f->n; e++)
			left[e] = f->kind[e].count;
		for (int i = 0; i < K; i++, x /= f->n) {
			kind[i] = x % f->n;
			fits = fits && left[kind[i]]-- > 0;
		}
		if (!fits)
			continue;
		sc_costs_set_kinds(c, kind);
		for (int v = 0; v < n; v++)
			stage[v] = 0;
		for (;;) {
			if (ts_valid(g, stage, K)) {
				sc_costs_eval(c, stage);
				double v = sc_costs_objective(c);
				best = v < best ? v : best;
			}
			int i = 0;
			while (i < n && ++stage[i] == K)
				stage[i++] = 0;
			if (i == n)
				break;
		}
	}
	sc_costs_free(c);
	free(stage);
	return best;
}

/* The exact DP on two kinds of device, each with its own times and memory,
 * holds the whole memory exactly: what it proves equals the brute force. */
Test(activations, the_dp_on_two_kinds_holds_memory_exactly, .timeout = 300)
{
	ts_rng r = {23};
	int proven = 0;
	for (int trial = 0; trial < ts_trials(60); trial++) {
		ts_graph_spec spec = {
		        .n = 3 + ts_below(&r, 2), .edge_p = 0.4, .integer_weights = true};
		sc_settings_init(&spec.settings);
		sc_graph *fw = ts_random_graph(&r, &spec);
		random_acts(&r, fw);
		sc_graph *g = trial % 2 ? train(fw, SC_OPT_SGD, 4) : fw;
		sc_error err;
		double *w = malloc((size_t)g->n * sizeof *w);
		for (int v = 0; v < g->n; v++)
			w[v] = 1 + ts_below(&r, 6);
		/* the whole model's memory in one stage, then limits below it */
		sc_settings one = g->settings;
		one.k = 1;
		sc_costs *c = sc_costs_new(g, &one, &err);
		int *zero = calloc((size_t)g->n, sizeof *zero);
		sc_costs_eval(c, zero);
		double all = c->st[0].need;
		sc_costs_free(c);
		free(zero);
		cr_assert_eq(
		        sc_graph_add_kind(g, "b", w, all * (0.4 + 0.5 * ts_uniform(&r)), NAN, &err),
		        SC_OK, "%s", err.msg);
		sc_fleet f;
		cr_assert(sc_fleet_parse(trial % 3 ? "accel:1,b:1" : "accel:1,b:2", &f, &err));
		int K = sc_fleet_stages(&f);
		g->settings.memory = all * (0.4 + 0.5 * ts_uniform(&r));
		g->settings.policy = trial % 4 == 3 ? SC_MEM_OVERFLOW : SC_MEM_HARD;
		g->settings.fleet = &f;
		g->settings.k = K;
		double want = brute_kinds(g, &f, K);
		int *stage = calloc((size_t)g->n, sizeof *stage);
		bool optimal = false;
		double v = ts_search(g, K, "exact", 1, 0, stage, &optimal);
		if (isinf(v))
			cr_assert(!optimal || isinf(want), "trial %d: none fits proven, brute %g",
			          trial, want);
		else
			cr_assert(v >= want * (1 - 1e-9), "trial %d: %.17g below %.17g", trial, v,
			          want);
		cr_assert(!optimal || (isinf(v) && isinf(want)) || ts_close_rel(v, want, 1e-9),
		          "trial %d: %.17g proven, brute force %.17g", trial, v, want);
		proven += optimal;
		free(stage);
		if (g != fw)
			sc_graph_free(g);
		sc_graph_free(fw);
	}
	cr_assert_gt(proven, ts_trials(60) / 2, "only %d proven", proven);
}
