/*
 * support_mip.c - the oracle of the three-block MIP relaxations (the
 * bottleneck and guess rungs, 000 sections 3.2-3.3), by enumeration, shared
 * by the inference and the training MIP tests.  See support.h.
 */
#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "core/cost.h"
#include "solvers/units.h"

/* A superblock of `stages` stages: its work, each tensor crossing its
 * boundary once (leaving or entering, in either direction: on a training
 * graph a block may read from later blocks; on an inference graph a valid
 * assignment only lets tensors leave the first block and enter the last),
 * and the overflow of its stages taken together. */
static double super_cost(const sc_graph *g, const sc_settings *set, const bool *in, int stages,
                         bool *fits)
{
	double work = 0, param = 0, io = 0;
	for (int u = 0; u < g->n; u++) {
		if (in[u]) {
			work += g->work[u];
			param += g->param[u];
		}
		bool cross = false;
		for (int e = g->succ_off[u]; e < g->succ_off[u + 1]; e++)
			cross = cross || in[u] != in[g->succ[e]];
		if (cross)
			io += g->out[u];
	}
	double cap = stages * set->memory;
	*fits = !(set->policy == SC_MEM_HARD && param > cap);
	double over = set->policy == SC_MEM_OVERFLOW && param > cap ? (param - cap) : 0;
	return work + (io + over) / set->bandwidth;
}

double ts_three_block_brute(const sc_graph *g, int k, int guess, double L)
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
		ok = ok && w1 >= L * (1 - 1e-9);
		if (set.policy == SC_MEM_HARD)
			ok = ok && p1 <= set.memory && (guess > 0 || prest <= (k - 1) * set.memory);
		if (ok) {
			double v = sc_cost_of_set(g, &set, in[1]);
			bool f0 = true, f2 = true;
			if (guess > 1)
				v = fmax(v,
				         super_cost(g, &set, in[0], guess - 1, &f0) / (guess - 1));
			if (guess > 0 && guess < k)
				v = fmax(v,
				         super_cost(g, &set, in[2], k - guess, &f2) / (k - guess));
			if (f0 && f2 && v < best)
				best = v;
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

double ts_unit_bound(const sc_graph *g, int k, bool *merged)
{
	sc_units *u = sc_units_new(g, true, &g->settings, NULL);
	sc_units *plain = sc_units_new(g, false, &g->settings, NULL);
	cr_assert(u && plain);
	if (merged)
		*merged = u->n != plain->n;
	double total = 0, largest = 0;
	for (int i = 0; i < u->n; i++) {
		total += u->work[i];
		largest = fmax(largest, u->work[i]);
	}
	sc_units_free(u);
	sc_units_free(plain);
	return fmax(largest, total / k);
}

double ts_kind_bottleneck(const sc_graph *g, const int *stage, const int *kind, int K)
{
	bool *cpu = calloc((size_t)(K > 0 ? K : 1), sizeof *cpu);
	cr_assert(cpu);
	for (int s = 0; s < K; s++)
		cpu[s] = kind[s] == 1;
	double b = ts_cpu_bottleneck(g, stage, cpu, K);
	free(cpu);
	return b;
}
