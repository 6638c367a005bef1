/*
 * test_ladder_cpus.c - the ladder with CPU stages (001 section 3;
 * ladder.h, simple.h, mip_model_cpu.c).
 *
 * Every rung stays at or below the optimum with CPU stages: on small
 * random graphs (inference and 1F1B training, groups, both memory
 * policies, ops no accelerator may hold, ops without a CPU time) against
 * the exact DP with CPU stages (dp_exact.h) and the brute force of
 * tests/support.c, the exact MIP equal to it; on the rows of
 * samples/msr-fiddle/REFERENCE-CPU.tsv against the published optima.  The
 * fractional simple bound on a case worked out by hand, and the ladder on
 * the engine (the cover rung skipped with its reason, the exact MIP's
 * partition taken with its devices).
 */
#define _POSIX_C_SOURCE 200809L
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/partition.h"
#include "solvers/dp_exact.h"
#include "solvers/jobs.h"
#include "solvers/ladder.h"
#include "solvers/mip.h"
#include "solvers/simple.h"
#include "tests/support.h"

/* One MIP rung in this process; its bound.  *res_out (may be NULL) keeps
 * the result (the caller frees its arrays). */
static double mip(const sc_graph *g, int k, int L, sc_rung r, int j, double lower, double limit,
                  sc_mip_result *res_out)
{
	sc_settings set = g->settings;
	set.k = k;
	set.cpus = L;
	sc_mip_params p = {.rung = r,
	                   .k = k,
	                   .guess = j,
	                   .lower = lower,
	                   .upper = INFINITY,
	                   .time_limit = limit};
	sc_mip_result res;
	sc_error err;
	cr_assert_eq(sc_mip_solve(g, &set, &p, NULL, NULL, &res, &err), SC_OK, "%s: %s",
	             sc_rung_name(r), err.msg);
	if (res_out) {
		*res_out = res;
	} else {
		free(res.stages);
		free(res.stage_kind);
	}
	return res.bound;
}

/* The exact rung from lower, with the cutoff upper; its bound. */
static double mip_upper(const sc_graph *g, int k, int L, double lower, double upper)
{
	sc_settings set = g->settings;
	set.k = k;
	set.cpus = L;
	sc_mip_params p = {.rung = SC_RUNG_EXACT, .k = k, .lower = lower, .upper = upper};
	sc_mip_result res;
	sc_error err;
	cr_assert_eq(sc_mip_solve(g, &set, &p, NULL, NULL, &res, &err), SC_OK, "%s", err.msg);
	cr_assert_eq(res.status, SC_MIP_OPTIMAL);
	free(res.stages);
	free(res.stage_kind);
	return res.bound;
}

static double simple_cpus(const sc_graph *g, int k, int L)
{
	double b;
	sc_error err;
	cr_assert_eq(sc_bound_simple_cpus(g, k, L, &b, &err), SC_OK);
	return b;
}

/* Ops a..d with no edge: a (accelerator 6, CPU 3) and b (2, 4) either
 * device may hold, c only an accelerator (4), d only a CPU (2).  By hand,
 * k = 1, L = 1: the accelerator holds c (4) and the CPU d (2); b saves the
 * most CPU time per unit of accelerator work (2 against a's 0.5), so it
 * goes over first: at B the accelerator holds 4 + share * 2 = B and the
 * CPU 2 + 3 + (1 - share) * 4 = B, so 4 + 2 share = 9 - 4 share, share =
 * 5/6, B = 17/3.  k = 2, L = 1: b whole (4 + 2 = 6 <= 2 B from B = 3),
 * then a: 6 + 6 s = 2 B and 2 + 3 (1 - s) = B give s = 1/3, B = 4, which
 * equals c's 4.  L = 0: d has nowhere to go. */
static sc_graph *four_ops(bool chain)
{
	sc_builder *b = sc_builder_new();
	sc_error err;
	int a = sc_builder_add_op(b, "a", 6, 0, 1, NULL, &err);
	int x = sc_builder_add_op(b, "b", 2, 0, 1, NULL, &err);
	int c = sc_builder_add_op(b, "c", 4, 0, 1, NULL, &err);
	int d = sc_builder_add_op(b, "d", 0, 0, 1, NULL, &err);
	cr_assert(sc_builder_set_devices(b, a, 3, true, true, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, x, 4, true, true, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, d, 2, true, false, &err) == SC_OK);
	if (chain) {
		cr_assert(sc_builder_add_edge(b, a, x, &err) == SC_OK);
		cr_assert(sc_builder_add_edge(b, x, c, &err) == SC_OK);
		cr_assert(sc_builder_add_edge(b, c, d, &err) == SC_OK);
	}
	sc_graph *g = sc_builder_finish(b, "four", "four", &err);
	sc_builder_free(b);
	cr_assert(g, "%s", err.msg);
	return g;
}

