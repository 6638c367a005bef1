/*
 * cost_assign.c - the kinds of a split's stages that make its bottleneck
 * least (sc_costs_assign_kinds, cost.h): a bottleneck assignment of the
 * stages to the fleet's kinds, each kind taking at most its count.
 */
#include "cost.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Finds stage s a kind of cost at most t, moving other stages on to make
 * room (an augmenting path of a bipartite matching in which a kind takes
 * as many stages as its count).  cost holds k x n costs. */
static bool augment(const double *cost, int k, const sc_fleet *f, double t, int s, int *at,
                    int *used, bool *vis)
{
	int n = f->n;
	for (int e = 0; e < n; e++) {
		if (vis[e] || !(cost[(size_t)s * n + e] <= t))
			continue;
		vis[e] = true;
		if (used[e] < f->kind[e].count) {
			at[s] = e;
			used[e]++;
			return true;
		}
		for (int q = 0; q < k; q++)
			if (q != s && at[q] == e && augment(cost, k, f, t, q, at, used, vis)) {
				at[s] = e; /* q left e for another kind: s takes its place */
				return true;
			}
	}
	return false;
}

/* Whether every stage can get a kind of cost at most t within the
 * counts; at (k ints) receives the kinds. */
static bool assign_within(const double *cost, int k, const sc_fleet *f, double t, int *at,
                          int *used)
{
	for (int e = 0; e < f->n; e++)
		used[e] = 0;
	for (int s = 0; s < k; s++)
		at[s] = -1;
	for (int s = 0; s < k; s++) {
		bool vis[SC_KINDS_MAX] = {false};
		if (!augment(cost, k, f, t, s, at, used, vis))
			return false;
	}
	return true;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

bool sc_costs_assign_kinds(sc_costs *c, const int *stage, int *kind)
{
	int k = c->k, n = c->fleet.n;
	if (sc_fleet_stages(&c->fleet) < k || k < 1)
		return false;
	double *cost = malloc((size_t)k * (size_t)n * sizeof *cost);
	double *vals = malloc((size_t)k * (size_t)n * sizeof *vals);
	int *at = malloc((size_t)k * sizeof *at), used[SC_KINDS_MAX];
	if (!cost || !vals || !at) {
		free(cost);
		free(vals);
		free(at);
		return false;
	}
	sc_costs_eval(c, stage);
	int nv = 0;
	for (int s = 0; s < k; s++)
		for (int e = 0; e < n; e++) {
			double v =
			        c->fleet.kind[e].count > 0 ? sc_costs_cost_on(c, s, e) : INFINITY;
			cost[(size_t)s * n + e] = v;
			vals[nv++] = v;
		}
	/* the least threshold that admits a full assignment: a binary search
	 * over the costs, sorted */
	qsort(vals, (size_t)nv, sizeof *vals, cmp_double);
	int lo = 0, hi = nv > 0 ? nv - 1 : 0;
	if (!assign_within(cost, k, &c->fleet, vals[hi], at, used)) {
		/* some stage fits no kind: every kind's count still holds it */
		for (int s = 0; s < k; s++)
			for (int e = 0; e < n; e++)
				cost[(size_t)s * n + e] = 0;
		assign_within(cost, k, &c->fleet, 0, at, used);
	} else {
		while (lo < hi) {
			int mid = (lo + hi) / 2;
			if (assign_within(cost, k, &c->fleet, vals[mid], at, used))
				hi = mid;
			else
				lo = mid + 1;
		}
		assign_within(cost, k, &c->fleet, vals[lo], at, used);
	}
	sc_costs_set_kinds(c, at);
	sc_costs_eval(c, stage);
	if (kind)
		memcpy(kind, at, (size_t)k * sizeof *kind);
	free(cost);
	free(vals);
	free(at);
	return true;
}
