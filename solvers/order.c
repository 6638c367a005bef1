/*
 * order.c - Kahn with priorities and the depth-first order.  See order.h.
 */
#include "order.h"

#include <stdlib.h>

#include "core/mem.h"

struct sc_orderer {
	const sc_units *u;
	int *indeg; /* remaining in-degree */
	int *heap;  /* ready units (max-heap) or the DFS stack */
};

sc_orderer *sc_orderer_new(const sc_units *u, sc_error *err)
{
	sc_orderer *o = calloc(1, sizeof *o);
	size_t n = (size_t)u->n;
	if (o) {
		o->u = u;
		o->indeg = sc_malloc_n(n, sizeof *o->indeg);
		o->heap = sc_malloc_n(n, sizeof *o->heap);
	}
	if (!o || !o->indeg || !o->heap) {
		sc_orderer_free(o);
		sc_error_nomem(err, "a topological order");
		return NULL;
	}
	return o;
}

void sc_orderer_free(sc_orderer *o)
{
	if (!o)
		return;
	free(o->indeg);
	free(o->heap);
	free(o);
}

/* a before b in the heap: higher priority, then lower number */
static inline int above(const double *prio, int a, int b)
{
	return prio[a] > prio[b] || (prio[a] == prio[b] && a < b);
}

static void push(int *heap, int *size, const double *prio, int v)
{
	int i = (*size)++;
	while (i > 0) {
		int p = (i - 1) / 2;
		if (!above(prio, v, heap[p]))
			break;
		heap[i] = heap[p];
		i = p;
	}
	heap[i] = v;
}

static int pop(int *heap, int *size, const double *prio)
{
	int top = heap[0], last = heap[--(*size)], i = 0, n = *size;
	for (;;) {
		int c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && above(prio, heap[c + 1], heap[c]))
			c++;
		if (!above(prio, heap[c], last))
			break;
		heap[i] = heap[c];
		i = c;
	}
	if (n > 0)
		heap[i] = last;
	return top;
}

void sc_order_kahn(sc_orderer *o, const double *prio, int *order)
{
	const sc_units *u = o->u;
	int size = 0, out = 0;
	for (int v = 0; v < u->n; v++) {
		o->indeg[v] = u->pred_off[v + 1] - u->pred_off[v];
		if (o->indeg[v] == 0)
			push(o->heap, &size, prio, v);
	}
	while (size > 0) {
		int v = pop(o->heap, &size, prio);
		order[out++] = v;
		for (int i = u->succ_off[v]; i < u->succ_off[v + 1]; i++)
			if (--o->indeg[u->succ[i]] == 0)
				push(o->heap, &size, prio, u->succ[i]);
	}
}

void sc_order_dfs(sc_orderer *o, int *order)
{
	const sc_units *u = o->u;
	int sp = 0, out = 0;
	for (int v = u->n - 1; v >= 0; v--) {
		o->indeg[v] = u->pred_off[v + 1] - u->pred_off[v];
		if (o->indeg[v] == 0)
			o->heap[sp++] = v; /* lowest number ends on top */
	}
	while (sp > 0) {
		int v = o->heap[--sp];
		order[out++] = v;
		/* push released successors highest first, so the lowest is next */
		for (int i = u->succ_off[v + 1] - 1; i >= u->succ_off[v]; i--)
			if (--o->indeg[u->succ[i]] == 0)
				o->heap[sp++] = u->succ[i];
	}
}
