/*
 * simple.c - the simple bound and the greedy first partition.  See simple.h.
 */
#include "simple.h"

#include <stdbool.h>
#include <stdlib.h>

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
