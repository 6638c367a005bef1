/*
 * test_gpipe_mip.c - the MIP rungs under the GPipe schedule (mip.h): on
 * random small training graphs with groups, orphans, an overflow or a hard
 * memory limit, the exact MIP equals the brute-force GPipe optimum
 * (ts_brute_optimum_sched, costed by tests/support.c apart from the
 * program) from nothing, from that optimum and from the 1F1B optimum, and
 * returns a partition valid by ts_valid that costs it; the bottleneck and
 * guess MIPs equal their GPipe relaxations by enumeration (each block's
 * cost split by pass, as the cost model splits a stage's) and stay below
 * the GPipe optimum, often above the 1F1B one; on an inference graph the
 * schedule changes nothing; train_tiny.dot's GPipe optimum is its hand
 * value 14; on the real BERT-24 training graph the exact GPipe MIP is at
 * least the published 1F1B optimum and the GPipe objective of its own
 * partition.
 */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "solvers/mip.h"
#include "solvers/units.h"
#include "tests/support.h"

/* As test_train_mip.c's: 2..8 ops, a hard limit in about a third, the
 * overflow policy in another third. */
static sc_graph *random_training(ts_rng *r)
{
	ts_graph_spec spec = {.n = 2 + ts_below(r, 7),
	                      .edge_p = 0.2 + ts_uniform(r) * 0.4,
	                      .group_p = ts_uniform(r) < 0.5 ? 0.3 : 0,
	                      .ngroups = 2};
	sc_settings_init(&spec.settings);
	spec.settings.bandwidth = 0.5 + ts_uniform(r) * 2;
	double x = ts_uniform(r);
	if (x < 0.66) {
		spec.settings.memory = 8 + ts_uniform(r) * 25;
		spec.settings.policy = x < 0.33 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
	}
	return ts_random_training_graph(r, &spec);
}

static sc_mip_result solve(const sc_graph *g, int k, sc_schedule sched, sc_rung rung, int guess,
                           double upper, const int *start)
{
	sc_settings set = g->settings;
	set.k = k;
	set.schedule = sched;
	sc_mip_params p = {.rung = rung, .k = k, .guess = guess, .upper = upper, .start = start};
	sc_mip_result res;
	sc_error err;
	cr_assert_eq(sc_mip_solve(g, &set, &p, NULL, NULL, &res, &err), SC_OK, "%s: %s",
	             sc_rung_name(rung), err.msg);
	return res;
}

static double gpipe_of(const sc_graph *g, int k, const int *stage)
{
	ts_cost *c = calloc((size_t)k, sizeof *c);
	ts_costs(g, stage, &g->settings, k, c);
	double v = ts_gpipe(c, k);
	for (int s = 0; s < k; s++)
		if (g->settings.policy == SC_MEM_HARD && c[s].over)
			v = INFINITY;
	free(c);
	return v;
}

/* What the relaxations need of the units (groups merged, as the MIPs
 * merge them): the simple bound L on the bottleneck, and each pass's
 * simple bound (the largest unit's work of that pass, and its total over
 * k). */
typedef struct unit_bounds {
	double L, F, B;
} unit_bounds;

static unit_bounds bounds_of_units(const sc_graph *g, int k)
{
	sc_units *u = sc_units_new(g, true, &g->settings, NULL);
	cr_assert(u);
	double total = 0, largest = 0, tf = 0, tb = 0, mf = 0, mb = 0;
	for (int i = 0; i < u->n; i++) {
		double bw = 0;
		for (int j = u->ops_off[i]; j < u->ops_off[i + 1]; j++)
			bw += g->backward[u->ops[j]] ? g->work[u->ops[j]] : 0;
		total += u->work[i];
		largest = fmax(largest, u->work[i]);
		tf += u->work[i] - bw;
		tb += bw;
		mf = fmax(mf, u->work[i] - bw);
		mb = fmax(mb, bw);
	}
	sc_units_free(u);
	return (unit_bounds){fmax(largest, total / k), fmax(mf, tf / k), fmax(mb, tb / k)};
}

/* A block of `stages` stages, its cost split by pass: fw = forward work +
 * the tensors of forward ops crossing its boundary (once each, either way)
 * + the overflow of its stages taken together; bw = backward work + the
 * tensors of backward ops crossing it. */
