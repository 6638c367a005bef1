/*
 * boxes.c - ops and collapsed modules as the full picture's nodes.  See
 * boxes.h.
 *
 * A unit's edges are found by listing every op edge between two units as
 * (from, to, tail op), sorting the list and merging equal pairs: the bytes
 * of a pair add each distinct tail op's output once.
 */
#include "boxes.h"

#include <stdlib.h>
#include <string.h>

#include "core/mem.h"

typedef struct op_edge {
	int from, to, tail, head;
} op_edge;

static int by_pair(const void *a, const void *b)
{
	const op_edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->tail != y->tail)
		return x->tail < y->tail ? -1 : 1;
	return x->head < y->head ? -1 : x->head > y->head;
}

/* Sorts and merges the op edges between units into u->edge. */
static bool merge_edges(sc_boxes *u, const sc_graph *g)
{
	op_edge *list = sc_malloc_n((size_t)g->m + 1, sizeof *list);
	if (!list)
		return false;
	int n = 0;
	for (int v = 0; v < g->n; v++)
		for (int i = g->succ_off[v]; i < g->succ_off[v + 1]; i++) {
			int w = g->succ[i];
			if (u->of_op[v] != u->of_op[w])
				list[n++] = (op_edge){u->of_op[v], u->of_op[w], v, w};
		}
	qsort(list, (size_t)n, sizeof *list, by_pair);
	u->edge = sc_malloc_n((size_t)n + 1, sizeof *u->edge);
	if (!u->edge) {
		free(list);
		return false;
	}
	u->nedges = 0;
	for (int i = 0; i < n; i++) {
		const op_edge *e = &list[i];
		bool same = i > 0 && list[i - 1].from == e->from && list[i - 1].to == e->to;
		if (!same)
			u->edge[u->nedges++] = (sc_box_edge){e->from, e->to, 0, e->tail, e->head};
		if (!same || list[i - 1].tail != e->tail)
			u->edge[u->nedges - 1].bytes += g->out[e->tail];
	}
	free(list);
	return true;
}

sc_boxes *sc_boxes_new(const sc_graph *g, const sc_modules *m, int depth, const int *stage,
                       sc_error *err)
{
	sc_boxes *u = calloc(1, sizeof *u);
	int *unit_of_module = NULL, *next_part = NULL;
	if (!u)
		goto nomem;
	size_t n = (size_t)g->n + 1;
	u->nops = g->n;
	u->of_op = sc_malloc_n(n, sizeof *u->of_op);
	u->op = sc_malloc_n(n, sizeof *u->op);
	u->module = sc_malloc_n(n, sizeof *u->module);
	u->home = sc_malloc_n(n, sizeof *u->home);
	u->ops = sc_calloc_n(n, sizeof *u->ops);
	u->work = sc_calloc_n(n, sizeof *u->work);
	u->lo = sc_malloc_n(n, sizeof *u->lo);
	u->hi = sc_malloc_n(n, sizeof *u->hi);
	unit_of_module = sc_malloc_n((size_t)m->n + 1, sizeof *unit_of_module);
	next_part = sc_malloc_n(n, sizeof *next_part);
	u->own = sc_malloc_n(n, sizeof *u->own);
	if (!u->of_op || !u->op || !u->module || !u->home || !u->ops || !u->work || !u->lo ||
	    !u->hi || !unit_of_module || !next_part || !u->own)
		goto nomem;
	for (int i = 0; i < m->n; i++)
		unit_of_module[i] = -1;
	for (int v = 0; v < g->n; v++) {
		int at = depth > 0 ? sc_modules_at_depth(m, v, depth) : m->of_op[v];
		bool collapsed = depth > 0 && at > 0 && m->m[at].depth == depth;
		/* a module of one op is no box of its own: the op's label
		 * names it */
		int home = at;
		while (!collapsed && home > 0 && m->m[home].end - m->m[home].first == 1)
			home = m->m[home].parent;
		int s = stage ? stage[v] : 0;
		/* a collapsed module is a box per stage it has ops in, so that
		 * every stage shows its part */
		int x = collapsed ? unit_of_module[at] : -1;
		while (x >= 0 && u->own[x] != s)
			x = next_part[x];
		if (x < 0) {
			x = u->n++;
			u->op[x] = v;
			u->module[x] = collapsed ? at : -1;
			u->home[x] = collapsed ? m->m[at].parent : home;
			u->own[x] = u->lo[x] = u->hi[x] = s;
			next_part[x] = -1;
			if (collapsed) {
				next_part[x] = unit_of_module[at];
				unit_of_module[at] = x;
			}
		}
		u->of_op[v] = x;
		u->ops[x]++;
		u->work[x] += g->work[v];
	}
	/* each part of a module gives the module's whole stage range */
	for (int i = 0; i < m->n; i++)
		for (int x = unit_of_module[i]; x >= 0; x = next_part[x])
			for (int y = unit_of_module[i]; y >= 0; y = next_part[y]) {
				if (u->own[y] < u->lo[x])
					u->lo[x] = u->own[y];
				if (u->own[y] > u->hi[x])
					u->hi[x] = u->own[y];
			}
	free(next_part);
	next_part = NULL;
	free(unit_of_module);
	unit_of_module = NULL;
	if (!merge_edges(u, g))
		goto nomem;
	return u;
nomem:
	free(unit_of_module);
	free(next_part);
	sc_boxes_free(u);
	sc_error_nomem(err, "the picture's modules");
	return NULL;
}

void sc_boxes_order(sc_boxes *u, const int *level, const int *stage)
{
	for (int v = 0; v < u->nops; v++) {
		/* the first op along the flow; on a tie the earlier stage */
		int x = u->of_op[v], f = u->op[x];
		if (level[v] < level[f] || (level[v] == level[f] && stage && stage[v] < stage[f]))
			u->op[x] = v;
	}
}

const char *sc_boxes_op_label(const sc_graph *g, const sc_modules *m, const sc_boxes *u, int v)
{
	const char *name = g->op_name[v];
	int home = u->home[u->of_op[v]];
	if (home <= 0 || m->of_op[v] <= 0)
		return name;
	if (name[0] == '/') {
		/* one segment for the op and one for each module below home */
		int segs = m->m[m->of_op[v]].depth - m->m[home].depth + 1;
		const char *end = name + strlen(name), *p = end;
		while (p > name && segs > 0) {
			p--;
			if (*p == '/' && p + 1 < end && p[1] != '/')
				segs--;
		}
		return p[0] == '/' && p[1] ? p + 1 : name;
	}
	/* a dotted name under its module's; anything else (a backward op in
	 * its forward op's module under a name of its own) whole */
	const char *mod = m->m[home].name;
	size_t len = strlen(mod);
	if (strncmp(name, mod, len) == 0 && name[len] == '.' && name[len + 1])
		return name + len + 1;
	return name;
}

void sc_boxes_free(sc_boxes *u)
{
	if (!u)
		return;
	free(u->of_op);
	free(u->op);
	free(u->module);
	free(u->home);
	free(u->ops);
	free(u->work);
	free(u->lo);
	free(u->own);
	free(u->hi);
	free(u->edge);
	free(u);
}
