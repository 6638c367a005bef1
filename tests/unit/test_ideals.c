/*
 * test_ideals.c - the exact dynamic program over ideals (ideals.c, 001
 * section 5.1.1): it reproduces the 30 published inference optima of the
 * msr-fiddle graphs (samples/msr-fiddle/REFERENCE.tsv) and the 24 training
 * ones and proves them, and gives a valid partition
 * costing what it says on the training graph without a published optimum.
 * Its agreement with brute force on random graphs is checked with every
 * other method in test_search.c and test_train_solve.c; here the DP pruned
 * by a partition's bottleneck equals the DP without pruning and brute
 * force, under every memory policy, on inference and training graphs, and
 * its progress counts the ideals and layers.  Balancing (sc_dp_set_balance)
 * finds the least sum of squared stage costs at the optimum that brute force
 * finds, and `exact` spreads the stages beside a heavy op.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "solvers/contract_report.h"
#include "solvers/ideals.h"
#include "solvers/search.h"
#include "solvers/units.h"
#include "tests/support.h"

/* The msr-fiddle file name (e.g. "layer/bert24_training.json") into buf:
 * the repository's copy in samples/. */
static const char *msr_path(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "samples/msr-fiddle/%s", name);
	return buf;
}

/* Runs the exact method on every row of the reference table at path whose
 * graph is a training graph (training) or not, checking the optimum, the
 * proof and the partition's cost; returns the rows read (under the sanitizers, those to k = 4
 * checked). */
static int reference_rows(const char *path, bool training)
{
	FILE *f = fopen(path, "r");
	cr_assert(f, "%s", path);
	char line[512], file[300], last[300] = "";
	int rows = 0;
	sc_graph *g = NULL;
	int *stage = NULL;
	cr_assert(fgets(line, sizeof line, f)); /* header */
	while (fgets(line, sizeof line, f)) {
		char graph[256];
		int k;
		double want, secs;
		cr_assert_eq(sscanf(line, "%255s %d %lf %lf", graph, &k, &want, &secs), 4, "%s",
		             line);
		if ((strstr(graph, "_training") != NULL) != training)
			continue;
		rows++;
		/* under the sanitizers (short), the rows up to k = 4 */
		if (ts_short() && k > 4)
			continue;
		msr_path(file, sizeof file, graph);
		if (strcmp(file, last) != 0) {
			sc_graph_free(g);
			free(stage);
			g = ts_load(file);
			cr_assert_eq(sc_graph_is_training(g), training, "%s", file);
			stage = malloc((size_t)g->n * sizeof *stage);
			snprintf(last, sizeof last, "%s", file);
		}
		bool optimal;
		double t0 = sc_clock_now();
		double got = ts_search(g, k, "exact", 1, 0, stage, &optimal);
		double secs_here = sc_clock_now() - t0;
		cr_assert(optimal, "%s k=%d: not proven", graph, k);
		cr_assert(fabs(got - want) <= 1e-9 * want, "%s k=%d: exact %.17g, published %.17g",
		          graph, k, got, want);
		cr_assert(fabs(ts_objective(g, k, stage) - got) <= 1e-12 * got);
		if (training)
			cr_assert(ts_valid(g, stage, k), "%s k=%d: valid by the rules", graph, k);
		cr_log_info("%s k=%d: %.17g in %.3f s (published DP %.3f s)", graph, k, got,
		            secs_here, secs);
	}
	fclose(f);
	sc_graph_free(g);
	free(stage);
	return rows;
}

Test(ideals, exact_reproduces_the_published_optima, .timeout = 120)
{
	cr_assert_eq(reference_rows("samples/msr-fiddle/REFERENCE.tsv", false), 30);
}

Test(ideals, exact_reproduces_the_published_training_optima, .timeout = 120)
{
	cr_assert_eq(reference_rows("samples/msr-fiddle/REFERENCE.tsv", true), 24);
}