static void block_cost(const sc_graph *g, const bool *in, int stages, double *fw, double *bw,
                       bool *fits)
{
	const sc_settings *set = &g->settings;
	double wf = 0, wb = 0, param = 0, iof = 0, iob = 0;
	for (int u = 0; u < g->n; u++) {
		if (in[u]) {
			*(g->backward[u] ? &wb : &wf) += g->work[u];
			param += g->param[u];
		}
		bool cross = false;
		for (int e = g->succ_off[u]; e < g->succ_off[u + 1]; e++)
			cross = cross || in[u] != in[g->succ[e]];
		if (cross)
			*(g->backward[u] ? &iob : &iof) += g->out[u];
	}
	double cap = stages * set->memory;
	*fits = !(set->policy == SC_MEM_HARD && param > cap);
	double over = set->policy == SC_MEM_OVERFLOW && param > cap ? param - cap : 0;
	*fw = wf + (iof + over) / set->bandwidth;
	*bw = wb + iob / set->bandwidth;
}

/* The GPipe relaxations by enumeration over every assignment to blocks 0,
 * 1, 2 that ts_valid accepts as a 3-stage partition, the middle doing at
 * least L: F the largest of the middle's fw, the superblocks' fw averaged
 * over their stages (guess) and the forward simple bound; Bw likewise;
 * minimise F + Bw.  guess 0 is the bottleneck model. */
static double relaxation_gpipe(const sc_graph *g, int k, int guess, unit_bounds ub)
{
	sc_settings set = g->settings;
	int n = g->n;
	int *a = calloc((size_t)n, sizeof *a);
	bool *in[3];
	for (int b = 0; b < 3; b++)
		in[b] = malloc((size_t)n);
	double best = INFINITY;
	for (;;) {
		bool ok = ts_valid(g, a, 3);
		for (int u = 0; u < n; u++)
			ok = ok && !(guess == 1 && a[u] == 0) && !(guess == k && a[u] == 2);
		double w1 = 0, p1 = 0, prest = 0;
		for (int u = 0; u < n; u++) {
			for (int b = 0; b < 3; b++)
				in[b][u] = a[u] == b;
			w1 += in[1][u] ? g->work[u] : 0;
			p1 += in[1][u] ? g->param[u] : 0;
			prest += in[1][u] ? 0 : g->param[u];
		}
		ok = ok && w1 >= ub.L * (1 - 1e-9);
		if (set.policy == SC_MEM_HARD)
			ok = ok && p1 <= set.memory && (guess > 0 || prest <= (k - 1) * set.memory);
		if (ok) {
			double F, B, f, b;
			bool fits = true, fit;
			block_cost(g, in[1], 1, &F, &B, &fit);
			F = fmax(F, ub.F);
			B = fmax(B, ub.B);
			if (guess > 1) {
				block_cost(g, in[0], guess - 1, &f, &b, &fit);
				F = fmax(F, f / (guess - 1));
				B = fmax(B, b / (guess - 1));
				fits = fits && fit;
			}
			if (guess > 0 && guess < k) {
				block_cost(g, in[2], k - guess, &f, &b, &fit);
				F = fmax(F, f / (k - guess));
				B = fmax(B, b / (k - guess));
				fits = fits && fit;
			}
			if (fits && F + B < best)
				best = F + B;
		}
		int i = 0;
		while (i < n && a[i] == 2)
			a[i++] = 0;
		if (i == n)
			break;
		a[i]++;
	}
	free(a);
	for (int b = 0; b < 3; b++)
		free(in[b]);
	return best;
}

static bool close_or_both_inf(double a, double b, double rel)
{
	return (isinf(a) && isinf(b)) || fabs(a - b) <= rel * (1 + fabs(b));
}

/* The exact solve res equals the GPipe optimum gopt (rel 1e-9) and returns
 * a valid partition that costs it. */