Test(ladder_cpus, fractional_simple_bound_by_hand)
{
	sc_graph *g = four_ops(false);
	cr_assert_float_eq(simple_cpus(g, 1, 1), 17.0 / 3, 1e-12);
	cr_assert_float_eq(simple_cpus(g, 2, 1), 4, 1e-12);
	cr_assert(isinf(simple_cpus(g, 1, 0)), "d may only go to a CPU");
	/* two CPUs: at B = 4 (c alone on the accelerator) the CPUs hold 9 >
	 * 2 * 4; b goes over first: 4 + 2 s = B and 9 - 4 s = 2 B give s =
	 * 1/8, B = 4.25 */
	cr_assert_float_eq(simple_cpus(g, 1, 2), 4.25, 1e-12);
	/* never above the optimum, on the chain a -> b -> c -> d too */
	sc_graph *h = four_ops(true);
	for (int k = 1; k <= 2; k++)
		for (int L = 1; L <= 2; L++) {
			double opt = ts_brute_optimum_cpus(h, k, L, NULL, NULL);
			cr_assert_leq(simple_cpus(h, k, L), opt * (1 + 1e-12), "k %d L %d", k, L);
		}
	sc_graph_free(h);
	sc_graph_free(g);
}

/* The exact rung by hand.  a -> b -> c, each of work 10 with a tensor of 5
 * out, b also 14 on a CPU; k = 2, L = 1.  On a CPU b costs 14 and pays
 * no io; a and c then cost 10 + 5 each: the optimum is 15, stages (a) on
 * an accelerator, (b) on the CPU, (c) on an accelerator.  Without the
 * CPU, the best split costs 10 + 10 + 5 = 25. */
