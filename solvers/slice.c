/*
 * slice.c - SliceGraph with incremental segment costs.  See slice.h.
 *
 * Positions are indices into the order.  A segment [l, r] is grown from
 * r down to l.  When unit X (at position l) joins it, for each op x of X:
 *  - x's tensor leaves the segment iff x has a successor after r: io_out;
 *  - if x's tensor was counted as an input (it was outside and fed the
 *    segment), it no longer is;
 *  - each predecessor of x at a position before l feeds the segment now: it
 *    is counted as an input once (a stamp per segment end marks it).
 */
#include "slice.h"

#include <math.h>
#include <stdlib.h>

#include "core/mem.h"

struct sc_slicer {
	const sc_units *u;
	const sc_graph *g;
	sc_settings set;
	int k, n;
	int *pos;     /* unit -> position in the current order */
	int *maxsucc; /* op -> last position of a successor, or -1 */
	int *mark;    /* op -> stamp when its tensor is an input of the segment */
	int stamp;
	double *P;   /* (k+1) x (n+1): best bottleneck of a prefix in j stages */
	int *A;      /* (k+1) x (n+1): start of the last segment, or t if empty */
	int *greedy; /* unit -> stage of the equal-work split */
};

typedef struct segment {
	double work, param, in, out;
} segment;

void sc_slicer_free(sc_slicer *s)
{
	if (!s)
		return;
	free(s->pos);
	free(s->maxsucc);
	free(s->mark);
	free(s->P);
	free(s->A);
	free(s->greedy);
	free(s);
}

sc_slicer *sc_slicer_new(const sc_units *u, const sc_settings *set, sc_error *err)
{
	if (set->k < 1) {
		sc_error_set(err, SC_ERR_INPUT, "k must be at least 1 (got %d)", set->k);
		return NULL;
	}
	sc_slicer *s = calloc(1, sizeof *s);
	size_t nu = (size_t)u->n, no = (size_t)u->g->n;
	size_t cells = (size_t)(set->k + 1) * (size_t)(u->n + 1);
	if (s) {
		s->u = u;
		s->g = u->g;
		s->set = *set;
		s->k = set->k;
		s->n = u->n;
		s->pos = sc_malloc_n(nu, sizeof *s->pos);
		s->maxsucc = sc_malloc_n(no, sizeof *s->maxsucc);
		s->mark = sc_calloc_n(no, sizeof *s->mark);
		s->P = malloc(cells * sizeof *s->P);
		s->A = malloc(cells * sizeof *s->A);
		s->greedy = sc_malloc_n(nu, sizeof *s->greedy);
	}
	if (!s || !s->pos || !s->maxsucc || !s->mark || !s->P || !s->A || !s->greedy) {
		sc_slicer_free(s);
		sc_error_nomem(err, "the slicing tables");
		return NULL;
	}
	return s;
}

static int next_stamp(sc_slicer *s)
{
	if (++s->stamp == 0x7fffffff) {
		for (int v = 0; v < s->g->n; v++)
			s->mark[v] = 0;
		s->stamp = 1;
	}
	return s->stamp;
}

/* Adds the unit at position l to the segment ending at r (stamp st). */
static inline void add_unit(sc_slicer *s, segment *seg, int l, int r, int unit, int st)
{
	const sc_graph *g = s->g;
	const sc_units *u = s->u;
	seg->work += u->work[unit];
	seg->param += u->param[unit];
	for (int i = u->ops_off[unit]; i < u->ops_off[unit + 1]; i++) {
		int x = u->ops[i];
		if (s->maxsucc[x] > r)
			seg->out += g->out[x];
		if (s->mark[x] == st) {
			seg->in -= g->out[x];
			s->mark[x] = 0;
		}
		for (int j = g->pred_off[x]; j < g->pred_off[x + 1]; j++) {
			int p = g->pred[j];
			if (s->pos[u->unit_of[p]] < l && s->mark[p] != st) {
				s->mark[p] = st;
				seg->in += g->out[p];
			}
		}
	}
}

static inline double seg_cost(const sc_slicer *s, const segment *seg)
{
	double B = s->set.bandwidth, M = s->set.memory;
	double over = 0;
	if (seg->param > M) {
		if (s->set.policy == SC_MEM_HARD)
			return INFINITY;
		over = (seg->param - M) / B;
	}
	/* in and out are sums of non-negative terms; clamp rounding residue */
	double io = seg->in + seg->out;
	return (io > 0 ? io : 0) / B + seg->work + over;
}

