/*
 * graph.c - building and querying sc_graph.
 *
 * The builder collects ops and edges in growable arrays.  Finishing sorts each
 * op's edges into CSR form (counting sort by source, then qsort per list to
 * drop duplicates), finds duplicate names by sorting the names (the sorted
 * index also serves sc_graph_find), numbers the groups the same way, and runs
 * Kahn's algorithm: ops left over lie on or behind a cycle, and walking
 * predecessors among them must close one, which the error message names.
 *
 * Longer than 600 lines: the builder's private representation (ops, edges,
 * backward flags, the ops' devices for CPU stages) is filled by the
 * sc_builder_ calls and taken over by sc_builder_finish; splitting the
 * file would have to expose struct sc_builder to a second one.
 */
#define _POSIX_C_SOURCE 200809L
#include "graph.h"

#include "activations.h"

#include "csr.h"
#include "graph_order.h"
#include "mem.h"
#include "parse.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void sc_settings_init(sc_settings *s)
{
	s->k = 0;
	s->bandwidth = 1.0;
	s->memory = INFINITY;
	s->policy = SC_MEM_OVERFLOW;
	s->schedule = SC_SCHEDULE_1F1B;
	s->cpus = 0;
	s->pin = NULL;
	s->fleet = NULL;
}

const char *sc_schedule_name(sc_schedule s)
{
	return s == SC_SCHEDULE_GPIPE ? "gpipe" : "1f1b";
}

bool sc_schedule_parse(const char *text, sc_schedule *out)
{
	if (strcasecmp(text, "1f1b") == 0 || strcasecmp(text, "pipedream") == 0)
		*out = SC_SCHEDULE_1F1B;
	else if (strcasecmp(text, "gpipe") == 0)
		*out = SC_SCHEDULE_GPIPE;
	else
		return false;
	return true;
}

const char *sc_mem_policy_name(sc_mem_policy p)
{
	return p == SC_MEM_HARD ? "hard" : "overflow";
}

bool sc_mem_policy_parse(const char *text, sc_mem_policy *out)
{
	if (strcmp(text, "overflow") == 0)
		*out = SC_MEM_OVERFLOW;
	else if (strcmp(text, "hard") == 0)
		*out = SC_MEM_HARD;
	else
		return false;
	return true;
}

struct sc_builder {
	int n, cap;
	char **name;
	double *work, *param, *out;
	char **group; /* NULL when none */
	int m, ecap;
	int *efrom, *eto;
	sc_settings settings;
	int *init_stage;
	bool *backward; /* NULL until an op is marked backward */
	int bcap;
	/* sc_builder_set_devices: NULL until an op is given one; dcap long */
	double *cpu_work;
	bool *cpu_ok, *accel_ok;
	int dcap;
	int max_cpus;
};

sc_builder *sc_builder_new(void)
{
	sc_builder *b = calloc(1, sizeof *b);
	if (b) {
		sc_settings_init(&b->settings);
		b->max_cpus = -1;
	}
	return b;
}

void sc_builder_free(sc_builder *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->n; i++) {
		free(b->name[i]);
		free(b->group[i]);
	}
	free(b->name);
	free(b->work);
	free(b->param);
	free(b->out);
	free(b->group);
	free(b->efrom);
	free(b->eto);
	free(b->init_stage);
	free(b->backward);
	free(b->cpu_work);
	free(b->cpu_ok);
	free(b->accel_ok);
	free(b);
}

static bool grow(void **p, int cap, size_t size)
{
	void *q = realloc(*p, (size_t)cap * size);
	if (!q)
		return false;
	*p = q;
	return true;
}

int sc_builder_add_op(sc_builder *b, const char *name, double work, double param, double out,
                      const char *group, sc_error *err)
{
	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 64;
		if (!grow((void **)&b->name, cap, sizeof *b->name) ||
		    !grow((void **)&b->work, cap, sizeof *b->work) ||
		    !grow((void **)&b->param, cap, sizeof *b->param) ||
		    !grow((void **)&b->out, cap, sizeof *b->out) ||
		    !grow((void **)&b->group, cap, sizeof *b->group)) {
			sc_error_nomem(err, "the ops");
			return -1;
		}
		b->cap = cap;
	}
	if (!(isfinite(work) && work >= 0 && isfinite(param) && param >= 0 && isfinite(out) &&
	      out >= 0)) {
		sc_error_set(err, SC_ERR_INPUT, "op '%s': weights must be finite and >= 0", name);
		return -1;
	}
	char *nm = strdup(name);
	char *gr = group && *group ? strdup(group) : NULL;
	if (!nm || (group && *group && !gr)) {
		free(nm);
		free(gr);
		sc_error_nomem(err, "an op name");
		return -1;
	}
	int i = b->n++;
	b->name[i] = nm;
	b->work[i] = work;
	b->param[i] = param;
	b->out[i] = out;
	b->group[i] = gr;
	return i;
}