Test(ladder_cpus, exact_rung_by_hand)
{
	sc_builder *bld = sc_builder_new();
	sc_error err;
	int a = sc_builder_add_op(bld, "a", 10, 0, 5, NULL, &err);
	int b = sc_builder_add_op(bld, "b", 10, 0, 5, NULL, &err);
	int c = sc_builder_add_op(bld, "c", 10, 0, 0, NULL, &err);
	cr_assert(sc_builder_add_edge(bld, a, b, &err) == SC_OK);
	cr_assert(sc_builder_add_edge(bld, b, c, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(bld, b, 14, true, true, &err) == SC_OK);
	sc_graph *g = sc_builder_finish(bld, "abc", "abc", &err);
	sc_builder_free(bld);
	cr_assert(g, "%s", err.msg);
	sc_mip_result ex;
	cr_assert_float_eq(mip(g, 2, 1, SC_RUNG_EXACT, 0, 0, 0, &ex), 15, 1e-6);
	cr_assert(ex.stages && ex.stage_kind);
	cr_assert(ex.stage_kind[ex.stages[a]] == 0 && ex.stage_kind[ex.stages[b]] == 1 &&
	          ex.stage_kind[ex.stages[c]] == 0);
	cr_assert(ex.stages[a] < ex.stages[b] && ex.stages[b] < ex.stages[c]);
	free(ex.stages);
	free(ex.stage_kind);
	cr_assert_leq(mip(g, 2, 1, SC_RUNG_BOTTLENECK, 0, 0, 0, NULL), 15 + 1e-6);
	for (int j = 1; j <= 2; j++)
		cr_assert_leq(mip(g, 2, 1, SC_RUNG_GUESS, j, 0, 0, NULL), 15 + 1e-6);
	sc_graph_free(g);
	/* Two CPUs pay no io between them: p -> q, each 5 on a CPU (100 on
	 * an accelerator) with a tensor of 12 between them, and e only on an
	 * accelerator (6); k = 1, L = 2.  p and q on CPUs of their own cost 5
	 * each, e 6: the optimum is 6 (together on one CPU they would cost 10,
	 * and on the accelerator 100 or more). */
	bld = sc_builder_new();
	int p = sc_builder_add_op(bld, "p", 100, 0, 12, NULL, &err);
	int q = sc_builder_add_op(bld, "q", 100, 0, 0, NULL, &err);
	int e = sc_builder_add_op(bld, "e", 6, 0, 0, NULL, &err);
	cr_assert(sc_builder_add_edge(bld, p, q, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(bld, p, 5, true, true, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(bld, q, 5, true, true, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(bld, e, 0, false, true, &err) == SC_OK);
	g = sc_builder_finish(bld, "pq", "pq", &err);
	sc_builder_free(bld);
	cr_assert(g, "%s", err.msg);
	cr_assert_float_eq(mip(g, 1, 2, SC_RUNG_EXACT, 0, 0, 0, &ex), 6, 1e-6);
	cr_assert(ex.stage_kind[ex.stages[p]] == 1 && ex.stage_kind[ex.stages[q]] == 1 &&
	          ex.stage_kind[ex.stages[e]] == 0 && ex.stages[p] < ex.stages[q]);
	free(ex.stages);
	free(ex.stage_kind);
	sc_graph_free(g);
}

/* Random graphs: every rung at or below the exact DP's optimum (and the
 * brute force's), the exact MIP equal to it. */
static void against_optimum(bool training, uint64_t seed, int cases)
{
	ts_rng r = {seed};
	int finite = 0, above_simple = 0, refused = 0, no_cpu = 0;
	for (int t = 0; t < cases; t++) {
		ts_graph_spec spec = {.n = 4 + ts_below(&r, 3),
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
		double no_cpu_p = t % 4 == 1 ? 0.3 : 0, no_accel_p = t % 4 >= 2 ? 0.3 : 0;
		sc_graph *g = ts_with_cpu_times(&r, g0, spec.integer_weights, no_cpu_p, no_accel_p);
		refused += g->accel_refused > 0;
		for (int v = 0; v < g->n; v++)
			no_cpu += !sc_graph_cpu_ok(g, v);
		int k = 1 + ts_below(&r, 2), L = 1 + ts_below(&r, 2);
		if (g->n >= 6 && k + L > 3)
			L = 1, k = 2;
		char what[96];
		snprintf(what, sizeof what, "%s case %d (n %d, k %d, L %d, %s)",
		         training ? "training" : "inference", t, g->n, k, L,
		         sc_mem_policy_name(g->settings.policy));
		double opt = ts_cpu_optimum(g, k, L);
		double brute = ts_brute_optimum_cpus(g, k, L, NULL, NULL);
		cr_assert(isinf(opt) ? isinf(brute) : ts_close_rel(opt, brute, 1e-9),
		          "%s: DP %.17g, brute force %.17g", what, opt, brute);
		double tol = isfinite(opt) ? 1e-6 * opt + 1e-9 : 0;
		double simple = simple_cpus(g, k, L);
		if (isfinite(opt))
			cr_assert_leq(simple, opt + tol, "%s: simple %.10g > optimum %.10g", what,
			              simple, opt);
		double lo = isfinite(simple) ? simple : 0;
		double bn = mip(g, k, L, SC_RUNG_BOTTLENECK, 0, lo, 0, NULL);
		double guess = INFINITY;
		for (int j = 1; j <= k; j++) {
			double b = mip(g, k, L, SC_RUNG_GUESS, j, lo, 0, NULL);
			if (isfinite(opt))
				cr_assert_geq(b, bn - 1e-6 * (1 + bn),
				              "%s: guess %d %.10g under the bottleneck MIP %.10g",
				              what, j, b, bn);
			guess = fmin(guess, b);
		}
		sc_mip_result ex;
		double exact = mip(g, k, L, SC_RUNG_EXACT, 0, 0, 0, &ex);
		if (isfinite(opt)) {
			finite++;
			cr_assert_leq(bn, opt + tol, "%s: bottleneck %.10g > optimum %.10g", what,
			              bn, opt);
			cr_assert_leq(guess, opt + tol, "%s: guess %.10g > optimum %.10g", what,
			              guess, opt);
			cr_assert(fabs(exact - opt) <= tol, "%s: exact MIP %.10g, optimum %.10g",
			          what, exact, opt);
			/* its partition, with its devices, costs the optimum */
			cr_assert(ex.stages && ex.stage_kind, "%s: no partition", what);
			double mine = ts_kind_bottleneck(g, ex.stages, ex.stage_kind, k + L);
			cr_assert(fabs(mine - opt) <= tol, "%s: the MIP's partition costs %.10g",
			          what, mine);
			above_simple += fmax(bn, guess) > simple * (1 + 1e-6);
		} else {
			cr_assert(isinf(exact), "%s: nothing fits, the exact MIP says %g", what,
			          exact);
		}
		free(ex.stages);
		free(ex.stage_kind);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
	cr_log_info("%d cases, %d finite, %d above the simple bound", cases, finite, above_simple);
	cr_assert_gt(finite, cases / 2);
	if (!ts_short()) {
		cr_assert_gt(refused, 0);
		cr_assert_gt(no_cpu, 0);
		cr_assert_gt(above_simple, 0, "the MIP rungs never beat the simple bound");
	}
}

Test(ladder_cpus, rungs_bound_the_optimum_on_inference_graphs, .timeout = 120)
{
	against_optimum(false, 2902, ts_short() ? 4 : 10);
}

Test(ladder_cpus, rungs_bound_the_optimum_on_training_graphs, .timeout = 120)
{
	against_optimum(true, 2903, ts_short() ? 3 : 6);
}

/* Every row of REFERENCE-CPU.tsv: the simple bound at or below the
 * published optimum; on bert24's inference row with one CPU and k = 2
 * (solved in a moment) the MIP rungs too, the exact one equal to it from
 * a cutoff 5 % above (so it finds the optimum itself).  The whole table,
 * every rung with its time limit, is perf/perf_cpus.c's (make bench). */
Test(ladder_cpus, rungs_bound_the_published_cpu_optima, .timeout = 120)
{
	FILE *f = fopen("samples/msr-fiddle/REFERENCE-CPU.tsv", "r");
	cr_assert(f, "cannot open samples/msr-fiddle/REFERENCE-CPU.tsv");
	char line[1024], last[300] = "";
	int rows = 0, solved = 0;
	sc_graph *g = NULL;
	cr_assert(fgets(line, sizeof line, f)); /* header */
	while (fgets(line, sizeof line, f)) {
		char graph[256], path[300];
		int k, L;
		double want, secs;
		cr_assert_eq(sscanf(line, "%255s %d %d %lf %lf", graph, &k, &L, &want, &secs), 5,
		             "%s", line);
		rows++;
		snprintf(path, sizeof path, "samples/msr-fiddle/%s", graph);
		if (strcmp(path, last) != 0) {
			sc_graph_free(g);
			g = ts_load(path);
			snprintf(last, sizeof last, "%s", path);
		}
		double tol = 1e-6 * want;
		double simple = simple_cpus(g, k, L);
		cr_assert_leq(simple, want + tol, "%s k=%d cpus=%d: simple %.10g > optimum %.10g",
		              graph, k, L, simple, want);
		if (strcmp(graph, "layer/bert24_inference.json") != 0 || k != 2 || L != 1)
			continue;
		double bn = mip(g, k, L, SC_RUNG_BOTTLENECK, 0, simple, 10, NULL);
		cr_assert_leq(bn, want + tol, "%s k=%d cpus=%d: bottleneck %.10g", graph, k, L, bn);
		double guess = INFINITY;
		for (int j = 1; j <= k; j++)
			guess = fmin(guess,
			             mip(g, k, L, SC_RUNG_GUESS, j, fmax(simple, bn), 10, NULL));
		cr_assert_leq(guess, want + tol, "%s k=%d cpus=%d: guess %.10g", graph, k, L,
		              guess);
		double exact = mip_upper(g, k, L, fmax(bn, guess), 1.05 * want);
		cr_assert(fabs(exact - want) <= tol,
		          "%s k=%d cpus=%d: exact MIP %.10g, published %.10g", graph, k, L, exact,
		          want);
		solved++;
	}
	fclose(f);
	sc_graph_free(g);
	cr_assert_eq(rows, 40);
	cr_assert_eq(solved, 1);
}

/* The ladder on the engine with CPU stages: from nothing, every rung at
 * or below the optimum, the cover rung skipped with its reason and no
 * value, and the exact MIP's partition (with its devices) the new upper
 * bound at the optimum; from the DP's partition with its devices, stop
 * at proof ends it proven. */
Test(ladder_cpus, the_ladder_on_the_engine, .timeout = 120)
{
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	cr_assert(e, "%s", err.msg);
	ts_rng r = {290};
	for (int t = 0; t < 2; t++) {
		sc_graph *g0 = NULL, *g = NULL;
		int k = 2, L = 1;
		double opt = INFINITY;
		if (t == 0) {
			g = four_ops(true);
			opt = ts_cpu_optimum(g, k, L);
		}
		/* a random graph that fits (the first of a few) */
		for (int tries = 0; t > 0 && isinf(opt) && tries < 20; tries++) {
			if (tries > 0) {
				sc_graph_free(g);
				sc_graph_free(g0);
			}
			ts_graph_spec spec = {.n = 5, .edge_p = 0.4, .group_p = 0.3, .ngroups = 2};
			sc_settings_init(&spec.settings);
			spec.settings.memory = 15;
			spec.settings.policy = t == 1 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
			g0 = ts_random_graph(&r, &spec);
			g = ts_with_cpu_times(&r, g0, false, 0.2, 0.2);
			opt = ts_cpu_optimum(g, k, L);
		}
		cr_assert(isfinite(opt), "case %d fits", t);
		sc_settings set = g->settings;
		set.k = k;
		set.cpus = L;
		sc_ladder_params lp = {.rungs = SC_RUNGS_ALL, .time_limit = 30, .upper = INFINITY};
		sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
		cr_assert(l, "%s", err.msg);
		cr_assert_eq(sc_ladder_cpus(l), 1);
		ts_run_ladder(l, e);
		for (int rg = 0; rg < SC_RUNG_COUNT; rg++) {
			sc_rung_info ri;
			sc_ladder_info(l, (sc_rung)rg, &ri);
			if (rg == SC_RUNG_COVER) {
				cr_assert_eq(ri.state, SC_RS_SKIPPED);
				cr_assert(isnan(ri.value));
				cr_assert(strstr(ri.message, "no CPU version"), "%s", ri.message);
				continue;
			}
			cr_assert_eq(ri.state, SC_RS_DONE, "case %d %s: %s %s", t,
			             sc_rung_name((sc_rung)rg), sc_rung_state_name(ri.state),
			             ri.message);
			cr_assert_leq(ri.value, opt * (1 + 1e-6) + 1e-9, "case %d %s %.10g > %.10g",
			              t, sc_rung_name((sc_rung)rg), ri.value, opt);
		}
		sc_rung_info ex;
		sc_ladder_info(l, SC_RUNG_EXACT, &ex);
		cr_assert_float_eq(ex.value, opt, 1e-6 * (1 + opt));
		cr_assert_float_eq(sc_ladder_lower(l), opt, 1e-6 * (1 + opt));
		int *stage = calloc((size_t)g->n, sizeof *stage);
		int kind[3];
		double up = sc_ladder_upper_kinds(l, stage, kind);
		cr_assert_float_eq(up, opt, 1e-6 * (1 + opt), "case %d: upper %g", t, up);
		cr_assert_float_eq(ts_kind_bottleneck(g, stage, kind, k + L), opt,
		                   1e-6 * (1 + opt));
		sc_ladder_free(l);
		/* from that partition and its devices, stop at proof */
		lp = (sc_ladder_params){.rungs = SC_RUNGS_ALL,
		                        .time_limit = 30,
		                        .upper = up,
		                        .start = stage,
		                        .start_kind = kind,
		                        .stop_at_proof = true};
		l = sc_ladder_new(e, g, &set, &lp, &err);
		cr_assert(l, "%s", err.msg);
		ts_run_ladder(l, e);
		const char *by = NULL;
		cr_assert(sc_ladder_proven(l, &by), "case %d: not proven", t);
		sc_ladder_free(l);
		free(stage);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
	sc_engine_free(e);
	ts_assert_no_children();
}

/* More stages than ops (k = 6, L = 5 on four ops): the ladder works with
 * 4 accelerator and 4 CPU stages, takes the DP's partition over 11
 * stages as its start (renumbered with its devices) and proves it. */
Test(ladder_cpus, more_stages_than_ops, .timeout = 60)
{
	sc_error err;
	sc_engine *e = sc_engine_new(2, &err);
	sc_graph *g = four_ops(true);
	int k = 6, L = 5;
	sc_settings set = g->settings;
	set.k = k;
	set.cpus = L;
	sc_search_params p;
	sc_search_params_init(&p);
	int stage[4];
	int kind[11];
	sc_dp_exact_info info;
	cr_assert_eq(sc_dp_exact(g, &set, &p, stage, kind, &info, &err), SC_OK, "%s", err.msg);
	sc_ladder_params lp = {.rungs = SC_RUNGS_ALL,
	                       .time_limit = 30,
	                       .upper = info.optimum,
	                       .start = stage,
	                       .start_kind = kind};
	sc_ladder *l = sc_ladder_new(e, g, &set, &lp, &err);
	cr_assert(l, "%s", err.msg);
	cr_assert_eq(sc_ladder_stages(l), 4);
	cr_assert_eq(sc_ladder_cpus(l), 4);
	ts_run_ladder(l, e);
	cr_assert(sc_ladder_proven(l, NULL));
	int s2[4];
	int c2[8];
	cr_assert_float_eq(sc_ladder_upper_kinds(l, s2, c2), info.optimum, 1e-9);
	cr_assert_float_eq(ts_kind_bottleneck(g, s2, c2, 8), info.optimum, 1e-9);
	sc_ladder_free(l);
	sc_graph_free(g);
	sc_engine_free(e);
	ts_assert_no_children();
}