/* The cost of the segment [l, r] from scratch. */
static double segment_cost(sc_slicer *s, const int *order, int l, int r)
{
	segment seg = {0, 0, 0, 0};
	int st = next_stamp(s);
	for (int p = r; p >= l; p--)
		add_unit(s, &seg, p, r, order[p], st);
	return seg_cost(s, &seg);
}

/* The equal-work split of order; fills s->greedy, returns its bottleneck. */
static double greedy_split(sc_slicer *s, const int *order)
{
	double total = 0;
	for (int p = 0; p < s->n; p++)
		total += s->u->work[order[p]];
	double done = 0, worst = 0;
	int stage = 0, start = 0;
	for (int p = 0; p <= s->n; p++) {
		bool cut = p == s->n ||
		           (stage < s->k - 1 && total > 0 && done >= total * (stage + 1) / s->k);
		if (cut && p > start) {
			double c = segment_cost(s, order, start, p - 1);
			if (c > worst)
				worst = c;
			start = p;
			if (p < s->n)
				stage++;
		}
		if (p < s->n) {
			s->greedy[order[p]] = stage;
			done += s->u->work[order[p]];
		}
	}
	return worst;
}

double sc_slice(sc_slicer *s, const int *order, double cutoff, int *unit_stage)
{
	const sc_units *u = s->u;
	const sc_graph *g = s->g;
	int n = s->n, k = s->k;
	if (n == 0)
		return 0;
	for (int p = 0; p < n; p++)
		s->pos[order[p]] = p;
	for (int x = 0; x < g->n; x++) {
		int last = -1;
		for (int i = g->succ_off[x]; i < g->succ_off[x + 1]; i++) {
			int p = s->pos[u->unit_of[g->succ[i]]];
			if (p > last)
				last = p;
		}
		s->maxsucc[x] = last;
	}
	double greedy = greedy_split(s, order);
	double ub = greedy < cutoff ? greedy : cutoff;
	bool hard = s->set.policy == SC_MEM_HARD;
	double M = s->set.memory;

	int W = n + 1;
	double *P = s->P;
	int *A = s->A;
	P[0] = 0;
	for (int t = 1; t <= n; t++)
		P[t] = INFINITY;
	for (int j = 1; j <= k; j++)
		P[j * W] = 0;
	for (int t = 1; t <= n; t++) {
		for (int j = 1; j <= k; j++)
			P[j * W + t] = INFINITY;
		segment seg = {0, 0, 0, 0};
		int st = next_stamp(s);
		for (int l = t - 1; l >= 0; l--) {
			add_unit(s, &seg, l, t - 1, order[l], st);
			if (seg.work > ub || (hard && seg.param > M))
				break; /* only grows from here */
			double c = seg_cost(s, &seg);
			if (c > ub)
				continue;
			for (int j = 1; j <= k; j++) {
				double before = P[(j - 1) * W + l];
				double v = before > c ? before : c;
				if (v < P[j * W + t]) {
					P[j * W + t] = v;
					A[j * W + t] = l;
				}
			}
		}
		/* an empty last stage: as good as one stage fewer */
		for (int j = 1; j <= k; j++)
			if (P[(j - 1) * W + t] <= P[j * W + t]) {
				P[j * W + t] = P[(j - 1) * W + t];
				A[j * W + t] = t;
			}
	}
	double best = P[k * W + n];
	if (isinf(best)) {
		/* nothing at or below the bound: the greedy split is the answer we
		 * have (it exceeds the cutoff, or is itself infeasible) */
		if (unit_stage && isfinite(greedy))
			for (int p = 0; p < n; p++)
				unit_stage[order[p]] = s->greedy[order[p]];
		return greedy;
	}
	if (unit_stage) {
		int t = n, j = k;
		while (t > 0 && j > 0) {
			int l = A[j * W + t];
			for (int p = l; p < t; p++)
				unit_stage[order[p]] = j - 1;
			t = l;
			j--;
		}
	}
	return best;
}

double sc_slice_equal_work(sc_slicer *s, const int *order, int *unit_stage)
{
	if (s->n == 0)
		return 0;
	double v = greedy_split(s, order);
	for (int p = 0; p < s->n; p++)
		unit_stage[order[p]] = s->greedy[order[p]];
	return v;
}