sc_status sc_builder_add_edge(sc_builder *b, int from, int to, sc_error *err)
{
	if (from < 0 || from >= b->n || to < 0 || to >= b->n)
		return sc_error_set(err, SC_ERR_INTERNAL, "edge %d -> %d names no op", from, to);
	if (b->m == b->ecap) {
		int cap = b->ecap ? 2 * b->ecap : 64;
		if (!grow((void **)&b->efrom, cap, sizeof *b->efrom) ||
		    !grow((void **)&b->eto, cap, sizeof *b->eto))
			return sc_error_nomem(err, "the edges");
		b->ecap = cap;
	}
	b->efrom[b->m] = from;
	b->eto[b->m] = to;
	b->m++;
	return SC_OK;
}

void sc_builder_set_settings(sc_builder *b, const sc_settings *s)
{
	b->settings = *s;
}

sc_status sc_builder_set_init_stage(sc_builder *b, const int *stage, sc_error *err)
{
	free(b->init_stage);
	b->init_stage = NULL;
	if (!stage)
		return SC_OK;
	b->init_stage = sc_malloc_n((size_t)b->n, sizeof *stage);
	if (!b->init_stage)
		return sc_error_nomem(err, "the initial partition");
	memcpy(b->init_stage, stage, (size_t)b->n * sizeof *stage);
	return SC_OK;
}

sc_status sc_builder_set_backward(sc_builder *b, int v, sc_error *err)
{
	if (v < 0 || v >= b->n)
		return sc_error_set(err, SC_ERR_INTERNAL, "op %d to mark backward does not exist",
		                    v);
	if (b->bcap < b->cap) {
		bool *nb = realloc(b->backward, (size_t)b->cap * sizeof *nb);
		if (!nb)
			return sc_error_nomem(err, "the backward flags");
		memset(nb + b->bcap, 0, (size_t)(b->cap - b->bcap) * sizeof *nb);
		b->backward = nb;
		b->bcap = b->cap;
	}
	b->backward[v] = true;
	return SC_OK;
}

sc_status sc_builder_set_devices(sc_builder *b, int v, double cpu_work, bool has_cpu, bool accel_ok,
                                 sc_error *err)
{
	if (v < 0 || v >= b->n)
		return sc_error_set(err, SC_ERR_INTERNAL, "op %d to place does not exist", v);
	if (has_cpu && !(isfinite(cpu_work) && cpu_work >= 0))
		return sc_error_set(err, SC_ERR_INPUT,
		                    "op '%s': the CPU time must be finite and >= 0", b->name[v]);
	if (b->dcap < b->cap) {
		double *w = realloc(b->cpu_work, (size_t)b->cap * sizeof *w);
		if (w)
			b->cpu_work = w;
		bool *c = w ? realloc(b->cpu_ok, (size_t)b->cap * sizeof *c) : NULL;
		if (c)
			b->cpu_ok = c;
		bool *a = c ? realloc(b->accel_ok, (size_t)b->cap * sizeof *a) : NULL;
		if (!a)
			return sc_error_nomem(err, "the devices of the ops");
		b->accel_ok = a;
		for (int i = b->dcap; i < b->cap; i++) {
			b->cpu_work[i] = 0;
			b->cpu_ok[i] = false;
			b->accel_ok[i] = true;
		}
		b->dcap = b->cap;
	}
	b->cpu_work[v] = has_cpu ? cpu_work : 0;
	b->cpu_ok[v] = has_cpu;
	b->accel_ok[v] = accel_ok;
	return SC_OK;
}

void sc_builder_set_max_cpus(sc_builder *b, int cpus)
{
	b->max_cpus = cpus;
}

/* Moves the builder's devices into g (n ops): cpu_work and cpu_ok when some
 * op has a CPU time, accel_ok when some op may not go to an accelerator.
 * False when out of memory. */
