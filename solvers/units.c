/*
 * units.c - contracting groups into a DAG of units.  See units.h.
 *
 * Union-find joins the ops of each group (and the trivial merges); the
 * quotient graph on the unions may have cycles, so Tarjan's algorithm
 * (iterative, to survive long chains) finds its strongly connected
 * components, which become the units.  The component graph is a DAG.
 */
#include "units.h"

#include "contract.h"

#include "core/activations.h"
#include "core/csr.h"
#include "core/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int find(int *parent, int x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

static void join(int *parent, int a, int b)
{
	a = find(parent, a);
	b = find(parent, b);
	if (a != b)
		parent[a < b ? b : a] = a < b ? a : b;
}

/* Tarjan's SCC on a graph of n nodes in CSR form, iteratively.  Writes the
 * component of each node into comp and returns the number of components. */
static int tarjan(int n, const int *off, const int *adj, int *comp)
{
	int *index = malloc((size_t)n * sizeof *index), *low = malloc((size_t)n * sizeof *low);
	int *stack = malloc((size_t)n * sizeof *stack), *call = malloc((size_t)n * sizeof *call);
	int *edge = malloc((size_t)n * sizeof *edge);
	bool *on = calloc((size_t)n, sizeof *on);
	if (!index || !low || !stack || !call || !edge || !on) {
		free(index);
		free(low);
		free(stack);
		free(call);
		free(edge);
		free(on);
		return -1;
	}
	for (int v = 0; v < n; v++)
		index[v] = -1;
	int counter = 0, sp = 0, ncomp = 0;
	for (int root = 0; root < n; root++) {
		if (index[root] >= 0)
			continue;
		int depth = 0;
		call[depth] = root;
		edge[depth] = off[root];
		index[root] = low[root] = counter++;
		stack[sp++] = root;
		on[root] = true;
		while (depth >= 0) {
			int v = call[depth];
			if (edge[depth] < off[v + 1]) {
				int w = adj[edge[depth]++];
				if (index[w] < 0) {
					index[w] = low[w] = counter++;
					stack[sp++] = w;
					on[w] = true;
					depth++;
					call[depth] = w;
					edge[depth] = off[w];
				} else if (on[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			if (low[v] == index[v]) {
				int w;
				do {
					w = stack[--sp];
					on[w] = false;
					comp[w] = ncomp;
				} while (w != v);
				ncomp++;
			}
			depth--;
			if (depth >= 0 && low[v] < low[call[depth]])
				low[call[depth]] = low[v];
		}
	}
	free(index);
	free(low);
	free(stack);
	free(call);
	free(edge);
	free(on);
	return ncomp;
}

void sc_units_free(sc_units *u)
{
	if (!u)
		return;
	free(u->unit_of);
	free(u->ops_off);
	free(u->ops);
	free(u->succ_off);
	free(u->succ);
	free(u->pred_off);
	free(u->pred);
	free(u->work);
	free(u->param);
	free(u->topo);
	free(u->pin);
	free(u);
}

/* The arcs that keep pinned ops in the order of their stages: from every
 * op pinned to a stage to every op pinned to the next stage that has pins
 * (so every topological order of the units lists them by stage, and an
 * ideal holding an op pinned to stage j holds every op pinned before j).
 * Writes them into key, val (op numbers) when not NULL; returns how many.
 * Quadratic in the pins of two neighbouring stages, which a person
 * chooses one by one. */
static long pin_arcs(const sc_graph *g, const int *pin, int *key, int *val)
{
	if (!pin)
		return 0;
	/* the stages that have pins, in order: each time past prev, the
	 * least stage above it that holds one */
	long m = 0;
	for (int prev = -1;;) {
		int next = -1;
		for (int v = 0; v < g->n; v++)
			if (pin[v] > prev && (next < 0 || pin[v] < next))
				next = pin[v];
		if (next < 0)
			return m;
		if (prev >= 0)
			for (int a = 0; a < g->n; a++)
				for (int b = 0; b < g->n && pin[a] == prev; b++)
					if (pin[b] == next) {
						if (key) {
							key[m] = a;
							val[m] = b;
						}
						m++;
					}
		prev = next;
	}
}

/* The units of g for the unions in parent: the strongly connected
 * components of the quotient graph on the unions.  NULL when out of
 * memory. */
static sc_units *build(const sc_graph *g, int *parent, const int *pin)
{
	int n = g->n;
	size_t nn = (size_t)n;
	sc_units *u = calloc(1, sizeof *u);
	int *rep = sc_malloc_n(nn, sizeof *rep);
	long extra = pin_arcs(g, pin, NULL, NULL);
	size_t cap = (size_t)g->m + (size_t)extra;
	int *key = sc_malloc_n(cap, sizeof *key);
	int *val = sc_malloc_n(cap, sizeof *val);
	int *comp = sc_malloc_n(nn, sizeof *comp);
	int *roff = NULL, *radj = NULL, *opsk = NULL, *opsv = NULL;
	if (!u || !rep || !key || !val || !comp)
		goto nomem;
	u->g = g;
	/* number the unions, then find cycles among them */
	int nr = 0;
	for (int v = 0; v < n; v++)
		rep[v] = -1;
	for (int v = 0; v < n; v++) {
		int r = find(parent, v);
		if (rep[r] < 0)
			rep[r] = nr++;
	}
	int m = 0;
	for (int a = 0; a < n; a++)
		for (int i = g->ord_succ_off[a]; i < g->ord_succ_off[a + 1]; i++) {
			int ra = rep[find(parent, a)], rb = rep[find(parent, g->ord_succ[i])];
			if (ra != rb) {
				key[m] = ra;
				val[m] = rb;
				m++;
			}
		}
	int pm = (int)pin_arcs(g, pin, key + m, val + m);
	for (int i = m; i < m + pm; i++) {
		key[i] = rep[find(parent, key[i])];
		val[i] = rep[find(parent, val[i])];
	}
	m += pm;
	if (sc_csr_build(nr, m, key, val, &roff, &radj) < 0)
		goto nomem;
	int nc = tarjan(nr, roff, radj, comp);
	if (nc < 0)
		goto nomem;
	/* Tarjan numbers components in reverse topological order; flip it so
	 * that unit numbers follow the pipeline */
	u->n = nc;
	u->unit_of = sc_malloc_n(nn, sizeof *u->unit_of);
	if (!u->unit_of)
		goto nomem;
	for (int v = 0; v < n; v++)
		u->unit_of[v] = nc - 1 - comp[rep[find(parent, v)]];
	/* members */
	opsk = sc_malloc_n(nn, sizeof *opsk);
	opsv = sc_malloc_n(nn, sizeof *opsv);
	if (!opsk || !opsv)
		goto nomem;
	for (int v = 0; v < n; v++) {
		opsk[v] = u->unit_of[v];
		opsv[v] = v;
	}
	if (sc_csr_build(nc, n, opsk, opsv, &u->ops_off, &u->ops) < 0)
		goto nomem;
	/* unit edges */
	m = 0;
	for (int a = 0; a < n; a++)
		for (int i = g->ord_succ_off[a]; i < g->ord_succ_off[a + 1]; i++) {
			int ua = u->unit_of[a], ub = u->unit_of[g->ord_succ[i]];
			if (ua != ub) {
				key[m] = ua;
				val[m] = ub;
				m++;
			}
		}
	pm = (int)pin_arcs(g, pin, key + m, val + m);
	for (int i = m, end = m + pm; i < end; i++)
		if ((key[m] = u->unit_of[key[i]]) != (val[m] = u->unit_of[val[i]]))
			m++;
	if (sc_csr_build(nc, m, key, val, &u->succ_off, &u->succ) < 0 ||
	    sc_csr_build(nc, m, val, key, &u->pred_off, &u->pred) < 0)
		goto nomem;
	u->work = sc_calloc_n((size_t)nc, sizeof *u->work);
	u->param = sc_calloc_n((size_t)nc, sizeof *u->param);
	u->topo = sc_malloc_n((size_t)nc, sizeof *u->topo);
	if (!u->work || !u->param || !u->topo)
		goto nomem;
	/* a unit's param: what it holds per its parameters (activations.h) */
	double pf = sc_acts_param_factor(g);
	for (int v = 0; v < n; v++) {
		u->work[u->unit_of[v]] += g->work[v];
		u->param[u->unit_of[v]] += g->param[v] * pf;
	}
	/* units are numbered in a topological order already: every edge of the
	 * condensation goes from a lower to a higher number */
	for (int i = 0; i < nc; i++)
		u->topo[i] = i;
	free(rep);
	free(key);
	free(val);
	free(comp);
	free(roff);
	free(radj);
	free(opsk);
	free(opsv);
	return u;
nomem:
	free(rep);
	free(key);
	free(val);
	free(comp);
	free(roff);
	free(radj);
	free(opsk);
	free(opsv);
	sc_units_free(u);
	return NULL;
}

/* Contracts *u by the safe rules of contract.h, round after round until
 * none applies, joining the ops in parent and rebuilding *u.  0, or -1
 * when out of memory (*u is then freed and NULL). */
static int sc_units_contract(sc_units **u, int *parent, double memory)
{
	sc_contract_stats st = (*u)->contraction;
	for (;;) {
		int *into = sc_malloc_n((size_t)((*u)->n > 0 ? (*u)->n : 1), sizeof *into);
		int joins = into ? sc_contract_round(*u, memory, into, &st) : -1;
		if (joins > 0)
			for (int x = 0; x < (*u)->n; x++)
				if (into[x] >= 0)
					join(parent, (*u)->ops[(*u)->ops_off[x]],
					     (*u)->ops[(*u)->ops_off[into[x]]]);
		free(into);
		if (joins <= 0) {
			(*u)->contraction = st;
			if (joins == 0)
				return 0;
			sc_units_free(*u);
			*u = NULL;
			return -1;
		}
		st.rounds++;
		const sc_graph *g = (*u)->g;
		bool cpus = (*u)->cpus;
		sc_units_free(*u);
		*u = build(g, parent, NULL);
		if (!*u)
			return -1;
		(*u)->cpus = cpus;
	}
}

/* Fills u->pin from the ops' pins.  False with err set (SC_ERR_INPUT)
 * when two ops of one unit have different pins: a co-location group, or a
 * cycle that the order and the pin arcs close (an op that must come before
 * another pinned to an earlier stage); or when out of memory. */
static bool unit_pins(sc_units *u, const int *pin, sc_error *err)
{
	const sc_graph *g = u->g;
	u->pin = sc_malloc_n((size_t)(u->n > 0 ? u->n : 1), sizeof *u->pin);
	int *first = sc_malloc_n((size_t)(u->n > 0 ? u->n : 1), sizeof *first);
	if (!u->pin || !first) {
		free(first);
		sc_error_nomem(err, "the pins");
		return false;
	}
	for (int x = 0; x < u->n; x++) {
		u->pin[x] = -1;
		first[x] = -1;
	}
	for (int v = 0; v < g->n; v++) {
		if (pin[v] < 0)
			continue;
		int x = u->unit_of[v];
		if (u->pin[x] >= 0 && u->pin[x] != pin[v]) {
			int w = first[x];
			bool grouped = g->group[w] >= 0 && g->group[w] == g->group[v];
			sc_error_set(
			        err, SC_ERR_INPUT,
			        "the pins cannot all hold: '%s' (stage %d) and '%s' (stage %d) %s",
			        g->op_name[w], pin[w] + 1, g->op_name[v], pin[v] + 1,
			        grouped ? "share a co-location group"
			                : "are tied by the stage order (a path of edges, or a "
			                  "group, between them)");
			free(first);
			return false;
		}
		u->pin[x] = pin[v];
		first[x] = v;
	}
	free(first);
	return true;
}

sc_units *sc_units_new(const sc_graph *g, bool merge_trivial, const sc_settings *set, sc_error *err)
{
	double memory = set ? set->memory : INFINITY;
	int *parent = sc_malloc_n((size_t)g->n, sizeof *parent);
	sc_units *u = NULL;
	if (!parent)
		goto nomem;
	for (int v = 0; v < g->n; v++)
		parent[v] = v;
	for (int i = 0; i < g->ngroups; i++)
		for (int j = g->group_off[i] + 1; j < g->group_off[i + 1]; j++)
			join(parent, g->group_ops[g->group_off[i]], g->group_ops[j]);
	const int *pin = set ? set->pin : NULL;
	u = build(g, parent, pin);
	if (!u)
		goto nomem;
	u->contraction.units_before = u->n;
	u->cpus = set && set->cpus > 0;
	if (pin && !unit_pins(u, pin, err)) {
		free(parent);
		sc_units_free(u);
		return NULL;
	}
	/* contract.c's proofs bound each stage's whole cost, not its cost in
	 * each pass, which the GPipe objective of a training graph adds up;
	 * and they move a unit to its neighbour's stage, which a pin forbids */
	if (sc_graph_is_training(g) && set && set->schedule == SC_SCHEDULE_GPIPE)
		merge_trivial = false;
	/* with a fleet (fleet.h) a unit of zero work on the graph's kind may
	 * take time on another, and kinds differ in memory: contract.h's
	 * proofs bound neither, so nothing is joined */
	if (set && set->fleet)
		merge_trivial = false;
	/* activation memory (activations.h): moving even a unit of no work
	 * and no parameters changes the stash and working peak of the stages
	 * it leaves and joins, which the proofs do not bound; so nothing is
	 * joined where that memory could pass the limit */
	if (g->acts && set && sc_acts_most(g, set, set->k > 0 ? set->k : 1) > memory)
		merge_trivial = false;
	if (merge_trivial && !pin && sc_units_contract(&u, parent, memory) < 0)
		goto nomem;
	u->contraction.units_after = u->n;
	free(parent);
	return u;
nomem:
	free(parent);
	sc_units_free(u);
	sc_error_nomem(err, "the contracted graph");
	return NULL;
}

void sc_units_expand(const sc_units *u, const int *unit_stage, int *op_stage)
{
	for (int v = 0; v < u->g->n; v++)
		op_stage[v] = unit_stage[u->unit_of[v]];
}
