/*
 * gen.c - REGAL-style synthetic graphs.  See gen.h.
 */
#include "gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

bool sc_gen_model_parse(const char *text, sc_gen_model *out)
{
	static const char *const names[] = {"any", "er", "ba", "ws"};
	for (int i = 0; i < 4; i++)
		if (strcmp(text, names[i]) == 0) {
			*out = (sc_gen_model)i;
			return true;
		}
	return false;
}

const char *sc_gen_model_name(sc_gen_model m)
{
	static const char *const names[] = {"any", "er", "ba", "ws"};
	return names[m];
}

/* Box-Muller: one draw from N(mean, sd). */
static double normal(sc_rng *r, double mean, double sd)
{
	double u = sc_rng_uniform(r), v = sc_rng_uniform(r);
	if (u < 1e-300)
		u = 1e-300;
	return mean + sd * sqrt(-2 * log(u)) * cos(2 * 3.14159265358979323846 * v);
}

typedef struct edge_list {
	int n, cap;
	int *a, *b;
} edge_list;

static bool add_edge(edge_list *e, int a, int b)
{
	if (a == b)
		return true;
	if (e->n == e->cap) {
		int cap = e->cap ? 2 * e->cap : 256;
		int *na = realloc(e->a, (size_t)cap * sizeof *na);
		if (!na)
			return false;
		e->a = na;
		int *nb = realloc(e->b, (size_t)cap * sizeof *nb);
		if (!nb)
			return false;
		e->b = nb;
		e->cap = cap;
	}
	e->a[e->n] = a;
	e->b[e->n] = b;
	e->n++;
	return true;
}

/* Undirected base graphs; duplicates are merged by the builder. */
static bool base_graph(sc_rng *r, int n, sc_gen_model m, edge_list *e)
{
	bool ok = true;
	if (m == SC_GEN_ER) {
		/* average degree about 3, connected along a random spanning path */
		double p = n > 1 ? 3.0 / (n - 1) : 0;
		for (int i = 1; i < n && ok; i++)
			ok = add_edge(e, sc_rng_below(r, i), i);
		for (int i = 0; i < n && ok; i++)
			for (int j = i + 1; j < n && ok; j++)
				if (sc_rng_uniform(r) < p)
					ok = add_edge(e, i, j);
	} else if (m == SC_GEN_BA) {
		/* preferential attachment, 2 edges per new node: pick an endpoint of
		 * a random existing edge (proportional to degree) */
		for (int i = 1; i < n && ok; i++) {
			int links = i < 2 ? 1 : 2;
			for (int l = 0; l < links && ok; l++) {
				int t = e->n ? (sc_rng_uniform(r) < 0.5 ? e->a : e->b)[sc_rng_below(r, e->n)]
					     : 0;
				ok = add_edge(e, t < i ? t : sc_rng_below(r, i), i);
			}
		}
	} else {
		/* ring lattice of degree 4, each edge rewired with probability 0.1 */
		for (int i = 0; i < n && ok; i++)
			for (int d = 1; d <= 2 && ok; d++) {
				int j = (i + d) % n;
				if (sc_rng_uniform(r) < 0.1)
					j = sc_rng_below(r, n);
				ok = add_edge(e, i, j);
			}
	}
	return ok;
}

sc_graph *sc_gen_regal(int n, uint64_t seed, sc_gen_model model, int k, sc_error *err)
{
	if (n < 1 || n > 10000000) {
		sc_error_set(err, SC_ERR_INPUT, "--nodes must be from 1 to 10000000 (got %d)", n);
		return NULL;
	}
	sc_rng r;
	sc_rng_seed(&r, seed);
	if (model == SC_GEN_ANY)
		model = (sc_gen_model)(1 + sc_rng_below(&r, 3));
	edge_list e = {0};
	int *rank = malloc((size_t)n * sizeof *rank);
	double *size = malloc((size_t)n * sizeof *size), *work = calloc((size_t)n, sizeof *work);
	sc_builder *b = sc_builder_new();
	sc_graph *g = NULL;
	if (!rank || !size || !work || !b || !base_graph(&r, n, model, &e)) {
		sc_error_nomem(err, "the generated graph");
		goto out;
	}
	/* a random topological order: orient each edge from lower to higher rank */
	for (int i = 0; i < n; i++)
		rank[i] = i;
	for (int i = n - 1; i > 0; i--) {
		int j = sc_rng_below(&r, i + 1), t = rank[i];
		rank[i] = rank[j];
		rank[j] = t;
	}
	double total = 0;
	for (int i = 0; i < n; i++) {
		size[i] = fmax(0, normal(&r, 50, 10));
		total += size[i];
	}
	/* each tensor counts once per consumer op: deduplicate pairs first */
	for (int i = 0; i < e.n; i++)
		if (rank[e.a[i]] > rank[e.b[i]]) {
			int t = e.a[i];
			e.a[i] = e.b[i];
			e.b[i] = t;
		}
	char name[64];
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "op%d", i);
		if (sc_builder_add_op(b, name, 0, 0, size[i], NULL, err) < 0)
			goto out;
	}
	for (int i = 0; i < e.n; i++)
		if (sc_builder_add_edge(b, e.a[i], e.b[i], err) != SC_OK)
			goto out;
	sc_settings set;
	sc_settings_init(&set);
	set.k = k;
	sc_builder_set_settings(b, &set);
	snprintf(name, sizeof name, "regal-%s-%d-%llu", sc_gen_model_name(model), n,
		 (unsigned long long)seed);
	g = sc_builder_finish(b, name, name, err);
	if (!g)
		goto out;
	/* work: input tensors (distinct producers) + own output + r * total */
	for (int v = 0; v < n; v++) {
		double w = g->out[v];
		for (int i = g->pred_off[v]; i < g->pred_off[v + 1]; i++)
			w += g->out[g->pred[i]];
		w += normal(&r, 0, 0.1) * total;
		g->work[v] = fmax(0, w);
	}
out:
	free(e.a);
	free(e.b);
	free(rank);
	free(size);
	free(work);
	sc_builder_free(b);
	return g;
}
