/*
 * graph_order.c - a training graph's rules of the stage order (DESIGN.md
 * section 1; seed 001 section 5.3) as order arcs.  See graph.h and
 * graph_order.h.
 */
#include "graph_order.h"

#include <stdlib.h>
#include <string.h>

#include "csr.h"
#include "mem.h"

/* The rules of a training graph's stage order (seed 001 section 5.3, the
 * msr-fiddle README).  Takes backward (bcap flags, the ops past bcap are
 * forward; NULL when no op is backward) into g, refuses an edge from the
 * backward pass into the forward pass, marks the orphans and builds the
 * order arcs.  For an inference graph the arcs alias the edges.
 *
 * The arcs never form a cycle: an arc joins two forward ops along an edge,
 * or two backward ops against one; there is no arc between the passes, so a
 * cycle would lie in one pass and be a cycle of edges (forward) or of
 * reversed edges (backward), and the edges were checked acyclic already.
 * So a topological order exists; ord_topo is one (forward ops in topo's
 * order, then backward ops in reverse topo order, which respects both). */
sc_status sc_graph_order_arcs(sc_graph *g, bool *backward, int bcap, const char *source,
                              sc_error *err)
{
	int n = g->n;
	int nb = 0;
	for (int v = 0; v < bcap && v < n; v++)
		nb += backward[v];
	if (nb == 0) {
		free(backward);
		g->m_order = g->m;
		g->ord_succ_off = g->succ_off;
		g->ord_succ = g->succ;
		g->ord_pred_off = g->pred_off;
		g->ord_pred = g->pred;
		g->ord_topo = g->topo;
		return SC_OK;
	}
	if (bcap < n) {
		bool *grown = realloc(backward, (size_t)n * sizeof *grown);
		if (!grown) {
			free(backward);
			return sc_error_nomem(err, "the backward flags");
		}
		memset(grown + bcap, 0, (size_t)(n - bcap) * sizeof *grown);
		backward = grown;
	}
	g->backward = backward;
	g->backward_ops = nb;
	for (int u = 0; u < n; u++)
		for (int i = g->succ_off[u]; i < g->succ_off[u + 1]; i++)
			if (backward[u] && !backward[g->succ[i]])
				return sc_error_set(
				        err, SC_ERR_INPUT,
				        "%s: edge '%s' -> '%s' goes from a backward op to a "
				        "forward op; in a training graph the backward pass "
				        "never feeds the forward pass",
				        source, g->op_name[u], g->op_name[g->succ[i]]);
	g->orphan = calloc((size_t)n, sizeof *g->orphan);
	bool *group_fw = calloc((size_t)g->ngroups + 1, sizeof *group_fw);
	g->ord_topo = sc_malloc_n((size_t)n, sizeof *g->ord_topo);
	int *from = sc_malloc_n((size_t)g->m + 1, sizeof *from);
	int *to = sc_malloc_n((size_t)g->m + 1, sizeof *to);
	if (!g->orphan || !group_fw || !g->ord_topo || !from || !to) {
		free(group_fw);
		free(from);
		free(to);
		return sc_error_nomem(err, "the training order");
	}
	for (int v = 0; v < n; v++)
		if (!backward[v] && g->group[v] >= 0)
			group_fw[g->group[v]] = true;
	for (int v = 0; v < n; v++) {
		g->orphan[v] = backward[v] && (g->group[v] < 0 || !group_fw[g->group[v]]);
		g->orphans += g->orphan[v];
	}
	free(group_fw);
	int m = 0;
	for (int u = 0; u < n; u++)
		for (int i = g->succ_off[u]; i < g->succ_off[u + 1]; i++) {
			int v = g->succ[i];
			sc_edge_rule r = sc_graph_edge_rule(g, u, v);
			if (r == SC_RULE_FORWARD) {
				from[m] = u;
				to[m++] = v;
			} else if (r == SC_RULE_MIRROR) {
				from[m] = v;
				to[m++] = u;
			}
		}
	g->m_order = sc_csr_build(n, m, from, to, &g->ord_succ_off, &g->ord_succ);
	int back =
	        g->m_order < 0 ? -1 : sc_csr_build(n, m, to, from, &g->ord_pred_off, &g->ord_pred);
	free(from);
	free(to);
	if (g->m_order < 0 || back < 0)
		return sc_error_nomem(err, "the training order");
	int t = 0;
	for (int i = 0; i < n; i++)
		if (!backward[g->topo[i]])
			g->ord_topo[t++] = g->topo[i];
	for (int i = n - 1; i >= 0; i--)
		if (backward[g->topo[i]])
			g->ord_topo[t++] = g->topo[i];
	return SC_OK;
}

sc_edge_rule sc_graph_edge_rule(const sc_graph *g, int u, int v)
{
	if (!g->backward)
		return SC_RULE_FORWARD;
	if (!g->backward[u] && !g->backward[v])
		return SC_RULE_FORWARD;
	if (g->backward[u] && g->backward[v] && (g->orphan[u] || g->orphan[v]))
		return SC_RULE_MIRROR;
	return SC_RULE_FREE;
}

const char *sc_edge_rule_text(sc_edge_rule r)
{
	switch (r) {
	case SC_RULE_FORWARD: return "an edge never goes to an earlier stage";
	case SC_RULE_MIRROR:
		return "an edge between backward ops, one of them an orphan, never goes to a later "
		       "stage";
	default: return "free";
	}
}

/* A binary min-heap of op indices, for sc_graph_program_order. */
static void heap_push(int *h, int *n, int v)
{
	int i = (*n)++;
	while (i > 0 && h[(i - 1) / 2] > v) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = v;
}

static int heap_pop(int *h, int *n)
{
	int top = h[0], v = h[--(*n)], i = 0;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= v)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n > 0)
		h[i] = v;
	return top;
}

bool sc_graph_program_order(const sc_graph *g, int *order, bool *nomem)
{
	*nomem = false;
	bool forward = true;
	for (int v = 0; v < g->n && forward; v++)
		for (int i = g->succ_off[v]; i < g->succ_off[v + 1] && forward; i++)
			forward = g->succ[i] > v;
	if (forward) {
		for (int v = 0; v < g->n; v++)
			order[v] = v;
		return true;
	}
	int *indeg = sc_calloc_n((size_t)g->n + 1, sizeof *indeg);
	int *heap = sc_malloc_n((size_t)g->n + 1, sizeof *heap);
	if (!indeg || !heap) {
		free(indeg);
		free(heap);
		*nomem = true;
		return false;
	}
	int n = 0, t = 0;
	for (int v = 0; v < g->n; v++) {
		indeg[v] = g->pred_off[v + 1] - g->pred_off[v];
		if (indeg[v] == 0)
			heap_push(heap, &n, v);
	}
	while (n > 0) {
		int v = heap_pop(heap, &n);
		order[t++] = v;
		for (int i = g->succ_off[v]; i < g->succ_off[v + 1]; i++)
			if (--indeg[g->succ[i]] == 0)
				heap_push(heap, &n, g->succ[i]);
	}
	free(indeg);
	free(heap);
	return false;
}