/* layer/resnet50_training has no published optimum (the published program
 * stops on it).  At every k from 2 to 16 the exact method finishes with a
 * proof; what it finds is a valid partition costing what it says, or, at
 * k = 2, none: two stages cannot hold its parameters under the limit. */
Test(ideals, exact_on_the_training_graph_without_a_published_optimum, .timeout = 120)
{
	char path[300];
	sc_graph *g = ts_load(msr_path(path, sizeof path, "layer/resnet50_training.json"));
	cr_assert(sc_graph_is_training(g));
	int *stage = malloc((size_t)g->n * sizeof *stage);
	double total = 0, prev = INFINITY;
	for (int v = 0; v < g->n; v++)
		total += g->param[v];
	for (int k = 2; k <= 16; k++) {
		bool optimal;
		double t0 = sc_clock_now();
		double got = ts_search(g, k, "exact", 1, 0, stage, &optimal);
		cr_log_info("layer/resnet50_training k=%d: %.17g%s in %.3f s", k, got,
		            optimal ? " (proven)" : "", sc_clock_now() - t0);
		cr_assert(optimal, "k=%d: not proven", k);
		/* more stages never cost more (a stage may stay empty) */
		cr_assert_leq(got, prev * (1 + 1e-12), "k=%d: %.17g, k-1 gave %.17g", k, got, prev);
		prev = got;
		/* the parameters are 2.26 M: two stages cannot hold them, and
		 * from three on a partition fits */
		if (total > k * g->settings.memory) {
			cr_assert(isinf(got), "k=%d: %g fits in %d stages?", k, got, k);
			continue;
		}
		cr_assert(isfinite(got), "k=%d: nothing fits", k);
		cr_assert(ts_valid(g, stage, k), "k=%d", k);
		cr_assert(fabs(ts_objective(g, k, stage) - got) <= 1e-12 * got, "k=%d", k);
		/* and by the independent model */
		ts_cost *c = calloc((size_t)k, sizeof *c);
		sc_settings set = g->settings;
		ts_costs(g, stage, &set, k, c);
		int at;
		cr_assert(fabs(ts_bottleneck(c, k, &at) - got) <= 1e-9 * got, "k=%d", k);
		for (int s = 0; s < k; s++)
			cr_assert(!c[s].over, "k=%d: stage %d over the memory", k, s + 1);
		free(c);
	}
	free(stage);
	sc_graph_free(g);
}

/* Runs the DP on u to the end with bound ub (strict or not); returns the optimum and fills
 * unit_stage and the progress. */
static double run_dp(const sc_units *u, const sc_settings *set, int k, double ub, bool strict,
                     int *unit_stage, sc_dp_progress_info *p)
{
	sc_error err;
	sc_dp *d = sc_dp_new(u, set, k, 0, &err);
	cr_assert(d, "%s", err.msg);
	sc_dp_set_bound(d, ub, strict);
	int more;
	while ((more = sc_dp_step(d, sc_clock_now() + 0.01, &err)) > 0)
		;
	cr_assert_eq(more, 0, "%s", err.msg);
	sc_dp_progress(d, p);
	double v = sc_dp_result(d, unit_stage);
	sc_dp_free(d);
	return v;
}