static void assert_exact(const sc_graph *g, int k, sc_mip_result *res, double gopt,
                         const char *from, int t)
{
	if (isinf(gopt)) {
		cr_assert(res->status == SC_MIP_INFEASIBLE ||
		                  (res->status == SC_MIP_OPTIMAL && isinf(res->bound)),
		          "%s: nothing fits, status %d bound %g (t %d)", from, (int)res->status,
		          res->bound, t);
		free(res->stages);
		return;
	}
	cr_assert_eq(res->status, SC_MIP_OPTIMAL, "%s: status %d (t %d)", from, (int)res->status,
	             t);
	cr_assert(fabs(res->bound - gopt) <= 1e-9 * gopt + 1e-12,
	          "%s: exact GPipe %.15g, brute-force optimum %.15g (t %d)", from, res->bound, gopt,
	          t);
	cr_assert(res->stages && ts_valid(g, res->stages, k), "%s: the partition is valid (t %d)",
	          from, t);
	double v = gpipe_of(g, k, res->stages);
	cr_assert(fabs(v - gopt) <= 1e-9 * gopt + 1e-12,
	          "%s: the MIP's partition costs %.15g under GPipe, optimum %.15g (t %d)", from, v,
	          gopt, t);
	free(res->stages);
	res->stages = NULL;
}

Test(gpipe_mip, rungs_against_brute_force, .timeout = 600)
{
	ts_rng r = {4242};
	int exact = 0, hard = 0, infeasible = 0, beyond_1f1b = 0, rungs_beyond = 0;
	int trials = ts_trials(200);
	for (int t = 0; t < trials; t++) {
		sc_graph *g = random_training(&r);
		int k = 2 + ts_below(&r, 3);
		hard += g->settings.policy == SC_MEM_HARD;
		int *best = malloc((size_t)g->n * sizeof *best);
		int *gbest = malloc((size_t)g->n * sizeof *gbest);
		double opt = ts_brute_optimum_sched(g, k, SC_SCHEDULE_1F1B, best);
		double gopt = ts_brute_optimum_sched(g, k, SC_SCHEDULE_GPIPE, gbest);
		unit_bounds ub = bounds_of_units(g, k);

		/* the relaxations: their GPipe models, below the GPipe optimum */
		sc_mip_result b =
		        solve(g, k, SC_SCHEDULE_GPIPE, SC_RUNG_BOTTLENECK, 0, INFINITY, NULL);
		double bb = relaxation_gpipe(g, k, 0, ub);
		cr_assert(close_or_both_inf(b.bound, bb, 1e-6),
		          "bottleneck GPipe MIP %.12g, enumeration %.12g (t %d)", b.bound, bb, t);
		cr_assert_leq(b.bound, gopt * (1 + 1e-9) + 1e-12,
		              "bottleneck %.12g > GPipe optimum %.12g (t %d)", b.bound, gopt, t);
		double gmin = INFINITY;
		for (int j = 1; j <= k; j++) {
			sc_mip_result gj =
			        solve(g, k, SC_SCHEDULE_GPIPE, SC_RUNG_GUESS, j, INFINITY, NULL);
			cr_assert(gj.status == SC_MIP_OPTIMAL || gj.status == SC_MIP_INFEASIBLE);
			double e = relaxation_gpipe(g, k, j, ub);
			cr_assert(close_or_both_inf(gj.bound, e, 1e-6),
			          "guess %d GPipe MIP %.12g, enumeration %.12g (t %d)", j, gj.bound,
			          e, t);
			gmin = fmin(gmin, gj.bound);
		}
		cr_assert_leq(gmin, gopt * (1 + 1e-9) + 1e-12,
		              "guess %.12g > GPipe optimum %.12g (t %d)", gmin, gopt, t);
		rungs_beyond += isfinite(opt) && fmax(b.bound, gmin) > opt * (1 + 1e-6);

		/* the exact model from nothing, from the GPipe optimum, and from
		 * the 1F1B optimum with its GPipe objective as the upper bound */
		sc_mip_result e = solve(g, k, SC_SCHEDULE_GPIPE, SC_RUNG_EXACT, 0, INFINITY, NULL);
		assert_exact(g, k, &e, gopt, "from nothing", t);
		if (isfinite(gopt)) {
			sc_mip_result s =
			        solve(g, k, SC_SCHEDULE_GPIPE, SC_RUNG_EXACT, 0, gopt, gbest);
			cr_assert_eq(s.status, SC_MIP_OPTIMAL, "t %d", t);
			cr_assert(fabs(s.bound - gopt) <= 1e-9 * gopt + 1e-12,
			          "from the optimum: %.15g, optimum %.15g (t %d)", s.bound, gopt,
			          t);
			free(s.stages);
			double up = gpipe_of(g, k, best);
			if (isfinite(up)) {
				s = solve(g, k, SC_SCHEDULE_GPIPE, SC_RUNG_EXACT, 0, up, best);
				assert_exact(g, k, &s, gopt, "from the 1F1B optimum", t);
			}
			beyond_1f1b += gopt > opt * (1 + 1e-6);
			exact++;
		} else {
			infeasible++;
		}
		free(best);
		free(gbest);
		sc_graph_free(g);
	}
	cr_log_info("gpipe_mip: %d trials, %d exact, %d infeasible, %d hard, %d with the GPipe "
	            "optimum above the 1F1B one, %d relaxations above the 1F1B optimum",
	            trials, exact, infeasible, hard, beyond_1f1b, rungs_beyond);
	cr_assert_gt(exact, trials / 2);
	cr_assert_gt(hard, trials / 5);
	/* the cases the bottleneck model cannot close */
	cr_assert_gt(beyond_1f1b, trials / 4, "%d", beyond_1f1b);
	/* the relaxations bound the GPipe objective, not just the bottleneck */
	cr_assert_gt(rungs_beyond, trials / 20, "%d", rungs_beyond);
}