static bool take_devices(sc_graph *g, sc_builder *b, int n)
{
	g->max_cpus = b->max_cpus;
	if (!b->cpu_work)
		return true;
	bool any_cpu = false;
	for (int v = 0; v < n; v++) {
		bool ok = v < b->dcap && b->cpu_ok[v];
		any_cpu |= ok;
		if (!(v < b->dcap ? b->accel_ok[v] : true))
			g->accel_refused++;
	}
	size_t nn = (size_t)(n > 0 ? n : 1);
	if (any_cpu) {
		g->cpu_work = calloc(nn, sizeof *g->cpu_work);
		g->cpu_ok = calloc(nn, sizeof *g->cpu_ok);
		if (!g->cpu_work || !g->cpu_ok)
			return false;
		for (int v = 0; v < n && v < b->dcap; v++) {
			g->cpu_work[v] = b->cpu_work[v];
			g->cpu_ok[v] = b->cpu_ok[v];
		}
	}
	if (g->accel_refused > 0) {
		g->accel_ok = malloc(nn * sizeof *g->accel_ok);
		if (!g->accel_ok)
			return false;
		for (int v = 0; v < n; v++)
			g->accel_ok[v] = v < b->dcap ? b->accel_ok[v] : true;
	}
	return true;
}

void sc_graph_free(sc_graph *g)
{
	if (!g)
		return;
	for (int i = 0; i < g->n; i++)
		free(g->op_name[i]);
	for (int i = 0; i < g->ngroups; i++)
		free(g->group_name[i]);
	free(g->op_name);
	free(g->group_name);
	free(g->name);
	free(g->source);
	free(g->work);
	free(g->work_source);
	free(g->made_weight);
	free(g->cost_origin);
	free(g->cost_short);
	free(g->param);
	free(g->out);
	free(g->group);
	free(g->group_off);
	free(g->group_ops);
	free(g->succ_off);
	free(g->succ);
	free(g->pred_off);
	free(g->pred);
	if (g->ord_succ != g->succ) {
		free(g->ord_succ_off);
		free(g->ord_succ);
		free(g->ord_pred_off);
		free(g->ord_pred);
	}
	if (g->ord_topo != g->topo)
		free(g->ord_topo);
	free(g->topo);
	free(g->by_name);
	free(g->init_stage);
	free(g->backward);
	free(g->orphan);
	free(g->cpu_work);
	free(g->cpu_ok);
	free(g->accel_ok);
	free(g->work_kind);
	for (int i = 0; i < g->nkinds; i++) {
		free(g->kind_name[i]);
		free(g->kind_work[i]);
	}
	free(g->kind_name);
	free(g->kind_work);
	free(g->kind_memory);
	free(g->kind_bandwidth);
	sc_acts_free(g->acts);
	free(g);
}

int sc_graph_find_kind(const sc_graph *g, const char *name)
{
	for (int i = 0; i < g->nkinds; i++)
		if (strcmp(g->kind_name[i], name) == 0)
			return i;
	return -1;
}

sc_status sc_graph_add_kind(sc_graph *g, const char *name, double *work, double memory,
                            double bandwidth, sc_error *err)
{
	if (strcmp(name, sc_graph_work_kind(g)) == 0 || strcmp(name, "cpu") == 0 ||
	    sc_graph_find_kind(g, name) >= 0) {
		free(work);
		return sc_error_set(err, SC_ERR_INPUT, "%s: the device '%s' has op times already",
		                    g->source && *g->source ? g->source : g->name, name);
	}
	for (int v = 0; v < g->n; v++)
		if (work[v] == work[v] && !(isfinite(work[v]) && work[v] >= 0)) {
			free(work);
			return sc_error_set(
			        err, SC_ERR_INPUT,
			        "%s: op '%s' has a time on '%s' that is not a finite number "
			        ">= 0",
			        g->source && *g->source ? g->source : g->name, g->op_name[v], name);
		}
	int n = g->nkinds + 1;
	char **nm = realloc(g->kind_name, (size_t)n * sizeof *nm);
	if (nm)
		g->kind_name = nm;
	double **kw = nm ? realloc(g->kind_work, (size_t)n * sizeof *kw) : NULL;
	if (kw)
		g->kind_work = kw;
	double *km = kw ? realloc(g->kind_memory, (size_t)n * sizeof *km) : NULL;
	if (km)
		g->kind_memory = km;
	double *kb = km ? realloc(g->kind_bandwidth, (size_t)n * sizeof *kb) : NULL;
	if (kb)
		g->kind_bandwidth = kb;
	char *copy = kb ? strdup(name) : NULL;
	if (!copy) {
		free(work);
		return sc_error_nomem(err, "a device's op times");
	}
	g->kind_name[g->nkinds] = copy;
	g->kind_work[g->nkinds] = work;
	g->kind_memory[g->nkinds] = memory;
	g->kind_bandwidth[g->nkinds] = bandwidth;
	g->nkinds = n;
	return SC_OK;
}

