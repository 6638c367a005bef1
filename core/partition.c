/*
 * partition.c - validity, violations and legal ranges.  See partition.h;
 * partition files are in core/formats/partition_file.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "partition.h"

#include "fleet.h"

#include <stdio.h>

#include "error.h"
#include "mem.h"

bool sc_part_check(const sc_graph *g, const int *stage, int k, sc_violation *v)
{
	sc_violation none = {SC_VIOL_NONE, -1, -1};
	for (int u = 0; u < g->n; u++)
		if (stage[u] < 0 || stage[u] >= k) {
			if (v)
				*v = (sc_violation){SC_VIOL_RANGE, u, -1};
			return false;
		}
	for (int u = 0; u < g->n; u++) {
		for (int i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			int w = g->succ[i];
			sc_edge_rule r = sc_graph_edge_rule(g, u, w);
			if ((r == SC_RULE_FORWARD && stage[w] < stage[u]) ||
			    (r == SC_RULE_MIRROR && stage[w] > stage[u])) {
				if (v)
					*v = (sc_violation){r == SC_RULE_FORWARD ? SC_VIOL_EDGE
					                                         : SC_VIOL_MIRROR,
					                    u, w};
				return false;
			}
		}
		int gr = g->group[u];
		if (gr >= 0) {
			int first = g->group_ops[g->group_off[gr]];
			if (stage[first] != stage[u]) {
				if (v)
					*v = (sc_violation){SC_VIOL_GROUP, first, u};
				return false;
			}
		}
	}
	if (v)
		*v = none;
	return true;
}

void sc_part_describe(const sc_graph *g, const int *stage, const sc_violation *v, char *buf,
                      size_t size)
{
	switch (v->kind) {
	case SC_VIOL_NONE: snprintf(buf, size, "valid"); break;
	case SC_VIOL_RANGE:
		/* partition files keep stages beyond an int at its ends */
		sc_msg_format(buf, size, "op '%s' is in stage %d%s, outside 1..k", g->op_name[v->a],
		              stage[v->a] + 1,
		              stage[v->a] + 1 == SC_PART_STAGE_MAX   ? " or above"
		              : stage[v->a] + 1 == SC_PART_STAGE_MIN ? " or below"
		                                                     : "");
		break;
	case SC_VIOL_EDGE:
		sc_msg_format(buf, size, "edge '%s' -> '%s' goes from stage %d back to stage %d",
		              g->op_name[v->a], g->op_name[v->b], stage[v->a] + 1, stage[v->b] + 1);
		break;
	case SC_VIOL_MIRROR:
		sc_msg_format(
		        buf, size,
		        "edge '%s' -> '%s' goes from stage %d on to stage %d, but an edge between "
		        "backward ops, one of them an orphan, never goes to a later stage",
		        g->op_name[v->a], g->op_name[v->b], stage[v->a] + 1, stage[v->b] + 1);
		break;
	case SC_VIOL_GROUP:
		sc_msg_format(buf, size,
		              "group '%s' is split: '%s' is in stage %d, '%s' in stage %d",
		              g->group_name[g->group[v->a]], g->op_name[v->a], stage[v->a] + 1,
		              g->op_name[v->b], stage[v->b] + 1);
		break;
	case SC_VIOL_DEVICE:
		if (sc_graph_accel_ok(g, v->a))
			sc_msg_format(buf, size,
			              "op '%s' is on stage %d, a CPU stage, but has no CPU time "
			              "(only an accelerator may hold it)",
			              g->op_name[v->a], v->b + 1);
		else
			sc_msg_format(
			        buf, size,
			        "op '%s' is on stage %d, an accelerator, but is not supported "
			        "on an accelerator (only a CPU stage may hold it)",
			        g->op_name[v->a], v->b + 1);
		break;
	}
}

/* Narrows [*lo, *hi] by the neighbours of op u along the order arcs that
 * are not in group gr. */
static void narrow(const sc_graph *g, const int *stage, int u, int gr, int *lo, int *hi)
{
	for (int i = g->ord_pred_off[u]; i < g->ord_pred_off[u + 1]; i++) {
		int p = g->ord_pred[i];
		if ((gr < 0 || g->group[p] != gr) && stage[p] > *lo)
			*lo = stage[p];
	}
	for (int i = g->ord_succ_off[u]; i < g->ord_succ_off[u + 1]; i++) {
		int s = g->ord_succ[i];
		if ((gr < 0 || g->group[s] != gr) && stage[s] < *hi)
			*hi = stage[s];
	}
}

void sc_part_legal_range(const sc_graph *g, const int *stage, int k, int v, int *lo, int *hi)
{
	*lo = 0;
	*hi = k - 1;
	int gr = g->group[v];
	if (gr < 0) {
		narrow(g, stage, v, -1, lo, hi);
		return;
	}
	for (int i = g->group_off[gr]; i < g->group_off[gr + 1]; i++)
		narrow(g, stage, g->group_ops[i], gr, lo, hi);
}

bool sc_part_check_kinds(const sc_graph *g, const int *stage, int k, const sc_fleet *f,
                         const int *kind, sc_violation *v)
{
	if (!sc_part_check(g, stage, k, v))
		return false;
	for (int u = 0; u < g->n; u++) {
		const sc_kind *d = &f->kind[kind ? kind[stage[u]] : 0];
		if (!sc_kind_ok(d, g, u)) {
			if (v)
				*v = (sc_violation){SC_VIOL_DEVICE, u, stage[u]};
			return false;
		}
	}
	return true;
}

int *sc_part_new(const sc_graph *g)
{
	return sc_calloc_n((size_t)g->n, sizeof(int));
}

void sc_part_fill_backward(const sc_graph *g, int *stage, int unset)
{
	if (!sc_graph_is_training(g))
		return;
	for (int v = 0; v < g->n; v++) {
		int gr = g->group[v];
		if (stage[v] != unset || gr < 0)
			continue;
		for (int i = g->group_off[gr]; i < g->group_off[gr + 1]; i++)
			if (stage[g->group_ops[i]] != unset) {
				stage[v] = stage[g->group_ops[i]];
				break;
			}
	}
	/* orphans: the latest stage around them, passed along chains of
	 * orphans until nothing changes */
	for (bool changed = true; changed;) {
		changed = false;
		for (int v = 0; v < g->n; v++) {
			if (stage[v] != unset || !g->orphan || !g->orphan[v])
				continue;
			int best = unset;
			for (int i = g->succ_off[v]; i < g->succ_off[v + 1]; i++)
				if (stage[g->succ[i]] != unset &&
				    (best == unset || stage[g->succ[i]] > best))
					best = stage[g->succ[i]];
			for (int i = g->pred_off[v]; i < g->pred_off[v + 1]; i++)
				if (stage[g->pred[i]] != unset &&
				    (best == unset || stage[g->pred[i]] > best))
					best = stage[g->pred[i]];
			if (best != unset) {
				stage[v] = best;
				changed = true;
			}
		}
	}
}
