/*
 * test_cpu_exact.c - the exact DP with CPU stages (solvers/dp_exact.c,
 * ideals.c's CPU-count dimension; 001 sections 3 and 4).
 *
 * Against the brute force of tests/support.c (ts_brute_optimum_cpus,
 * written apart from the solvers) on small random graphs with CPU times:
 * inference and training (1F1B) graphs, groups, both memory policies, ops
 * without a CPU time and ops no accelerator may hold, ops of zero time
 * (which the contraction joins); the DP's own partition is checked by the
 * brute force's cost model, not by the program's.  Then every row of
 * samples/msr-fiddle/REFERENCE-CPU.tsv (the published program's optima
 * with one and two CPUs) is reproduced to a relative 1e-9 with a
 * partition whose bottleneck the independent model confirms; and the
 * contraction with CPU stages leaves units of nonzero CPU time alone.
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "solvers/dp_exact.h"
#include "solvers/ideals.h"
#include "solvers/units.h"
#include "tests/support.h"

/* sc_dp_exact on g at k accelerators and L CPUs; its partition checked
 * by ts_cpu_bottleneck.  Returns the optimum. */
static double solve(const sc_graph *g, int k, int L, bool refine, const char *what)
{
	sc_settings set = g->settings;
	set.k = k;
	set.cpus = L;
	sc_search_params p;
	sc_search_params_init(&p);
	p.refine = refine;
	int K = k + L;
	int *stage = calloc((size_t)(g->n ? g->n : 1), sizeof *stage);
	int *kind = calloc((size_t)K, sizeof *kind);
	cr_assert(stage && kind);
	sc_dp_exact_info info;
	sc_error err;
	cr_assert_eq(sc_dp_exact(g, &set, &p, stage, kind, &info, &err), SC_OK, "%s: %s", what,
	             err.msg);
	if (isfinite(info.optimum)) {
		double mine = ts_kind_bottleneck(g, stage, kind, K);
		cr_assert(ts_close_rel(mine, info.optimum, 1e-9),
		          "%s: the DP says %.17g, its partition costs %.17g", what, info.optimum,
		          mine);
		int ncpu = 0;
		for (int s = 0; s < K; s++)
			ncpu += kind[s] == 1;
		cr_assert_eq(ncpu, L, "%s: %d CPU stages, not %d", what, ncpu, L);
	}
	free(stage);
	free(kind);
	return info.optimum;
}