/* qsort has no context argument in C11, so the sort of names by index goes
 * through this file-local pointer; finishing is therefore not reentrant
 * across threads (loading is single-threaded by design). */
static char **sort_names;

static int cmp_by_name(const void *a, const void *b)
{
	return strcmp(sort_names[*(const int *)a], sort_names[*(const int *)b]);
}

/* Writes "a -> b -> ... -> a" for a cycle through the ops in `left` (ops
 * Kahn's algorithm could not remove) into err. */
static void name_cycle(const sc_graph *g, const bool *left, const char *source, sc_error *err)
{
	int start = -1;
	for (int v = 0; v < g->n && start < 0; v++)
		if (left[v])
			start = v;
	/* every op left over has a predecessor also left over: walk back until an
	 * op repeats; the walk from its first visit is a cycle (reversed) */
	int *seen_at = malloc((size_t)g->n * sizeof *seen_at);
	int *walk = malloc((size_t)(g->n + 1) * sizeof *walk);
	if (!seen_at || !walk) {
		free(seen_at);
		free(walk);
		sc_error_set(err, SC_ERR_INPUT, "%s: the graph has a cycle", source);
		return;
	}
	for (int v = 0; v < g->n; v++)
		seen_at[v] = -1;
	int len = 0, v = start;
	while (seen_at[v] < 0) {
		seen_at[v] = len;
		walk[len++] = v;
		int next = -1;
		for (int i = g->pred_off[v]; i < g->pred_off[v + 1]; i++)
			if (left[g->pred[i]]) {
				next = g->pred[i];
				break;
			}
		v = next;
	}
	int first = seen_at[v];
	int clen = len - first;
	/* walk[first..len) follows predecessors; print it in edge direction */
	char buf[7 * (SC_MSG_NAME_MAX + 30) + 64]; /* up to seven names, bounded */
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; i <= clen; i++) {
		if (clen > 8 && i == 4) {
			used += (size_t)snprintf(buf + used, sizeof buf - used, " -> ... (%d ops)",
			                         clen - 6);
			i = clen - 2;
		}
		int op = walk[first + (clen - i) % clen];
		used += (size_t)sc_msg_format(buf + used, sizeof buf - used, "%s'%s'",
		                              i ? " -> " : "", g->op_name[op]);
		if (used >= sizeof buf)
			break;
	}
	sc_error_set(err, SC_ERR_INPUT, "%s: the graph has a cycle: %s", source, buf);
	free(seen_at);
	free(walk);
}

static sc_status topo_order(sc_graph *g, const char *source, sc_error *err)
{
	int n = g->n;
	int *indeg = sc_malloc_n((size_t)n, sizeof *indeg);
	g->topo = sc_malloc_n((size_t)n, sizeof *g->topo);
	if (!indeg || !g->topo) {
		free(indeg);
		return sc_error_nomem(err, "the topological order");
	}
	int head = 0, tail = 0;
	for (int v = 0; v < n; v++) {
		indeg[v] = sc_graph_indeg(g, v);
		if (indeg[v] == 0)
			g->topo[tail++] = v;
	}
	while (head < tail) {
		int v = g->topo[head++];
		for (int i = g->succ_off[v]; i < g->succ_off[v + 1]; i++)
			if (--indeg[g->succ[i]] == 0)
				g->topo[tail++] = g->succ[i];
	}
	sc_status st = SC_OK;
	if (tail < n) {
		bool *left = malloc((size_t)n * sizeof *left);
		if (!left) {
			st = sc_error_set(err, SC_ERR_INPUT, "%s: the graph has a cycle", source);
		} else {
			for (int v = 0; v < n; v++)
				left[v] = indeg[v] > 0;
			name_cycle(g, left, source, err);
			st = SC_ERR_INPUT;
			free(left);
		}
	}
	free(indeg);
	return st;
}

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