/* The schedule means nothing to an inference graph: the same model (rows,
 * columns) and the same values under either. */
Test(gpipe_mip, inference_graphs_ignore_the_schedule, .timeout = 300)
{
	ts_rng r = {777};
	for (int t = 0; t < ts_trials(40); t++) {
		ts_graph_spec spec = {.n = 2 + ts_below(&r, 7), .edge_p = 0.3};
		sc_settings_init(&spec.settings);
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 2 + ts_below(&r, 3);
		for (int rung = SC_RUNG_BOTTLENECK; rung <= SC_RUNG_EXACT; rung++) {
			int guess = rung == SC_RUNG_GUESS ? 1 + ts_below(&r, k) : 0;
			sc_mip_result a =
			        solve(g, k, SC_SCHEDULE_1F1B, (sc_rung)rung, guess, INFINITY, NULL);
			sc_mip_result b = solve(g, k, SC_SCHEDULE_GPIPE, (sc_rung)rung, guess,
			                        INFINITY, NULL);
			cr_assert_eq(a.rows, b.rows, "t %d", t);
			cr_assert_eq(a.cols, b.cols, "t %d", t);
			cr_assert_eq(a.bound, b.bound, "t %d", t);
			free(a.stages);
			free(b.stages);
		}
		sc_graph_free(g);
	}
}

/* On a training graph under GPipe each block's one cost row becomes two
 * (F and Bw) and z >= F + Bw is added, with the columns F and Bw: nothing
 * else differs from the 1F1B model. */
Test(gpipe_mip, the_gpipe_model_only_splits_the_cost_rows, .timeout = 300)
{
	ts_rng r = {99};
	for (int t = 0; t < ts_trials(40); t++) {
		sc_graph *g = random_training(&r);
		int k = 2 + ts_below(&r, 3);
		for (int rung = SC_RUNG_BOTTLENECK; rung <= SC_RUNG_EXACT; rung++) {
			int guess = rung == SC_RUNG_GUESS ? 1 + ts_below(&r, k) : 0;
			sc_mip_result a =
			        solve(g, k, SC_SCHEDULE_1F1B, (sc_rung)rung, guess, INFINITY, NULL);
			sc_mip_result b = solve(g, k, SC_SCHEDULE_GPIPE, (sc_rung)rung, guess,
			                        INFINITY, NULL);
			/* the blocks with a cost row */
			int blocks = rung == SC_RUNG_EXACT ? k : rung == SC_RUNG_BOTTLENECK ? 1 : 0;
			if (rung == SC_RUNG_GUESS)
				blocks = 1 + (guess > 1) + (guess < k);
			cr_assert_eq(b.cols, a.cols + 2, "%s t %d", sc_rung_name((sc_rung)rung), t);
			cr_assert_eq(b.rows, a.rows + blocks + 1, "%s t %d",
			             sc_rung_name((sc_rung)rung), t);
			cr_assert_geq(b.bound, a.bound * (1 - 1e-9) - 1e-12);
			free(a.stages);
			free(b.stages);
		}
		sc_graph_free(g);
	}
}

