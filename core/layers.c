/*
 * layers.c - the layers of a model at a module depth.  See layers.h.
 *
 * The modules are numbered in preorder, so one pass in that order decides
 * each module after its parent: opened or not (chain, below).  A module's
 * chain is checked on its forward ops sorted by their place in the program
 * order (the positions sorted, then mapped back through the order), and on
 * the edges at those ops: each module's ops are looked at once per
 * ancestor, O(edges x depth) in all.  A last pass along the program order
 * numbers the layers and gives each own op of an opened module the layer
 * before it.
 */
#define _POSIX_C_SOURCE 200809L
#include "core/layers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool is_forward(const sc_graph *g, int v)
{
	return !g->backward || !g->backward[v];
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Scratch for the chain checks, one entry per op or per module. */
typedef struct scan {
	const sc_graph *g;
	const sc_modules *m;
	const int *order;
	int *pos;       /* op -> its place in the order */
	int *where;     /* op -> its place in m->ops_sorted */
	int *part;      /* op -> its part in the module being checked */
	int *sorted;    /* the module's forward ops, in program order */
	int *part_of_c; /* module -> the part a child got, -1 */
	char *fed;      /* part -> an edge comes into it from the part before */
} scan;

static bool inside(const scan *s, int i, int v)
{
	return s->m->m[i].first <= s->where[v] && s->where[v] < s->m->m[i].end;
}

/* Whether module i's parts form a chain (layers.h); else false with why. */
static bool chain(scan *s, int i, char *why, size_t size)
{
	const sc_graph *g = s->g;
	const sc_modules *m = s->m;
	const sc_module *q = &m->m[i];
	int cnt = 0;
	for (int t = q->first; t < q->end; t++)
		if (is_forward(g, m->ops_sorted[t]))
			s->sorted[cnt++] = s->pos[m->ops_sorted[t]];
	qsort(s->sorted, (size_t)cnt, sizeof *s->sorted, cmp_int);
	for (int c = q->first_child; c >= 0; c = m->m[c].next_sibling)
		s->part_of_c[c] = -1;
	int parts = 0, cur_child = -2; /* -1: a run of own ops */
	for (int t = 0; t < cnt; t++) {
		int v = s->order[s->sorted[t]];
		s->sorted[t] = v;
		int c = m->of_op[v] == i ? -1 : sc_modules_at_depth(m, v, q->depth + 1);
		if (c != cur_child || t == 0) {
			if (c >= 0 && s->part_of_c[c] >= 0) {
				sc_msg_format(
				        why, size,
				        "'%s' runs in two pieces: op '%s' comes after op '%s'",
				        m->m[c].name, g->op_name[v], g->op_name[s->sorted[t - 1]]);
				return false;
			}
			if (c >= 0)
				s->part_of_c[c] = parts;
			cur_child = c;
			parts++;
		}
		s->part[v] = parts - 1;
	}
	memset(s->fed, 0, (size_t)parts);
	for (int t = 0; t < cnt; t++) {
		int v = s->sorted[t], pv = s->part[v];
		for (int e = g->succ_off[v]; e < g->succ_off[v + 1]; e++) {
			int w = g->succ[e];
			if (!is_forward(g, w))
				continue;
			if (inside(s, i, w) ? s->part[w] != pv && s->part[w] != pv + 1
			                    : pv != parts - 1) {
				sc_msg_format(
				        why, size,
				        "op '%s' feeds op '%s', which is not in the part that "
				        "runs next",
				        g->op_name[v], g->op_name[w]);
				return false;
			}
			if (inside(s, i, w) && s->part[w] == pv + 1)
				s->fed[pv + 1] = 1;
		}
		for (int e = g->pred_off[v]; e < g->pred_off[v + 1]; e++) {
			int u = g->pred[e];
			if (is_forward(g, u) && !inside(s, i, u) && pv != 0) {
				sc_msg_format(
				        why, size,
				        "op '%s' feeds op '%s', which is not in the first part "
				        "of '%s'",
				        g->op_name[u], g->op_name[v], q->name);
				return false;
			}
		}
	}
	for (int t = 0, p = 0; t < cnt; t++)
		if (s->part[s->sorted[t]] == p) {
			if (p > 0 && !s->fed[p]) {
				sc_msg_format(why, size,
				              "op '%s' reads nothing the part of %s%s%s before it "
				              "computes",
				              g->op_name[s->sorted[t]], i ? "'" : "",
				              i ? q->name : "the model", i ? "'" : "");
				return false;
			}
			p++;
		}
	return true;
}

/* The module op v's layer runs: the outermost module below the opened
 * ones, or -1 for an own op of an opened module. */
static int layer_module(const sc_modules *m, const bool *opened, int v)
{
	int x = m->of_op[v];
	if (opened[x])
		return -1;
	while (m->m[x].parent >= 0 && !opened[m->m[x].parent])
		x = m->m[x].parent;
	return x;
}

/* Numbers the layers along the program order into l; lay is scratch of
 * m->n entries.  A piece whose module is called more than once (rep) joins
 * the layer before it: PyTorch's SplitPoint.BEGINNING at such a module
 * splits before every call.  False when out of memory. */
static bool number(sc_layers *l, const sc_graph *g, const sc_modules *m, int *lay, const bool *rep)
{
	for (int i = 0; i < m->n; i++)
		lay[i] = -1;
	int prev = -1, pending = 0, first_pending = -1;
	for (int t = 0; t < g->n; t++) {
		int v = l->order[t];
		if (!is_forward(g, v))
			continue;
		int x = layer_module(m, l->opened, v);
		if (x < 0) {
			l->of_op[v] = prev;
			if (prev < 0 && pending++ == 0)
				first_pending = v;
			continue;
		}
		if (lay[x] < 0 && rep[x] && prev >= 0)
			lay[x] = prev;
		if (lay[x] < 0) {
			lay[x] = l->n;
			l->module[l->n] = x;
			l->first[l->n] = l->n == 0 && pending ? first_pending : v;
			l->n++;
		}
		prev = l->of_op[v] = lay[x];
	}
	/* own ops before the first layer join it */
	for (int v = 0; v < g->n && pending; v++)
		if (is_forward(g, v) && l->of_op[v] < 0)
			l->of_op[v] = 0;
	if (!g->backward)
		return true;
	int *fw = malloc(((size_t)g->ngroups + 1) * sizeof *fw); /* group -> first forward op */
	if (!fw)
		return false;
	for (int i = 0; i < g->ngroups; i++)
		fw[i] = -1;
	for (int v = 0; v < g->n; v++)
		if (is_forward(g, v) && g->group[v] >= 0 && fw[g->group[v]] < 0)
			fw[g->group[v]] = v;
	for (int v = 0; v < g->n; v++) {
		if (is_forward(g, v) || (g->orphan && g->orphan[v]))
			continue;
		int u = g->group[v] >= 0 ? fw[g->group[v]] : -1;
		int x = u < 0 ? layer_module(m, l->opened, v) : -1;
		l->of_op[v] = u >= 0 ? l->of_op[u] : x >= 0 ? lay[x] : -1;
	}
	free(fw);
	return true;
}

sc_layers *sc_layers_new(const sc_graph *g, const sc_modules *m, int depth, sc_error *err)
{
	sc_layers *l = calloc(1, sizeof *l);
	scan s = {.g = g, .m = m};
	size_t n1 = (size_t)g->n + 1, mn = (size_t)m->n;
	bool nomem = !l;
	if (l) {
		l->depth = depth;
		l->module = malloc(mn * sizeof *l->module);
		l->first = malloc(mn * sizeof *l->first);
		l->of_op = malloc(n1 * sizeof *l->of_op);
		l->opened = calloc(mn, sizeof *l->opened);
		l->order = malloc(n1 * sizeof *l->order);
		s.pos = malloc(n1 * sizeof *s.pos);
		s.where = malloc(n1 * sizeof *s.where);
		s.part = malloc(n1 * sizeof *s.part);
		s.sorted = malloc(n1 * sizeof *s.sorted);
		s.part_of_c = malloc(mn * sizeof *s.part_of_c);
		s.fed = malloc(n1);
		nomem = !l->module || !l->first || !l->of_op || !l->opened || !l->order || !s.pos ||
		        !s.where || !s.part || !s.sorted || !s.part_of_c || !s.fed;
	}
	if (!nomem)
		l->file_order = sc_graph_program_order(g, l->order, &nomem);
	if (!nomem) {
		s.order = l->order;
		for (int t = 0; t < g->n; t++) {
			s.pos[l->order[t]] = t;
			s.where[m->ops_sorted[t]] = t;
			l->of_op[t] = -1;
		}
		for (int i = 0; i < m->n; i++) {
			const sc_module *q = &m->m[i];
			if (q->first_child < 0 ||
			    (i > 0 && (!l->opened[q->parent] || q->depth >= depth)))
				continue;
			char why[sizeof l->why_whole];
			l->opened[i] = chain(&s, i, why, sizeof why);
			if (i == 0 && !l->opened[i])
				snprintf(l->why_whole, sizeof l->why_whole, "%s", why);
		}
		/* rep: called more than once, or below such a module */
		bool *rep = calloc(mn, sizeof *rep);
		nomem = !rep;
		for (int i = 1; !nomem && i < m->n; i++)
			if (sc_modules_called(m, i) != i)
				rep[i] = rep[sc_modules_called(m, i)] = true;
		for (int i = 1; !nomem && i < m->n; i++)
			rep[i] = rep[i] || rep[m->m[i].parent];
		nomem = nomem || !number(l, g, m, s.part_of_c, rep);
		free(rep);
	}
	free(s.pos);
	free(s.where);
	free(s.part);
	free(s.sorted);
	free(s.part_of_c);
	free(s.fed);
	if (nomem) {
		sc_layers_free(l);
		sc_error_nomem(err, "the layers");
		return NULL;
	}
	return l;
}

void sc_layers_free(sc_layers *l)
{
	if (!l)
		return;
	free(l->module);
	free(l->first);
	free(l->of_op);
	free(l->opened);
	free(l->order);
	free(l);
}

int sc_layers_count(const sc_graph *g, const sc_modules *m, int depth)
{
	sc_error err;
	sc_layers *l = sc_layers_new(g, m, depth, &err);
	int n = l ? l->n : -1;
	sc_layers_free(l);
	return n;
}

int sc_layers_piece(const sc_layers *l, const sc_modules *m, int v)
{
	return layer_module(m, l->opened, v);
}

static int find_root(int *up, int x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

static void join(int *up, int a, int b)
{
	a = find_root(up, a);
	b = find_root(up, b);
	if (a != b)
		up[a < b ? b : a] = a < b ? a : b;
}

/* Copies g's ops (with the groups named in group_of), edges, settings and
 * flags into a new graph; NULL with err set on failure. */
static sc_graph *copy_with_groups(const sc_graph *g, char *const *group_of, sc_error *err)
{
	sc_builder *b = sc_builder_new();
	if (!b) {
		sc_error_nomem(err, "the aligned graph");
		return NULL;
	}
	bool ok = true;
	for (int v = 0; v < g->n && ok; v++)
		ok = sc_builder_add_op(b, g->op_name[v], g->work[v], g->param[v], g->out[v],
		                       group_of[v], err) == v;
	for (int v = 0; v < g->n && ok; v++)
		for (int i = g->succ_off[v]; i < g->succ_off[v + 1] && ok; i++)
			ok = sc_builder_add_edge(b, v, g->succ[i], err) == SC_OK;
	for (int v = 0; g->backward && v < g->n && ok; v++)
		if (g->backward[v])
			ok = sc_builder_set_backward(b, v, err) == SC_OK;
	/* the devices: CPU times (001 section 3), then each kind's table */
	for (int v = 0; (g->cpu_ok || g->accel_ok) && v < g->n && ok; v++)
		ok = sc_builder_set_devices(b, v, sc_graph_cpu_work(g, v), sc_graph_cpu_ok(g, v),
		                            sc_graph_accel_ok(g, v), err) == SC_OK;
	sc_graph *out = NULL;
	if (ok) {
		sc_builder_set_settings(b, &g->settings);
		sc_builder_set_max_cpus(b, g->max_cpus);
		out = sc_builder_finish(b, g->source, g->name, err);
	}
	sc_builder_free(b);
	if (!out)
		return NULL;
	if (g->work_kind && !(out->work_kind = strdup(g->work_kind))) {
		sc_graph_free(out);
		sc_error_nomem(err, "the aligned graph");
		return NULL;
	}
	for (int i = 0; i < g->nkinds; i++) {
		double *work = malloc((size_t)g->n * sizeof *work + 1);
		if (work)
			memcpy(work, g->kind_work[i], (size_t)g->n * sizeof *work);
		if (!work || sc_graph_add_kind(out, g->kind_name[i], work, g->kind_memory[i],
		                               g->kind_bandwidth[i], err) != SC_OK) {
			if (!work)
				sc_error_nomem(err, "the aligned graph");
			sc_graph_free(out);
			return NULL;
		}
	}
	out->time_unit = g->time_unit;
	if (g->work_source) {
		out->work_source = malloc((size_t)g->n + 1);
		if (out->work_source)
			memcpy(out->work_source, g->work_source, (size_t)g->n);
	}
	out->cost_origin = g->cost_origin ? strdup(g->cost_origin) : NULL;
	out->cost_short = g->cost_short ? strdup(g->cost_short) : NULL;
	if ((g->work_source && !out->work_source) || (g->cost_origin && !out->cost_origin) ||
	    (g->cost_short && !out->cost_short)) {
		sc_graph_free(out);
		sc_error_nomem(err, "the aligned graph");
		return NULL;
	}
	return out;
}

sc_graph *sc_layers_aligned_graph(const sc_graph *g, const sc_modules *m, const sc_layers *l,
                                  sc_error *err)
{
	/* union-find over the ops, then g's groups, then the layers */
	int n = g->n, total = g->n + g->ngroups + l->n;
	int *up = malloc((size_t)total * sizeof *up);
	int *unit = malloc(((size_t)n + 1) * sizeof *unit);
	int *name_mod = malloc((size_t)total * sizeof *name_mod);
	int *name_grp = malloc((size_t)total * sizeof *name_grp);
	char **group_of = calloc((size_t)n + 1, sizeof *group_of);
	sc_graph *out = NULL;
	bool ok = up && unit && name_mod && name_grp && group_of;
	if (ok) {
		for (int i = 0; i < total; i++)
			up[i] = i, name_mod[i] = name_grp[i] = -1;
		for (int v = 0; v < n; v++) {
			unit[v] = l->of_op[v];
			if (g->group[v] >= 0)
				join(up, v, n + g->group[v]);
			if (unit[v] >= 0)
				join(up, v, n + g->ngroups + unit[v]);
		}
		/* a group is named after its first layer's module (in op order), else
		 * after its first group of g; an op alone keeps no group */
		for (int v = 0; v < n; v++) {
			int r = find_root(up, v);
			if (unit[v] >= 0 && name_mod[r] < 0)
				name_mod[r] = unit[v];
			if (g->group[v] >= 0 && name_grp[r] < 0)
				name_grp[r] = g->group[v];
		}
		for (int v = 0; v < n && ok; v++) {
			int r = find_root(up, v);
			if (name_mod[r] >= 0) {
				int mod = l->module[name_mod[r]];
				const char *mn = mod > 0 ? m->m[mod].name : "(the model)";
				group_of[v] = malloc(strlen(mn) + 8);
				if (group_of[v])
					snprintf(group_of[v], strlen(mn) + 8, "module %s", mn);
			} else if (name_grp[r] >= 0)
				group_of[v] = strdup(g->group_name[name_grp[r]]);
			ok = group_of[v] || (name_mod[r] < 0 && name_grp[r] < 0);
		}
	}
	if (ok)
		out = copy_with_groups(g, group_of, err);
	else
		sc_error_nomem(err, "the aligned graph");
	for (int v = 0; group_of && v < n; v++)
		free(group_of[v]);
	free(group_of);
	free(up);
	free(unit);
	free(name_mod);
	free(name_grp);
	return out;
}