sc_graph *sc_builder_finish(sc_builder *b, const char *source, const char *name, sc_error *err)
{
	sc_graph *g = calloc(1, sizeof *g);
	if (!g) {
		free(b->backward);
		b->backward = NULL;
		b->bcap = 0;
		sc_error_nomem(err, "the graph");
		return NULL;
	}
	int n = b->n;
	size_t nn = (size_t)n;
	/* the backward flags (NULL for an inference graph) become g's at the
	 * end (sc_graph_order_arcs); until then every way out frees them */
	bool *backward = b->backward;
	int bcap = b->bcap;
	b->backward = NULL;
	b->bcap = 0;
	/* the name goes into partition files and JSON reports: a file name
	 * that is not UTF-8 is named with its odd bytes as \xHH */
	g->name = sc_utf8_escape(name ? name : basename_of(source));
	g->source = strdup(source);
	g->settings = b->settings;
	if (!g->name || !g->source)
		goto nomem;
	/* take the op arrays over from the builder */
	g->n = n;
	g->op_name = b->name;
	g->work = b->work;
	g->param = b->param;
	g->out = b->out;
	b->name = NULL;
	b->work = b->param = b->out = NULL;
	char **groups = b->group;
	b->group = NULL;
	g->init_stage = b->init_stage;
	b->init_stage = NULL;
	if (!take_devices(g, b, n)) {
		b->n = b->cap = 0;
		goto nomem_groups;
	}
	b->n = b->cap = 0;
	if (!g->op_name) {
		/* an empty graph: allocate so that accessors stay valid */
		g->op_name = calloc(1, sizeof *g->op_name);
		g->work = calloc(1, sizeof *g->work);
		g->param = calloc(1, sizeof *g->param);
		g->out = calloc(1, sizeof *g->out);
		if (!g->op_name || !g->work || !g->param || !g->out)
			goto nomem_groups;
	}

	/* names: sort, reject duplicates, keep the index for lookups */
	g->by_name = sc_malloc_n(nn, sizeof *g->by_name);
	g->group = sc_malloc_n(nn, sizeof *g->group);
	if (!g->by_name || !g->group)
		goto nomem_groups;
	for (int i = 0; i < n; i++)
		g->by_name[i] = i;
	sort_names = g->op_name;
	qsort(g->by_name, (size_t)n, sizeof *g->by_name, cmp_by_name);
	for (int i = 1; i < n; i++)
		if (strcmp(g->op_name[g->by_name[i]], g->op_name[g->by_name[i - 1]]) == 0) {
			sc_error_set(err, SC_ERR_INPUT, "%s: duplicate op name '%s'", source,
			             g->op_name[g->by_name[i]]);
			goto fail_groups;
		}

	/* groups: number distinct names in sorted order */
	{
		int *idx = sc_malloc_n(nn, sizeof *idx);
		if (!idx)
			goto nomem_groups;
		int cnt = 0;
		for (int i = 0; i < n; i++) {
			g->group[i] = -1;
			if (groups && groups[i])
				idx[cnt++] = i;
		}
		sort_names = groups;
		qsort(idx, (size_t)cnt, sizeof *idx, cmp_by_name);
		g->group_name = sc_malloc_n((size_t)cnt, sizeof *g->group_name);
		if (!g->group_name) {
			free(idx);
			goto nomem_groups;
		}
		for (int i = 0; i < cnt; i++) {
			if (i == 0 || strcmp(groups[idx[i]], g->group_name[g->ngroups - 1]) != 0) {
				g->group_name[g->ngroups++] = groups[idx[i]];
				groups[idx[i]] = NULL; /* ownership moves to group_name */
			}
			g->group[idx[i]] = g->ngroups - 1;
		}
		free(idx);
		for (int i = 0; i < n; i++)
			free(groups ? groups[i] : NULL);
		free(groups);
		groups = NULL;
	}

	/* members of each group, as CSR */
	{
		int *key = sc_malloc_n(nn, sizeof *key), *val = sc_malloc_n(nn, sizeof *val);
		int cnt = 0;
		if (!key || !val) {
			free(key);
			free(val);
			goto nomem;
		}
		for (int v = 0; v < n; v++)
			if (g->group[v] >= 0) {
				key[cnt] = g->group[v];
				val[cnt++] = v;
			}
		int got = sc_csr_build(g->ngroups, cnt, key, val, &g->group_off, &g->group_ops);
		free(key);
		free(val);
		if (got < 0)
			goto nomem;
	}

	/* edges */
	for (int e = 0; e < b->m; e++)
		if (b->efrom[e] == b->eto[e]) {
			sc_error_set(err, SC_ERR_INPUT, "%s: the graph has a cycle: '%s' -> '%s'",
			             source, g->op_name[b->efrom[e]], g->op_name[b->efrom[e]]);
			goto fail;
		}
	g->m = sc_csr_build(n, b->m, b->efrom, b->eto, &g->succ_off, &g->succ);
	if (g->m < 0 || sc_csr_build(n, b->m, b->eto, b->efrom, &g->pred_off, &g->pred) < 0)
		goto nomem;
	if (topo_order(g, source, err) != SC_OK)
		goto fail;
	sc_status ost = sc_graph_order_arcs(g, backward, bcap, source, err);
	backward = NULL; /* g's now */
	if (ost != SC_OK)
		goto fail;
	if (sc_graph_check_totals(g, &g->settings, err) != SC_OK)
		goto fail;
	return g;

nomem_groups:
	if (groups) {
		for (int i = 0; i < n; i++)
			free(groups[i]);
		free(groups);
	}
nomem:
	free(backward);
	sc_error_nomem(err, "the graph");
	sc_graph_free(g);
	return NULL;
fail_groups:
	if (groups) {
		for (int i = 0; i < n; i++)
			free(groups[i]);
		free(groups);
	}
fail:
	free(backward);
	sc_graph_free(g);
	return NULL;
}

