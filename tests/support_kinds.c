/*
 * support_kinds.c - the tests' brute force on a fleet of device kinds
 * (core/fleet.h), written apart from core/cost.c and the solvers: every
 * arrangement of the fleet's kinds along the pipeline and every
 * assignment of the ops that ts_valid accepts (and the pins hold), each
 * stage costed by ts_costs's io and its kind's op times, memory, link and
 * CPU rule, under the bottleneck or the GPipe objective.  See support.h.
 */
#include "support.h"

#include <math.h>
#include <stdlib.h>

#include <criterion/criterion.h>

#include "core/fleet.h"

/* Op v's time on kind d, and whether d may run it. */
static double kind_time(const sc_graph *g, const sc_kind *d, int v, bool *ok)
{
	if (d->cpu) {
		*ok = g->cpu_ok && g->cpu_ok[v];
		return *ok ? g->cpu_work[v] : 0;
	}
	if (d->work) {
		*ok = !isnan(d->work[v]);
		return *ok ? d->work[v] : 0;
	}
	*ok = !g->accel_ok || g->accel_ok[v];
	return g->work[v];
}

double ts_kinds_objective(const sc_graph *g, const sc_fleet *f, const int *stage, const int *kind,
                          int K, sc_schedule sched)
{
	if (!ts_valid(g, stage, K))
		return NAN;
	ts_cost *c = calloc((size_t)K, sizeof *c);
	double *t = calloc((size_t)K * 2, sizeof *t); /* per stage: time, its backward part */
	cr_assert(c && t);
	sc_settings set = g->settings;
	ts_costs(g, stage, &set, K, c);
	double worst = 0, fw = 0, bw = 0;
	for (int v = 0; v < g->n; v++) {
		bool ok;
		double w = kind_time(g, &f->kind[kind[stage[v]]], v, &ok);
		if (!ok)
			worst = INFINITY;
		t[2 * stage[v]] += w;
		if (g->backward && g->backward[v])
			t[2 * stage[v] + 1] += w;
	}
	for (int s = 0; s < K; s++) {
		const sc_kind *d = &f->kind[kind[s]];
		double cost = t[2 * s], cost_bw = t[2 * s + 1];
		if (!d->cpu) {
			double B = d->bandwidth, M = d->memory;
			cost += (c[s].in_bytes + c[s].out_bytes) / B;
			/* ts_costs's backward io is in time at the graph's link */
			cost_bw += (c[s].io_in_bw + c[s].io_out_bw) * set.bandwidth / B;
			if (c[s].param > M) {
				if (set.policy == SC_MEM_HARD)
					cost = INFINITY;
				else
					cost += (c[s].param - M) / B;
			}
		}
		worst = fmax(worst, cost);
		fw = fmax(fw, cost - cost_bw);
		bw = fmax(bw, cost_bw);
	}
	free(c);
	free(t);
	if (sched == SC_SCHEDULE_GPIPE && sc_graph_is_training(g) && isfinite(worst))
		return fw + bw;
	return worst;
}

typedef struct brute_ctx {
	const sc_graph *g;
	const sc_fleet *f;
	const int *pin;
	sc_schedule sched;
	int K;
	int kind[16], left[SC_KINDS_MAX];
} brute_ctx;

/* Every assignment of the ops for the arrangement c->kind. */
static double assignments(const brute_ctx *c)
{
	int n = c->g->n, K = c->K;
	int *stage = calloc((size_t)(n > 0 ? n : 1), sizeof *stage);
	cr_assert(stage);
	double opt = INFINITY;
	for (;;) {
		bool held = true;
		for (int v = 0; c->pin && v < n; v++)
			held = held && (c->pin[v] < 0 || stage[v] == c->pin[v]);
		double v = held ? ts_kinds_objective(c->g, c->f, stage, c->kind, K, c->sched) : NAN;
		if (v < opt)
			opt = v;
		int i = 0;
		while (i < n && ++stage[i] == K)
			stage[i++] = 0;
		if (i == n)
			break;
	}
	free(stage);
	return opt;
}

/* Every arrangement of the kinds into slots at.. (left[e] still to place). */
static double arrange(brute_ctx *c, int at)
{
	if (at == c->K)
		return assignments(c);
	double opt = INFINITY;
	for (int e = 0; e < c->f->n; e++)
		if (c->left[e] > 0) {
			c->left[e]--;
			c->kind[at] = e;
			opt = fmin(opt, arrange(c, at + 1));
			c->left[e]++;
		}
	return opt;
}

double ts_brute_kinds(const sc_graph *g, const sc_fleet *f, const int *pin, sc_schedule sched)
{
	brute_ctx c = {.g = g, .f = f, .pin = pin, .sched = sched, .K = sc_fleet_stages(f)};
	cr_assert(c.K <= 16);
	for (int e = 0; e < f->n; e++)
		c.left[e] = f->kind[e].count;
	return arrange(&c, 0);
}
