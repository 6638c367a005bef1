/*
 * test_slice_cpu.c - SliceGraph with CPU stages (solvers/slice_cpu.c;
 * 001 section 3) against a brute force over every segmentation of the order
 * into k + L positions and every placement of the L CPU stages among them,
 * costed by the independent model of tests/support.c (ts_cpu_bottleneck):
 * inference and training graphs, groups, both memory policies, ops without
 * a CPU time and ops no accelerator may hold; with and without cutoffs;
 * the split returned costs what the slicer says and names exactly L CPU
 * stages.  Then a hand-computed chain, and the equal-work baseline.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solvers/order.h"
#include "solvers/slice.h"
#include "solvers/units.h"
#include "tests/support.h"

/* The least bottleneck over every split of order (units of u) into k + L
 * positions, each position's device given by a mask with L bits set, by
 * the model of ts_cpu_bottleneck. */

/* The slicer's kinds as CPU flags (the test model's), or NULL without CPU
 * stages; valid until the next call. */
static const bool *cpu_of(const sc_slicer *s, int K)
{
	static bool flags[64];
	const int *kind = sc_slicer_kinds(s);
	cr_assert(K <= 64);
	if (!kind)
		return NULL;
	for (int i = 0; i < K; i++) {
		cr_assert(kind[i] == SC_SLICE_CPU || kind[i] == SC_SLICE_ACCEL);
		flags[i] = kind[i] == SC_SLICE_CPU;
	}
	return flags;
}

static double brute_slice_cpus(const sc_graph *g, const sc_units *u, const int *order, int k, int L)
{
	int n = u->n, K = k + L;
	int *seq = calloc((size_t)n, sizeof *seq), *us = malloc((size_t)n * sizeof *us);
	int *os = malloc((size_t)g->n * sizeof *os);
	bool *cpu = calloc((size_t)K, sizeof *cpu);
	cr_assert(seq && us && os && cpu);
	double best = INFINITY;
	for (unsigned mask = 0; mask < (1u << K); mask++) {
		if (__builtin_popcount(mask) != L)
			continue;
		for (int s = 0; s < K; s++)
			cpu[s] = (mask >> s) & 1;
		memset(seq, 0, (size_t)n * sizeof *seq);
		for (;;) {
			bool mono = true;
			for (int p = 1; p < n; p++)
				mono &= seq[p] >= seq[p - 1];
			if (mono) {
				for (int p = 0; p < n; p++)
					us[order[p]] = seq[p];
				sc_units_expand(u, us, os);
				double v = ts_cpu_bottleneck(g, os, cpu, K);
				cr_assert(!isnan(v),
				          "a contiguous split of a topological order is valid");
				best = fmin(best, v);
			}
			int i = n - 1;
			while (i >= 0 && ++seq[i] == K)
				seq[i--] = 0;
			if (i < 0)
				break;
		}
	}
	free(seq);
	free(us);
	free(os);
	free(cpu);
	return best;
}

/* The cost of the split us with the slicer's devices, by the independent
 * model; asserts exactly L CPU stages. */
static double split_cost(const sc_graph *g, const sc_units *u, const sc_slicer *s, const int *us,
                         int k, int L)
{
	const bool *cpu = cpu_of(s, k + L);
	cr_assert(cpu);
	int ncpu = 0;
	for (int i = 0; i < k + L; i++)
		ncpu += cpu[i];
	cr_assert_eq(ncpu, L, "%d CPU stages, not %d", ncpu, L);
	int *os = malloc((size_t)g->n * sizeof *os);
	sc_units_expand(u, us, os);
	double v = ts_cpu_bottleneck(g, os, cpu, k + L);
	free(os);
	return v;
}

static bool near(double a, double b)
{
	return isinf(a) ? isinf(b) : fabs(a - b) <= 1e-9 * (1 + fabs(b));
}

/* Slices a random order of each of `cases` random graphs with CPU times
 * against every segmentation. */