int sc_graph_find(const sc_graph *g, const char *name)
{
	int lo = 0, hi = g->n - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		int c = strcmp(g->op_name[g->by_name[mid]], name);
		if (c == 0)
			return g->by_name[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Refuses a total above SC_TOTAL_MAX (an infinite one included). */
static sc_status total_too_large(const sc_graph *g, const char *what, double total,
                                 const char *because, sc_error *err)
{
	char value[64];
	if (isinf(total))
		snprintf(value, sizeof value, "beyond the largest number (%g)", DBL_MAX);
	else
		snprintf(value, sizeof value, "%g", total);
	return sc_error_set(err, SC_ERR_INPUT,
	                    "%s: the total %s of the ops is %s%s, too large to compute costs "
	                    "with (at most %g)",
	                    g->source, what, value, because, SC_TOTAL_MAX);
}

sc_status sc_graph_check_totals(const sc_graph *g, const sc_settings *set, sc_error *err)
{
	double w = 0, p = 0, o = 0, c = 0;
	for (int v = 0; v < g->n; v++) {
		w += g->work[v];
		p += g->param[v];
		o += g->out[v];
		c += sc_graph_cpu_work(g, v);
	}
	char because[96];
	if (!(w <= SC_TOTAL_MAX))
		return total_too_large(g, "work", w, "", err);
	if (!(c <= SC_TOTAL_MAX))
		return total_too_large(g, "CPU time", c, "", err);
	if (!(p <= SC_TOTAL_MAX))
		return total_too_large(g, "param", p, "", err);
	if (!(o <= SC_TOTAL_MAX))
		return total_too_large(g, "out", o, "", err);
	/* the io of a stage is at most 2 out / B (every tensor in and out); an
	 * overflow penalty at most param / B (000 eq. 2) */
	double b = set->bandwidth;
	snprintf(because, sizeof because, " at bandwidth %g", b);
	double io = 2 * o / b;
	if (!(io <= SC_TOTAL_MAX))
		return total_too_large(g, "io (2 out / bandwidth)", io, because, err);
	double pen = set->policy == SC_MEM_OVERFLOW && isfinite(set->memory) ? p / b : 0;
	if (!(pen <= SC_TOTAL_MAX))
		return total_too_large(g, "overflow penalty (param / bandwidth)", pen, because,
		                       err);
	double cost = w + io + pen;
	if (!(cost <= SC_TOTAL_MAX))
		return total_too_large(g, "cost (work + io + overflow)", cost, because, err);
	return SC_OK;
}

double sc_graph_total_work(const sc_graph *g)
{
	double s = 0;
	for (int v = 0; v < g->n; v++)
		s += g->work[v];
	return s;
}
