/*
 * simple.c - the simple bound and the greedy first partition.  See simple.h.
 */
#include "simple.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "core/fleet.h"
#include "core/mem.h"

double sc_bound_simple(const sc_graph *g, int k)
{
	double total = 0, largest = 0;
	for (int v = 0; v < g->n; v++) {
		total += g->work[v];
		if (g->group[v] < 0 && g->work[v] > largest)
			largest = g->work[v];
	}
	for (int i = 0; i < g->ngroups; i++) {
		double w = 0;
		for (int j = g->group_off[i]; j < g->group_off[i + 1]; j++)
			w += g->work[g->group_ops[j]];
		if (w > largest)
			largest = w;
	}
	double avg = total / k;
	return largest > avg ? largest : avg;
}

/* CPU time saved per unit of accelerator work, largest first (both
 * positive: the caller keeps only such items). */
static int by_saving(const void *a, const void *b)
{
	const sc_simple_item *x = a, *y = b;
	double rx = x->cpu / x->accel, ry = y->cpu / y->accel;
	return (rx < ry) - (rx > ry);
}

double sc_bound_simple_items(sc_simple_item *it, int n, int k, int cpus)
{
	double largest = 0, A0 = 0, C0 = 0;
	int m = 0; /* items either device may hold, both times positive: it[0..m) */
	for (int i = 0; i < n; i++) {
		sc_simple_item x = it[i];
		bool a = x.accel_ok, c = x.cpu_ok && cpus > 0;
		if (!a && !c)
			return INFINITY; /* no stage may hold it: no partition at all */
		double least = a && c ? fmin(x.accel, x.cpu) : a ? x.accel : x.cpu;
		if (least > largest)
			largest = least;
		if (!c)
			A0 += x.accel;
		else if (!a)
			C0 += x.cpu;
		else if (x.accel > 0 && x.cpu > 0)
			it[m++] = x;
		/* else free on the device where it takes no time */
	}
	qsort(it, (size_t)m, sizeof *it, by_saving);
	double left = 0; /* CPU time of the items not yet on the accelerators */
	for (int j = 0; j < m; j++)
		left += it[j].cpu;
	/* At B_j = (A0 + work of it[0..j)) / k the accelerators hold it[0..j)
	 * whole and the CPUs C0 + left; on the piece up to B_(j+1), item j
	 * moves over to the accelerators at k / a_j of its share per unit of
	 * B, so the CPU load falls at k * c_j / a_j per unit of B while the
	 * CPUs' capacity L * B grows at L. */
	double B = A0 / k;
	for (int j = 0; j < m; j++) {
		double load = C0 + left;
		if (cpus * B >= load)
			return fmax(largest, B);
		double next = B + it[j].accel / k;
		double at = B + (load - cpus * B) / (cpus + k * it[j].cpu / it[j].accel);
		if (at <= next)
			return fmax(largest, at);
		B = next;
		left -= it[j].cpu;
	}
	/* every item either device may hold is on the accelerators: the CPUs
	 * keep C0, which L * B must reach (cpus > 0 whenever C0 > 0) */
	if (cpus > 0 && cpus * B < C0)
		B = C0 / cpus;
	return fmax(largest, B);
}

double sc_bound_simple_kinds(const sc_graph *g, const sc_fleet *f)
{
	double sum = 0, most = 0;
	for (int v = 0; v < g->n; v++)
		if (g->group[v] < 0) {
			double t = sc_fleet_least_time(f, g, &v, 1);
			sum += t;
			most = fmax(most, t);
		}
	for (int i = 0; i < g->ngroups; i++) {
		double t = sc_fleet_least_time(f, g, g->group_ops + g->group_off[i],
		                               g->group_off[i + 1] - g->group_off[i]);
		sum += t;
		most = fmax(most, t);
	}
	int K = sc_fleet_stages(f);
	return fmax(most, sum / (K > 0 ? K : 1));
}

sc_status sc_bound_simple_cpus(const sc_graph *g, int k, int cpus, double *out, sc_error *err)
{
	sc_simple_item *it = sc_malloc_n((size_t)g->n + (size_t)g->ngroups, sizeof *it);
	if (!it)
		return sc_error_nomem(err, "the simple bound");
	int n = 0;
	for (int v = 0; v < g->n; v++)
		if (g->group[v] < 0)
			it[n++] = (sc_simple_item){.accel = g->work[v],
			                           .cpu = sc_graph_cpu_work(g, v),
			                           .accel_ok = sc_graph_accel_ok(g, v),
			                           .cpu_ok = sc_graph_cpu_ok(g, v)};
	for (int i = 0; i < g->ngroups; i++) {
		sc_simple_item x = {.accel_ok = true, .cpu_ok = true};
		for (int j = g->group_off[i]; j < g->group_off[i + 1]; j++) {
			int v = g->group_ops[j];
			x.accel += g->work[v];
			x.cpu += sc_graph_cpu_work(g, v);
			x.accel_ok = x.accel_ok && sc_graph_accel_ok(g, v);
			x.cpu_ok = x.cpu_ok && sc_graph_cpu_ok(g, v);
		}
		it[n++] = x;
	}
	*out = sc_bound_simple_items(it, n, k, cpus);
	free(it);
	return SC_OK;
}

int sc_stages_useful(const sc_graph *g, int k)
{
	long units = g->ngroups;
	for (int v = 0; v < g->n; v++)
		units += g->group[v] < 0;
	if (units < 1)
		units = 1;
	return k < units ? k : (int)units;
}

sc_status sc_greedy_split(const sc_graph *g, int k, int *stage, sc_error *err)
{
	(void)err;
	double total = sc_graph_total_work(g);
	double done = 0;
	int s = 0;
	/* the order arcs (graph.h), not the edges: on a training graph only
	 * they constrain the stages; on an inference graph they are the edges */
	for (int i = 0; i < g->n; i++) {
		int v = g->ord_topo[i];
		/* start a new stage once this one holds its share of the work */
		while (s < k - 1 && done >= total * (s + 1) / k && total > 0)
			s++;
		stage[v] = s;
		done += g->work[v];
	}
	/* Repair: a group goes to the latest stage of its members, the head of
	 * each order arc follows its tail.  Stages only grow and are bounded by
	 * k-1, so this reaches a fixpoint, which is valid. */
	bool changed = true;
	while (changed) {
		changed = false;
		for (int gr = 0; gr < g->ngroups; gr++) {
			int hi = 0;
			for (int j = g->group_off[gr]; j < g->group_off[gr + 1]; j++)
				if (stage[g->group_ops[j]] > hi)
					hi = stage[g->group_ops[j]];
			for (int j = g->group_off[gr]; j < g->group_off[gr + 1]; j++)
				if (stage[g->group_ops[j]] != hi) {
					stage[g->group_ops[j]] = hi;
					changed = true;
				}
		}
		for (int i = 0; i < g->n; i++) {
			int v = g->ord_topo[i];
			for (int j = g->ord_pred_off[v]; j < g->ord_pred_off[v + 1]; j++)
				if (stage[g->ord_pred[j]] > stage[v]) {
					stage[v] = stage[g->ord_pred[j]];
					changed = true;
				}
		}
	}
	return SC_OK;
}