/* tests/data/train_tiny.dot, k = 2: the GPipe optimum is 14 (the file's
 * comment costs it by hand), the 1F1B optimum 12. */
Test(gpipe_mip, train_tiny_is_14_under_gpipe)
{
	sc_graph *g = ts_load("tests/data/train_tiny.dot");
	cr_assert_eq(ts_brute_optimum_sched(g, 2, SC_SCHEDULE_GPIPE, NULL), 14.0);
	sc_mip_result e = solve(g, 2, SC_SCHEDULE_GPIPE, SC_RUNG_EXACT, 0, INFINITY, NULL);
	assert_exact(g, 2, &e, 14.0, "train_tiny", 0);
	sc_mip_result f = solve(g, 2, SC_SCHEDULE_1F1B, SC_RUNG_EXACT, 0, INFINITY, NULL);
	cr_assert_eq(f.status, SC_MIP_OPTIMAL);
	cr_assert(fabs(f.bound - 12) <= 1e-9, "1F1B exact %.12g", f.bound);
	free(f.stages);
	sc_mip_result b = solve(g, 2, SC_SCHEDULE_GPIPE, SC_RUNG_BOTTLENECK, 0, INFINITY, NULL);
	cr_assert_leq(b.bound, 14 * (1 + 1e-9), "bottleneck %.12g", b.bound);
	/* the guess rung is the least of its solves (each alone is not a bound) */
	double gmin = INFINITY;
	for (int j = 1; j <= 2; j++)
		gmin = fmin(gmin,
		            solve(g, 2, SC_SCHEDULE_GPIPE, SC_RUNG_GUESS, j, INFINITY, NULL).bound);
	cr_assert_leq(gmin, 14 * (1 + 1e-9), "guess %.12g", gmin);
	sc_graph_free(g);
}

/* layer/bert24_training.json under GPipe, k = 2 and 4: the exact MIP
 * solves from nothing; its value is at least REFERENCE.tsv's 1F1B optimum
 * and is the GPipe objective of the partition it returns. */
Test(gpipe_mip, bert24_training_under_gpipe, .timeout = 300)
{
	const char *rel = "layer/bert24_training.json";
	sc_graph *g = ts_load("samples/msr-fiddle/layer/bert24_training.json");
	FILE *f = fopen("samples/msr-fiddle/REFERENCE.tsv", "r");
	cr_assert(f, "cannot open samples/msr-fiddle/REFERENCE.tsv");
	char line[512], graph[256];
	int k, checked = 0;
	double ref, secs;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "%255s %d %lf %lf", graph, &k, &ref, &secs) == 4 &&
		    strcmp(graph, rel) == 0 && (k == 2 || k == 4)) {
			double t0 = sc_clock_now();
			sc_mip_result e =
			        solve(g, k, SC_SCHEDULE_GPIPE, SC_RUNG_EXACT, 0, INFINITY, NULL);
			double t = sc_clock_now() - t0;
			cr_log_info("bert24_training k %d GPipe: exact %.12g (1F1B optimum %.12g) "
			            "in %.2f s, %ld nodes",
			            k, e.bound, ref, t, e.nodes);
			cr_assert_eq(e.status, SC_MIP_OPTIMAL, "k %d: stopped after %.1f s", k, t);
			cr_assert_geq(e.bound, ref * (1 - 1e-9), "k %d: GPipe %.12g < 1F1B %.12g",
			              k, e.bound, ref);
			cr_assert(e.stages && ts_valid(g, e.stages, k));
			double v = gpipe_of(g, k, e.stages);
			cr_assert(fabs(v - e.bound) <= 1e-9 * v,
			          "k %d: exact %.15g, its partition's GPipe objective %.15g", k,
			          e.bound, v);
			free(e.stages);
			checked++;
		}
	fclose(f);
	cr_assert_eq(checked, 2);
	sc_graph_free(g);
}