/* Random graphs of n ops (training or not) against the brute force. */
static void against_brute(bool training, uint64_t seed, int cases)
{
	ts_rng r = {seed};
	int checked = 0, finite = 0;
	for (int t = 0; t < cases; t++) {
		ts_graph_spec spec = {.n = 4 + ts_below(&r, training ? 3 : 3),
		                      .edge_p = 0.2 + 0.5 * ts_uniform(&r),
		                      .group_p = 0.3,
		                      .ngroups = 2,
		                      .integer_weights = t % 2 == 0};
		sc_settings_init(&spec.settings);
		spec.settings.bandwidth = 0.5 + ts_uniform(&r) * 2;
		if (t % 3 != 0) {
			spec.settings.memory = 8 + ts_uniform(&r) * 10;
			spec.settings.policy = t % 3 == 1 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		sc_graph *g0 =
		        training ? ts_random_training_graph(&r, &spec) : ts_random_graph(&r, &spec);
		/* zero-work ops, for the contraction */
		sc_graph *g = ts_with_cpu_times(&r, g0, spec.integer_weights, t % 4 == 1 ? 0.3 : 0,
		                                t % 4 == 2 ? 0.3 : 0);
		int k = 1 + ts_below(&r, 2), L = 1 + ts_below(&r, 2);
		if (g->n >= 6 && k + L > 3)
			L = 1, k = 2;
		char what[96];
		snprintf(what, sizeof what, "%s case %d (n %d, k %d, L %d, %s)",
		         training ? "training" : "inference", t, g->n, k, L,
		         sc_mem_policy_name(g->settings.policy));
		double want = ts_brute_optimum_cpus(g, k, L, NULL, NULL);
		double got = solve(g, k, L, t % 2 == 0, what);
		cr_assert(isinf(want) ? isinf(got) : ts_close_rel(got, want, 1e-9),
		          "%s: exact %.17g, brute force %.17g", what, got, want);
		checked++;
		finite += isfinite(want);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
	cr_log_info("%d cases, %d with a partition that fits", checked, finite);
	cr_assert_gt(finite, cases / 2);
}

Test(cpu_exact, matches_brute_force_on_inference_graphs, .timeout = 120)
{
	against_brute(false, 29, ts_short() ? 20 : 80);
}

Test(cpu_exact, matches_brute_force_on_training_graphs, .timeout = 120)
{
	against_brute(true, 2929, ts_short() ? 20 : 60);
}

/* The DP of g at k accelerators and L CPUs pruned by the bound ub
 * (sc_dp_set_bound, strict or not), run to the end: its value, its
 * partition checked by ts_kind_bottleneck, and its stages costed. */
static double bounded_dp(const sc_graph *g, int k, int L, double ub, bool strict, long *evals,
                         const char *what)
{
	sc_settings set = g->settings;
	set.k = k;
	set.cpus = L;
	sc_error err;
	sc_units *u = sc_units_new(g, true, &set, &err);
	cr_assert(u, "%s: %s", what, err.msg);
	sc_dp *d = sc_dp_new(u, &set, k, 0, &err);
	cr_assert(d, "%s: %s", what, err.msg);
	sc_dp_set_bound(d, ub, strict);
	int more;
	while ((more = sc_dp_step(d, sc_clock_now() + 0.01, &err)) > 0)
		;
	cr_assert_eq(more, 0, "%s: %s", what, err.msg);
	int K = sc_dp_stages(d);
	cr_assert_eq(K, k + L);
	int *us = calloc((size_t)u->n + 1, sizeof *us), *st = calloc((size_t)g->n + 1, sizeof *st);
	int *kind = calloc((size_t)K, sizeof *kind);
	cr_assert(us && st && kind);
	double v = sc_dp_result_kinds(d, us, kind);
	if (isfinite(v)) {
		sc_units_expand(u, us, st);
		double mine = ts_kind_bottleneck(g, st, kind, K);
		cr_assert(ts_close_rel(mine, v, 1e-9), "%s: the DP says %.17g, its partition %.17g",
		          what, v, mine);
	}
	sc_dp_progress_info p;
	sc_dp_progress(d, &p);
	*evals = p.evals;
	free(us);
	free(st);
	free(kind);
	sc_dp_free(d);
	sc_units_free(u);
	return v;
}

/* The DP with CPU stages pruned by a bound keeps the optimum where the
 * bound binds hardest: with the brute force's optimum as the bound (the
 * tightest a quick search can give) it finds that optimum again, with the
 * strict bound nothing below it, with a looser bound the optimum too.
 * What the pruning rests on is all at work here: the capacity of a CPU
 * stage (the least time it can hold within the bound, ideals.c), the
 * work a branch of the stage search can still reach past the units it
 * passed over, and the ideals no stage within the bound reaches, which
 * the search walks through without making.  CPU times run from 0 to 10
 * against accelerator times of the same range, so a CPU stage is
 * sometimes the cheaper place for an op and sometimes far dearer. */
static void bound_trials(bool training, uint64_t seed, int cases)
{
	ts_rng r = {seed};
	int finite = 0, saved = 0;
	for (int t = 0; t < cases; t++) {
		ts_graph_spec spec = {.n = 4 + ts_below(&r, 3),
		                      .edge_p = 0.2 + 0.5 * ts_uniform(&r),
		                      .group_p = t % 3 == 0 ? 0.3 : 0,
		                      .ngroups = 2,
		                      .integer_weights = t % 2 == 0};
		sc_settings_init(&spec.settings);
		spec.settings.bandwidth = 0.5 + ts_uniform(&r) * 2;
		if (t % 3 != 0) {
			spec.settings.memory = 8 + ts_uniform(&r) * 10;
			spec.settings.policy = t % 3 == 1 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		sc_graph *g0 =
		        training ? ts_random_training_graph(&r, &spec) : ts_random_graph(&r, &spec);
		sc_graph *g = ts_with_cpu_times(&r, g0, spec.integer_weights, t % 4 == 1 ? 0.3 : 0,
		                                t % 4 == 2 ? 0.3 : 0);
		int k = 1 + ts_below(&r, 2), L = 1 + ts_below(&r, 2);
		if (g->n >= 6 && k + L > 3)
			L = 1, k = 2;
		char what[96];
		snprintf(what, sizeof what, "%s case %d (n %d, k %d, L %d, %s)",
		         training ? "training" : "inference", t, g->n, k, L,
		         sc_mem_policy_name(g->settings.policy));
		double want = ts_brute_optimum_cpus(g, k, L, NULL, NULL);
		long plain_evals, evals;
		double plain = bounded_dp(g, k, L, INFINITY, false, &plain_evals, what);
		cr_assert(isinf(want) ? isinf(plain) : ts_close_rel(plain, want, 1e-9),
		          "%s: DP %.17g, brute force %.17g", what, plain, want);
		if (isfinite(want)) {
			finite++;
			double at = bounded_dp(g, k, L, want, false, &evals, what);
			cr_assert(ts_close_rel(at, want, 1e-9),
			          "%s: bound at the optimum %.17g: %.17g", what, want, at);
			cr_assert_leq(evals, plain_evals, "%s", what);
			saved += evals < plain_evals;
			double below = bounded_dp(g, k, L, want, true, &evals, what);
			cr_assert(isinf(below), "%s: strictly below the optimum %.17g: %.17g", what,
			          want, below);
			double loose = bounded_dp(g, k, L, 1.3 * want, false, &evals, what);
			cr_assert(ts_close_rel(loose, want, 1e-9),
			          "%s: a looser bound: %.17g, not %.17g", what, loose, want);
		}
		sc_graph_free(g);
		sc_graph_free(g0);
	}
	cr_log_info("%d cases, %d with a partition, %d pruned", cases, finite, saved);
	cr_assert_gt(finite, cases / 2);
	cr_assert_gt(saved, finite / 4, "the bound saved work in only %d of %d", saved, finite);
}

Test(cpu_exact, a_bound_at_the_optimum_keeps_it_on_inference_graphs, .timeout = 120)
{
	bound_trials(false, 4242, ts_short() ? 30 : 100);
}

Test(cpu_exact, a_bound_at_the_optimum_keeps_it_on_training_graphs, .timeout = 120)
{
	bound_trials(true, 424242, ts_short() ? 30 : 80);
}

/* A chain a -> b -> c of heavy accelerator work: with one CPU fast on b,
 * b goes to the CPU (by hand: the stage costs are a + io, 1 (CPU), c +
 * io).  Worked out: a = 10, b = 10 (CPU 1), c = 10, each tensor 1 at
 * bandwidth 1; with k = 2, L = 0 the best is 20 + 1 = 21 (two ops on one
 * stage), with L = 1: max(10 + 1, 1, 1 + 10) = 11. */
Test(cpu_exact, a_cpu_stage_takes_the_op_it_runs_fast)
{
	sc_builder *b = sc_builder_new();
	sc_error err;
	int a = sc_builder_add_op(b, "a", 10, 0, 1, NULL, &err);
	int m = sc_builder_add_op(b, "b", 10, 0, 1, NULL, &err);
	int c = sc_builder_add_op(b, "c", 10, 0, 1, NULL, &err);
	cr_assert(sc_builder_add_edge(b, a, m, &err) == SC_OK);
	cr_assert(sc_builder_add_edge(b, m, c, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, m, 1, true, true, &err) == SC_OK);
	sc_graph *g = sc_builder_finish(b, "chain", "chain", &err);
	sc_builder_free(b);
	cr_assert(g, "%s", err.msg);
	cr_assert_float_eq(solve(g, 2, 1, true, "chain"), 11, 1e-12);
	cr_assert_float_eq(ts_brute_optimum_cpus(g, 2, 1, NULL, NULL), 11, 1e-12);
	sc_graph_free(g);
}

/* An op no accelerator may hold and no CPU time anywhere else: with one
 * CPU it goes there; the others must stay on accelerators. */
Test(cpu_exact, an_unsupported_op_goes_to_the_cpu)
{
	sc_builder *b = sc_builder_new();
	sc_error err;
	int a = sc_builder_add_op(b, "a", 4, 0, 2, NULL, &err);
	int m = sc_builder_add_op(b, "odd", 1, 0, 2, NULL, &err);
	int c = sc_builder_add_op(b, "c", 4, 0, 0, NULL, &err);
	cr_assert(sc_builder_add_edge(b, a, m, &err) == SC_OK);
	cr_assert(sc_builder_add_edge(b, m, c, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, m, 3, true, false, &err) == SC_OK);
	sc_graph *g = sc_builder_finish(b, "odd", "odd", &err);
	sc_builder_free(b);
	cr_assert(g);
	/* a: 4 + 2 out; odd on the CPU: 3; c: 2 in + 4 */
	cr_assert_float_eq(solve(g, 2, 1, true, "odd"), 6, 1e-12);
	/* one accelerator: a and c would share it around the CPU stage, which
	 * the pipeline order forbids (a stage holds a contiguous piece), and
	 * neither has a CPU time: nothing fits */
	cr_assert(isinf(solve(g, 1, 1, false, "odd k=1")));
	cr_assert(isinf(ts_brute_optimum_cpus(g, 1, 1, NULL, NULL)));
	sc_graph_free(g);
}

/* With CPU stages the contraction leaves a zero-work unit with CPU time
 * alone (moving it onto a CPU stage would add its time), and joins one of
 * zero CPU time as before. */
Test(cpu_exact, contraction_keeps_units_of_cpu_time)
{
	sc_builder *b = sc_builder_new();
	sc_error err;
	int s0 = sc_builder_add_op(b, "src", 0, 0, 0, NULL, &err); /* zero everything */
	int z = sc_builder_add_op(b, "zero_cpu_busy", 0, 0, 0, NULL, &err);
	int a = sc_builder_add_op(b, "a", 5, 0, 1, NULL, &err);
	cr_assert(sc_builder_add_edge(b, s0, a, &err) == SC_OK);
	cr_assert(sc_builder_add_edge(b, a, z, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, s0, 0, true, true, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, z, 7, true, true, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, a, 5, true, true, &err) == SC_OK);
	sc_graph *g = sc_builder_finish(b, "zeros", "zeros", &err);
	sc_builder_free(b);
	cr_assert(g);
	sc_settings set = g->settings;
	set.k = 2;
	sc_units *u0 = sc_units_new(g, true, &set, &err);
	set.cpus = 1;
	sc_units *u1 = sc_units_new(g, true, &set, &err);
	cr_assert(u0 && u1);
	cr_assert_eq(u0->n, 1, "without CPUs both zero-work ops join a");
	cr_assert_eq(u1->n, 2, "with CPUs only src joins: %d units", u1->n);
	cr_assert_neq(u1->unit_of[z], u1->unit_of[a]);
	cr_assert_eq(u1->unit_of[s0], u1->unit_of[a]);
	sc_units_free(u0);
	sc_units_free(u1);
	sc_graph_free(g);
}

/* Every row of REFERENCE-CPU.tsv: the optimum to a relative 1e-9, with a
 * partition the independent model confirms (also on the rows whose printed
 * partition failed the published program's own check). */
Test(cpu_exact, reproduces_the_published_cpu_optima, .timeout = 300)
{
	FILE *f = fopen("samples/msr-fiddle/REFERENCE-CPU.tsv", "r");
	cr_assert(f, "cannot open samples/msr-fiddle/REFERENCE-CPU.tsv");
	char line[1024], last[300] = "";
	int rows = 0;
	sc_graph *g = NULL;
	cr_assert(fgets(line, sizeof line, f)); /* header */
	while (fgets(line, sizeof line, f)) {
		char graph[256], path[300];
		int k, L;
		double want, secs;
		cr_assert_eq(sscanf(line, "%255s %d %d %lf %lf", graph, &k, &L, &want, &secs), 5,
		             "%s", line);
		rows++;
		/* under the sanitizers (short), the layer graphs only */
		if (ts_short() && strncmp(graph, "layer/", 6) != 0)
			continue;
		snprintf(path, sizeof path, "samples/msr-fiddle/%s", graph);
		if (strcmp(path, last) != 0) {
			sc_graph_free(g);
			g = ts_load(path);
			snprintf(last, sizeof last, "%s", path);
		}
		char what[300];
		snprintf(what, sizeof what, "%s k=%d cpus=%d", graph, k, L);
		double t0 = sc_clock_now();
		double got = solve(g, k, L, false, what);
		cr_assert(fabs(got - want) <= 1e-9 * want, "%s: exact %.17g, published %.17g", what,
		          got, want);
		cr_log_info("%s: %.17g in %.3f s (published %.2f s)", what, got,
		            sc_clock_now() - t0, secs);
	}
	fclose(f);
	sc_graph_free(g);
	cr_assert_eq(rows, 40);
}
