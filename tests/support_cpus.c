/*
 * support_cpus.c - the tests' CPU stages (001 section 3): random CPU
 * times, CPU flags as the solvers' kinds, the independent cost model and
 * brute force with CPU stages, and the exact DP's optimum as an oracle.
 * See support.h.
 */
#include "support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "core/cost.h"
#include "core/fleet.h"
#include "core/formats/load.h"
#include "core/partition.h"
#include "solvers/dp_exact.h"
#include "solvers/search.h"

sc_graph *ts_with_cpu_times(ts_rng *r, const sc_graph *g, bool integer_weights, double no_cpu_p,
                            double no_accel_p)
{
	sc_builder *b = sc_builder_new();
	cr_assert(b);
	sc_error err;
	for (int v = 0; v < g->n; v++) {
		const char *group = g->group[v] >= 0 ? g->group_name[g->group[v]] : NULL;
		cr_assert(sc_builder_add_op(b, g->op_name[v], g->work[v], g->param[v], g->out[v],
		                            group, &err) == v);
		if (g->backward && g->backward[v])
			cr_assert(sc_builder_set_backward(b, v, &err) == SC_OK);
		double cpu = integer_weights ? ts_below(r, 10) : ts_uniform(r) * 10;
		if (g->work[v] == 0 && ts_uniform(r) < 0.5)
			cpu = 0;
		double x = ts_uniform(r);
		bool has_cpu = x >= no_cpu_p, accel = !(has_cpu && x >= 1 - no_accel_p);
		cr_assert(sc_builder_set_devices(b, v, cpu, has_cpu, accel, &err) == SC_OK);
	}
	for (int v = 0; v < g->n; v++)
		for (int i = g->succ_off[v]; i < g->succ_off[v + 1]; i++)
			cr_assert(sc_builder_add_edge(b, v, g->succ[i], &err) == SC_OK);
	sc_builder_set_settings(b, &g->settings);
	sc_graph *h = sc_builder_finish(b, g->source, g->name, &err);
	cr_assert(h, "%s", err.msg);
	sc_builder_free(b);
	return h;
}

int *ts_kinds_of(const bool *cpu, int n, int *kind)
{
	for (int i = 0; i < n; i++)
		kind[i] = cpu && cpu[i] ? 1 : 0;
	return kind;
}

bool ts_part_check_cpus(const sc_graph *g, const int *stage, int K, const bool *cpu,
                        sc_violation *viol)
{
	sc_settings set = g->settings;
	set.k = K;
	set.cpus = K;
	set.fleet = NULL;
	sc_fleet f;
	cr_assert(sc_fleet_resolve(g, &set, &f, NULL));
	int *kind = malloc((size_t)(K > 0 ? K : 1) * sizeof *kind);
	cr_assert(kind);
	bool ok = sc_part_check_kinds(g, stage, K, &f, ts_kinds_of(cpu, K, kind), viol);
	free(kind);
	return ok;
}

double ts_cpu_bottleneck(const sc_graph *g, const int *stage, const bool *cpu, int K)
{
	if (!ts_valid(g, stage, K))
		return NAN;
	ts_cost *c = calloc((size_t)K, sizeof *c);
	double *cpu_time = calloc((size_t)K, sizeof *cpu_time);
	cr_assert(c && cpu_time);
	sc_settings set = g->settings;
	ts_costs(g, stage, &set, K, c);
	double worst = 0;
	for (int v = 0; v < g->n; v++) {
		bool has_cpu = g->cpu_ok && g->cpu_ok[v];
		bool accel = !g->accel_ok || g->accel_ok[v];
		if (cpu[stage[v]] ? !has_cpu : !accel)
			worst = INFINITY;
		if (has_cpu)
			cpu_time[stage[v]] += g->cpu_work[v];
	}
	for (int s = 0; s < K; s++) {
		double cost = cpu[s] ? cpu_time[s] : c[s].cost;
		if (!cpu[s] && set.policy == SC_MEM_HARD && c[s].over)
			cost = INFINITY;
		worst = fmax(worst, cost);
	}
	free(c);
	free(cpu_time);
	return worst;
}

double ts_brute_optimum_cpus(const sc_graph *g, int k, int L, int *best, bool *best_cpu)
{
	int n = g->n, K = k + L;
	int *stage = calloc((size_t)(n ? n : 1), sizeof *stage);
	bool *cpu = calloc((size_t)K, sizeof *cpu);
	cr_assert(stage && cpu);
	double opt = INFINITY;
	/* every order of the devices: the masks of K bits with L of them set */
	for (unsigned mask = 0; mask < (1u << K); mask++) {
		if (__builtin_popcount(mask) != L)
			continue;
		for (int s = 0; s < K; s++)
			cpu[s] = (mask >> s) & 1;
		memset(stage, 0, (size_t)(n ? n : 1) * sizeof *stage);
		for (;;) {
			double v = ts_cpu_bottleneck(g, stage, cpu, K);
			if (v < opt) {
				opt = v;
				if (best)
					memcpy(best, stage, (size_t)n * sizeof *stage);
				if (best_cpu)
					memcpy(best_cpu, cpu, (size_t)K * sizeof *cpu);
			}
			int i = 0;
			while (i < n && ++stage[i] == K)
				stage[i++] = 0;
			if (i == n)
				break;
		}
	}
	free(stage);
	free(cpu);
	return opt;
}

/* ---- reading tmux screens ---------------------------------------------- */

double ts_cpu_optimum(const sc_graph *g, int k, int L)
{
	sc_settings set = g->settings;
	set.k = k;
	set.cpus = L;
	sc_search_params p;
	sc_search_params_init(&p);
	p.refine = false;
	int *stage = calloc((size_t)(g->n ? g->n : 1), sizeof *stage);
	int *kind = calloc((size_t)(k + L), sizeof *kind);
	cr_assert(stage && kind);
	sc_dp_exact_info info;
	sc_error err;
	cr_assert_eq(sc_dp_exact(g, &set, &p, stage, kind, &info, &err), SC_OK, "%s", err.msg);
	free(stage);
	free(kind);
	return info.optimum;
}