static bool same(double a, double b)
{
	return (isinf(a) && isinf(b)) || fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

/* The DP pruned by a bound against the plain DP and brute force on
 * trials random graphs, training graphs when training. */
static void pruning_trials(uint64_t seed, bool training)
{
	ts_rng r = {seed};
	int trials = ts_trials(80), pruned_less = 0;
	for (int t = 0; t < trials; t++) {
		ts_graph_spec spec = {.n = 5 + ts_below(&r, 4),
		                      .edge_p = 0.2 + 0.3 * ts_uniform(&r),
		                      .group_p = t % 3 == 0 ? 0.3 : 0,
		                      .ngroups = 2,
		                      .integer_weights = t % 2 == 0};
		sc_settings_init(&spec.settings);
		/* every policy: no limit, overflow and hard limits that bind or
		 * not */
		int policy = t % 5;
		if (policy > 0) {
			spec.settings.memory = policy <= 2 ? 12 : 40;
			spec.settings.policy = policy % 2 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		spec.settings.bandwidth = t % 4 == 3 ? 0.5 : 1;
		sc_graph *g =
		        training ? ts_random_training_graph(&r, &spec) : ts_random_graph(&r, &spec);
		int k = 2 + t % 3;
		if (k == 4 && g->n > 7)
			k = 3;
		sc_settings set = g->settings;
		set.k = k;
		sc_units *u = sc_units_new(g, true, &set, NULL);
		cr_assert(u);
		int *us = malloc((size_t)(u->n + 1) * sizeof *us);
		int *st = malloc((size_t)(g->n + 1) * sizeof *st);
		sc_dp_progress_info plain_p, pruned_p;
		double plain = run_dp(u, &set, k, INFINITY, false, us, &plain_p);
		double brute = ts_brute_optimum(g, k, NULL);
		cr_assert(same(plain, brute), "trial %d: DP %.17g, brute force %.17g", t, plain,
		          brute);
		/* the bound: the optimum itself (the tightest a search can give),
		 * and a looser one */
		if (isfinite(plain)) {
			sc_units_expand(u, us, st);
			cr_assert(same(ts_objective(g, k, st), plain));
			for (int b = 0; b < 2; b++) {
				double ub = b ? plain * 1.3 : ts_objective(g, k, st);
				double pruned = run_dp(u, &set, k, ub, false, us, &pruned_p);
				cr_assert(same(pruned, plain),
				          "trial %d, bound %g: pruned %.17g, plain %.17g", t, ub,
				          pruned, plain);
				sc_units_expand(u, us, st);
				cr_assert(same(ts_objective(g, k, st), plain));
				cr_assert_leq(pruned_p.ideals, plain_p.ideals);
				cr_assert_leq(pruned_p.evals, plain_p.evals);
				pruned_less += pruned_p.evals < plain_p.evals;
				/* strictly below the bound: nothing under the optimum, the
				 * optimum under a looser bound */
				double strict = run_dp(u, &set, k, ub, true, us, &pruned_p);
				if (b)
					cr_assert(same(strict, plain),
					          "trial %d: strict %.17g, plain %.17g", t, strict,
					          plain);
				else
					cr_assert(isinf(strict),
					          "trial %d: strict below the optimum %.17g "
					          "found %.17g",
					          t, plain, strict);
			}
		}
		/* progress at the end: every ideal filled, every layer done */
		cr_assert_eq(plain_p.ideals_done, plain_p.ideals);
		cr_assert_eq(plain_p.layers, u->n + 1);
		cr_assert_eq(plain_p.layers_done, u->n + 1);
		sc_contract_report rep;
		sc_error err;
		cr_assert(sc_contract_report_of(g, 10000000, &rep, &err) == SC_OK);
		/* the DP makes only the ideals some stage within the limit reaches */
		cr_assert_leq(plain_p.ideals, rep.ideals_after);
		if (spec.settings.policy != SC_MEM_HARD)
			cr_assert_eq(plain_p.ideals, rep.ideals_after);
		free(us);
		free(st);
		sc_units_free(u);
		sc_graph_free(g);
	}
	cr_assert_gt(pruned_less, trials / 4, "pruning saved work in only %d runs", pruned_less);
}

Test(ideals, pruning_by_a_bound_keeps_the_optimum, .timeout = 300)
{
	pruning_trials(2026, false);
}

Test(ideals, pruning_by_a_bound_keeps_the_optimum_on_training_graphs, .timeout = 300)
{
	pruning_trials(2027, true);
}

/* The least sum of squared stage costs over the partitions whose bottleneck
 * is at most cap, by enumerating every assignment (ts_costs, apart from
 * core); INFINITY when none. */
static double brute_least_squares(const sc_graph *g, int k, double cap)
{
	int n = g->n;
	int *stage = calloc((size_t)n, sizeof *stage);
	ts_cost *c = calloc((size_t)k, sizeof *c);
	cr_assert(stage && c);
	double best = INFINITY;
	for (;;) {
		if (ts_valid(g, stage, k)) {
			ts_costs(g, stage, &g->settings, k, c);
			double ss = 0, worst = 0;
			bool over = false;
			for (int s = 0; s < k; s++) {
				ss += c[s].cost * c[s].cost;
				worst = fmax(worst, c[s].cost);
				over |= g->settings.policy == SC_MEM_HARD && c[s].over;
			}
			if (!over && worst <= cap * (1 + 1e-12) && ss < best)
				best = ss;
		}
		int i = 0;
		while (i < n && ++stage[i] == k)
			stage[i++] = 0;
		if (i == n)
			break;
	}
	free(c);
	free(stage);
	return best;
}

/* sc_dp_set_balance: among the partitions at the optimum, the DP finds the
 * least sum of squared stage costs that brute force finds, and its
 * partition has that sum and the optimal bottleneck. */
Test(ideals, balancing_finds_the_least_sum_of_squares_at_the_optimum, .timeout = 300)
{
	ts_rng r = {4242};
	int trials = ts_trials(60), spread = 0;
	for (int t = 0; t < trials; t++) {
		ts_graph_spec spec = {.n = 5 + ts_below(&r, 3),
		                      .edge_p = 0.15 + 0.3 * ts_uniform(&r),
		                      .group_p = t % 4 == 0 ? 0.3 : 0,
		                      .ngroups = 2,
		                      .integer_weights = t % 2 == 0};
		sc_settings_init(&spec.settings);
		if (t % 3 == 1) {
			spec.settings.memory = 30;
			spec.settings.policy = t % 2 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		sc_graph *g = ts_random_graph(&r, &spec);
		int k = 2 + t % 3, n = g->n;
		double opt = ts_brute_optimum(g, k, NULL);
		if (!isfinite(opt)) {
			sc_graph_free(g);
			continue;
		}
		double least = brute_least_squares(g, k, opt);
		sc_settings set = g->settings;
		set.k = k;
		sc_units *u = sc_units_new(g, true, &set, NULL);
		cr_assert(u);
		sc_error err;
		sc_dp *d = sc_dp_new(u, &set, k, 0, &err);
		cr_assert(d, "%s", err.msg);
		sc_dp_set_balance(d, opt);
		int more;
		while ((more = sc_dp_step(d, sc_clock_now() + 0.01, &err)) > 0)
			;
		cr_assert_eq(more, 0, "%s", err.msg);
		int *us = malloc((size_t)(u->n + 1) * sizeof *us);
		int *st = malloc((size_t)(n + 1) * sizeof *st);
		double got = sc_dp_result(d, us);
		cr_assert(same(got, least), "trial %d: DP %.17g, brute force %.17g", t, got, least);
		sc_units_expand(u, us, st);
		ts_cost *c = calloc((size_t)k, sizeof *c);
		ts_costs(g, st, &g->settings, k, c);
		double ss = 0;
		for (int s = 0; s < k; s++)
			ss += c[s].cost * c[s].cost;
		int at;
		cr_assert(same(ss, least), "trial %d: its partition's sum %.17g", t, ss);
		cr_assert_leq(ts_bottleneck(c, k, &at), opt * (1 + 1e-9), "trial %d", t);
		/* the plain DP's partition, for the count of runs where it differs */
		double plain_ss = 0;
		run_dp(u, &set, k, INFINITY, false, us, &(sc_dp_progress_info){0});
		sc_units_expand(u, us, st);
		ts_costs(g, st, &g->settings, k, c);
		for (int s = 0; s < k; s++)
			plain_ss += c[s].cost * c[s].cost;
		cr_assert_geq(plain_ss, least * (1 - 1e-9), "trial %d", t);
		spread += plain_ss > least * (1 + 1e-9);
		free(c);
		free(us);
		free(st);
		sc_dp_free(d);
		sc_units_free(u);
		sc_graph_free(g);
	}
	/* the case is not vacuous: the min-max DP's own partition is often
	 * less even */
	cr_assert_gt(spread, 0, "the plain DP was always as even");
}

/* A chain of twelve unit ops with one op of 10 in it, k = 5: the optimum
 * is 10 (the heavy op alone).  The DP's own partition fills the stages up
 * to 10 (6, 10, 6, 0, 0); the balancing after it (refine.c, local moves
 * keeping the bottleneck) spreads the six after the heavy op over the
 * stages left, two each.  It does not move the heavy op to even out the
 * six before it too: the least sum of squares, 3, 3, 10, 3, 3, is the
 * balancing DP's (sc_dp_set_balance, tested above), which the exact method
 * no longer runs, since it took as long as the DP again. */
Test(ideals, exact_balances_the_stages_beside_a_heavy_op)
{
	char dir[] = "/tmp/sc-balance-XXXXXX", path[64];
	cr_assert(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/chain.dot", dir);
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fprintf(f, "digraph chain {\n");
	for (int i = 0; i < 13; i++)
		fprintf(f, "  n%d [work = %d, out = 0];\n", i, i == 6 ? 10 : 1);
	for (int i = 0; i + 1 < 13; i++)
		fprintf(f, "  n%d -> n%d;\n", i, i + 1);
	fprintf(f, "}\n");
	fclose(f);
	sc_graph *g = ts_load(path);
	unlink(path);
	rmdir(dir);
	for (int refine = 0; refine < 2; refine++) {
		sc_settings set = g->settings;
		set.k = 5;
		sc_search_params p;
		sc_search_params_init(&p);
		p.method = "exact";
		p.refine = refine;
		sc_error err;
		sc_search *s = sc_search_new(g, &set, &p, &err);
		cr_assert(s, "%s", err.msg);
		cr_assert_eq(sc_search_run(s, NULL), SC_OK);
		int stage[13];
		bool optimal;
		double v = sc_search_result(s, stage, &optimal);
		sc_search_free(s);
		cr_assert(optimal && same(v, 10));
		ts_cost c[5];
		ts_costs(g, stage, &g->settings, 5, c);
		double least = INFINITY; /* the lightest stage after the heavy op */
		for (int i = 0; i < 5; i++)
			if (i > stage[6])
				least = fmin(least, c[i].work);
		if (refine)
			cr_assert(same(least, 2), "the stages after the heavy op: least %g, not 2",
			          least);
		else
			cr_assert(same(least, 0), "without refinement a stage stays empty: %g",
			          least);
	}
	sc_graph_free(g);
}

Test(ideals, a_small_limit_is_refused_and_memory_sizes_the_default)
{
	sc_graph *g = ts_load("samples/paper/figure2.dot");
	sc_units *u = sc_units_new(g, true, NULL, NULL);
	sc_settings set = g->settings;
	sc_error err;
	sc_dp *d = sc_dp_new(u, &set, 3, 3, &err);
	int more;
	while ((more = sc_dp_step(d, sc_clock_now() + 0.01, &err)) > 0)
		;
	cr_assert_eq(more, -1);
	cr_assert_eq(err.code, SC_ERR_LIMIT);
	cr_assert(strstr(err.msg, "more than 3 ideals"), "%s", err.msg);
	sc_dp_free(d);
	/* the default: a quarter of the memory over the bytes per ideal */
	long lim = sc_dp_memory_limit(u, 3);
	cr_assert_gt(lim, 100000);
	cr_assert_lt((double)lim * (double)sc_dp_bytes_per_ideal(u, 3), 8.1 * 1024 * 1024 * 1024);
	sc_units_free(u);
	sc_graph_free(g);
}

/* A stage as long as the graph: the stage search goes one level per unit
 * of the stage, and did so by recursion, which overflowed the stack on a
 * 27 000-op chain at k = 1.  At k = 1 the optimum is the total
 * work. */
Test(ideals, a_stage_of_thirty_thousand_units_needs_no_deep_stack, .timeout = 120)
{
	int n = 30000, *stage;
	sc_graph *g = ts_chain_graph(n, 1, &stage);
	double total = 0;
	for (int v = 0; v < n; v++)
		total += g->work[v];
	bool optimal;
	int *got = malloc((size_t)n * sizeof *got);
	double v1 = ts_search(g, 1, "exact", 1, 0, got, &optimal);
	cr_assert(optimal);
	cr_assert_float_eq(v1, total, 1e-9 * total);
	free(stage);
	free(got);
	sc_graph_free(g);
}

static bool stop_after(void *ctx)
{
	int *calls = ctx;
	return ++*calls >= 2;
}

/* One step of the DP without a bound on regal-ba (100 ops, k = 2) pushes
 * from the empty ideal: millions of ideals, minutes, in one unit of work.
 * A stop callback ends it within a few thousand ideals; the DP is then
 * stopped for good, not failed. */
Test(ideals, a_stop_holds_inside_one_step, .timeout = 30)
{
	sc_graph *g = ts_load("samples/testbed/regal-ba-100-2.dot");
	sc_units *u = sc_units_new(g, true, NULL, NULL);
	sc_settings set = g->settings;
	sc_error err;
	sc_dp *d = sc_dp_new(u, &set, 2, 0, &err);
	cr_assert(d, "%s", err.msg);
	int calls = 0;
	sc_dp_set_stop(d, stop_after, &calls);
	double t0 = sc_clock_now();
	cr_assert_eq(sc_dp_step(d, t0 + 0.01, &err), -1);
	cr_assert_lt(sc_clock_now() - t0, 1);
	cr_assert(sc_dp_stopped(d));
	cr_assert_eq(calls, 2);
	sc_dp_progress_info p;
	sc_dp_progress(d, &p);
	cr_assert_leq(p.ideals, 2 * 4096 + 1, "%ld ideals", p.ideals);
	cr_assert_eq(sc_dp_step(d, t0 + 0.01, &err), -1, "stays stopped");
	sc_dp_free(d);
	sc_units_free(u);
	sc_graph_free(g);
}

/* sc_dp_set_memory sizes the limit of ideals to the bytes given (a testbed
 * worker's share) in place of the machine's budget; a count given to
 * sc_dp_new stands. */
Test(ideals, a_memory_budget_sizes_the_limit_of_ideals, .timeout = 30)
{
	sc_graph *g = ts_load("samples/testbed/regal-ba-100-2.dot");
	sc_units *u = sc_units_new(g, true, NULL, NULL);
	sc_settings set = g->settings;
	sc_error err;
	double bytes = 5000.0 * (double)sc_dp_bytes_per_ideal(u, 2);
	for (int given = 0; given < 2; given++) {
		sc_dp *d = sc_dp_new(u, &set, 2, given ? 20000 : 0, &err);
		cr_assert(d, "%s", err.msg);
		sc_dp_set_memory(d, bytes);
		int more;
		while ((more = sc_dp_step(d, sc_clock_now() + 0.01, &err)) > 0)
			;
		cr_assert_eq(more, -1);
		cr_assert_eq(err.code, SC_ERR_LIMIT);
		cr_assert(
		        strstr(err.msg, given ? "more than 20000 ideals" : "more than 5000 ideals"),
		        "%s", err.msg);
		cr_assert_not(sc_dp_stopped(d));
		sc_dp_free(d);
	}
	sc_units_free(u);
	sc_graph_free(g);
}