static void every_segmentation(uint64_t seed, bool training, int cases)
{
	ts_rng r = {seed};
	int finite = 0, used_cpu = 0;
	for (int t = 0; t < cases; t++) {
		ts_graph_spec spec = {.n = 1 + ts_below(&r, 7),
		                      .edge_p = ts_uniform(&r) * 0.6,
		                      .group_p = ts_uniform(&r) < 0.3 ? 0.3 : 0,
		                      .ngroups = 2,
		                      .integer_weights = t % 2 == 0};
		sc_settings_init(&spec.settings);
		spec.settings.bandwidth = 0.5 + ts_uniform(&r) * 2;
		double x = ts_uniform(&r);
		if (x < 0.6) {
			spec.settings.memory = 5 + ts_uniform(&r) * 25;
			spec.settings.policy = x < 0.3 ? SC_MEM_HARD : SC_MEM_OVERFLOW;
		}
		sc_graph *g0 =
		        training ? ts_random_training_graph(&r, &spec) : ts_random_graph(&r, &spec);
		sc_graph *g = ts_with_cpu_times(&r, g0, spec.integer_weights, t % 3 == 1 ? 0.3 : 0,
		                                t % 3 == 2 ? 0.25 : 0);
		int k = 1 + ts_below(&r, 2), L = 1 + ts_below(&r, 2);
		sc_settings set = g->settings;
		set.k = k;
		set.cpus = L;
		sc_units *u = sc_units_new(g, false, &set, NULL);
		cr_assert(u);
		sc_slicer *s = sc_slicer_new(u, &set, NULL);
		sc_orderer *o = sc_orderer_new(u, NULL);
		double *prio = malloc((size_t)u->n * sizeof *prio);
		int *order = malloc((size_t)u->n * sizeof *order),
		    *us = malloc((size_t)u->n * sizeof *us);
		cr_assert(s && o && prio && order && us);
		for (int i = 0; i < u->n; i++)
			prio[i] = ts_uniform(&r);
		sc_order_kahn(o, prio, order);
		char what[128];
		snprintf(what, sizeof what, "%s case %d (units %d, k %d, L %d, %s)",
		         training ? "training" : "inference", t, u->n, k, L,
		         sc_mem_policy_name(g->settings.policy));
		double want = brute_slice_cpus(g, u, order, k, L);
		double got = sc_slice(s, order, INFINITY, us);
		cr_assert(near(got, want), "%s: slice %.17g, brute force %.17g", what, got, want);
		if (isfinite(want)) {
			finite++;
			cr_assert(near(split_cost(g, u, s, us, k, L), got),
			          "%s: the split costs what slice says", what);
			int K = k + L;
			for (int i = 0; i < K; i++)
				for (int p = 0; p < u->n; p++)
					used_cpu += cpu_of(s, K)[i] && us[p] == i;
			/* a cutoff above the optimum: exact, and a split that costs it */
			double v = sc_slice(s, order, want * 1.5 + 1, us);
			cr_assert(near(v, want), "%s: cutoff above: %.17g", what, v);
			cr_assert(near(split_cost(g, u, s, us, k, L), v));
			/* just above: the narrowest windows */
			v = sc_slice(s, order, want * (1 + 1e-9) + 1e-12, us);
			cr_assert(near(v, want), "%s: cutoff at: %.17g", what, v);
			/* below: some split above the cutoff, or INFINITY */
			double cut = want * 0.7;
			v = sc_slice(s, order, cut, us);
			cr_assert_geq(v, want * (1 - 1e-12), "%s", what);
			if (isfinite(v) && want > 0)
				cr_assert(near(split_cost(g, u, s, us, k, L), v));
		}
		free(prio);
		free(order);
		free(us);
		sc_orderer_free(o);
		sc_slicer_free(s);
		sc_units_free(u);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
	cr_log_info("%d cases, %d with a split, %d units on CPUs", cases, finite, used_cpu);
	cr_assert_gt(finite, cases / 2);
	cr_assert_gt(used_cpu, 0, "the CPU stages were never used");
}

Test(slice_cpu, matches_every_segmentation_on_inference_graphs, .timeout = 120)
{
	every_segmentation(290, false, ts_trials(300));
}

Test(slice_cpu, matches_every_segmentation_on_training_graphs, .timeout = 120)
{
	every_segmentation(2902, true, ts_trials(200));
}

/* A chain a -> b -> c, 10 units of work each, tensors of 1 at bandwidth
 * 1; b runs in 1 on a CPU, c has no CPU time, a may not go to an
 * accelerator (CPU time 4).  k = 1, L = 1: a on the CPU with b (5), c on
 * the accelerator (1 in + 10 = 11); k = 1, L = 2 changes nothing (a and b
 * may share the CPU stage, or split over two: still 11).  By hand. */
Test(slice_cpu, a_chain_by_hand)
{
	sc_builder *b = sc_builder_new();
	sc_error err;
	int a = sc_builder_add_op(b, "a", 10, 0, 1, NULL, &err);
	int m = sc_builder_add_op(b, "b", 10, 0, 1, NULL, &err);
	int c = sc_builder_add_op(b, "c", 10, 0, 1, NULL, &err);
	cr_assert(sc_builder_add_edge(b, a, m, &err) == SC_OK);
	cr_assert(sc_builder_add_edge(b, m, c, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, a, 4, true, false, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, m, 1, true, true, &err) == SC_OK);
	cr_assert(sc_builder_set_devices(b, c, 0, false, true, &err) == SC_OK);
	sc_graph *g = sc_builder_finish(b, "chain", "chain", &err);
	sc_builder_free(b);
	cr_assert(g, "%s", err.msg);
	for (int L = 1; L <= 2; L++) {
		sc_settings set = g->settings;
		set.k = 1;
		set.cpus = L;
		sc_units *u = sc_units_new(g, false, &set, NULL);
		sc_slicer *s = sc_slicer_new(u, &set, NULL);
		int order[3] = {u->unit_of[a], u->unit_of[m], u->unit_of[c]}, us[3];
		cr_assert_float_eq(sc_slice(s, order, INFINITY, us), 11, 1e-12);
		const bool *cpu = cpu_of(s, 1 + L);
		cr_assert(cpu[us[order[0]]] && cpu[us[order[1]]] && !cpu[us[order[2]]]);
		/* the baseline: a needs a CPU, so it is the best split by device */
		cr_assert_float_eq(sc_slice_equal_work(s, order, us), 11, 1e-12);
		sc_slicer_free(s);
		sc_units_free(u);
	}
	sc_graph_free(g);
}

/* When every op may go to an accelerator the baseline leaves the CPU
 * stages empty, and costs what the slicer without CPU stages says. */
Test(slice_cpu, the_baseline_keeps_the_cpus_empty)
{
	ts_rng r = {77};
	for (int t = 0; t < 20; t++) {
		ts_graph_spec spec = {.n = 3 + ts_below(&r, 6), .edge_p = 0.4};
		sc_settings_init(&spec.settings);
		sc_graph *g0 = ts_random_graph(&r, &spec);
		sc_graph *g = ts_with_cpu_times(&r, g0, false, 0.2, 0);
		sc_settings set = g->settings, set0;
		set.k = 2;
		set0 = set;
		set.cpus = 1;
		sc_units *u = sc_units_new(g, false, &set, NULL);
		sc_slicer *s = sc_slicer_new(u, &set, NULL), *s0 = sc_slicer_new(u, &set0, NULL);
		cr_assert(u && s && s0);
		cr_assert_null(sc_slicer_kinds(s0));
		int *us = malloc((size_t)u->n * sizeof *us),
		    *us0 = malloc((size_t)u->n * sizeof *us0);
		double v = sc_slice_equal_work(s, u->topo, us);
		double v0 = sc_slice_equal_work(s0, u->topo, us0);
		cr_assert_float_eq(v, v0, 1e-12);
		cr_assert_arr_eq(us, us0, (size_t)u->n * sizeof *us);
		const bool *cpu = cpu_of(s, 3);
		cr_assert(!cpu[0] && !cpu[1] && cpu[2]);
		free(us);
		free(us0);
		sc_slicer_free(s);
		sc_slicer_free(s0);
		sc_units_free(u);
		sc_graph_free(g);
		sc_graph_free(g0);
	}
}
