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
	double *P;    /* (k+1) x (n+1): best bottleneck of a prefix in j stages */
	int *A;       /* (k+1) x (n+1): start of the last segment, or t if empty */
	int *greedy;  /* unit -> stage of the equal-work split */
	int *lo, *hi; /* k+1: the window of prefixes each layer of the DP may end at */
	bool (*stop)(void *ctx);
	void *stop_ctx;
	int until_poll; /* segment extensions until the next stop poll */
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
	free(s->lo);
	free(s->hi);
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
		s->lo = sc_malloc_n((size_t)set->k + 1, sizeof *s->lo);
		s->hi = sc_malloc_n((size_t)set->k + 1, sizeof *s->hi);
	}
	if (!s || !s->pos || !s->maxsucc || !s->mark || !s->P || !s->A || !s->greedy || !s->lo ||
	    !s->hi) {
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

void sc_slicer_set_stop(sc_slicer *s, bool (*stop)(void *ctx), void *ctx)
{
	s->stop = stop;
	s->stop_ctx = ctx;
}

/* Polled every STOP_EVERY segment extensions: a few hundred microseconds
 * of work on any graph, so a stop is seen well within 100 ms. */
#define STOP_EVERY 4096

static inline bool should_stop(sc_slicer *s)
{
	if (--s->until_poll > 0)
		return false;
	s->until_poll = STOP_EVERY;
	return s->stop && s->stop(s->stop_ctx);
}

/* The windows of the DP under the bound ub.  A stage cost is at least its
 * work, so in a split beating ub every stage's work is at most ub.  Work is
 * additive and non-negative, so the prefixes that j such stages can cover
 * are exactly [0, F_j] (F_j by the greedy longest reach), and the suffixes
 * that i stages can cover are [B_i, n].  A prefix t ends j stages of a
 * split into k only if F_j >= t >= B_{k-j}: lo[j] = B_{k-j}, hi[j] = F_j.
 * Returns false when some window is empty (nothing can beat ub). */
static bool windows(sc_slicer *s, const int *order, double ub)
{
	const double *w = s->u->work;
	int n = s->n, k = s->k;
	int *lo = s->lo, *hi = s->hi;
	int t = 0;
	double acc = 0;
	hi[0] = 0;
	for (int j = 1; j <= k; j++) {
		acc = 0;
		while (t < n && acc + w[order[t]] <= ub)
			acc += w[order[t++]];
		hi[j] = t;
	}
	t = n;
	lo[k] = n;
	for (int i = 1; i <= k; i++) {
		acc = 0;
		while (t > 0 && acc + w[order[t - 1]] <= ub)
			acc += w[order[--t]];
		lo[k - i] = t;
	}
	for (int j = 0; j <= k; j++)
		if (lo[j] > hi[j])
			return false;
	return lo[0] == 0 && hi[k] == n;
}

double sc_slice(sc_slicer *s, const int *order, double cutoff, int *unit_stage)
{
	const sc_units *u = s->u;
	const sc_graph *g = s->g;
	int n = s->n, k = s->k;
	if (n == 0)
		return 0;
	s->until_poll = STOP_EVERY;
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
	if (s->stop && s->stop(s->stop_ctx))
		return NAN;
	double greedy = greedy_split(s, order);
	double ub = greedy < cutoff ? greedy : cutoff;
	bool hard = s->set.policy == SC_MEM_HARD;
	double M = s->set.memory;
	const int *lo = s->lo, *hi = s->hi;
	bool any = windows(s, order, ub);

	int W = n + 1;
	double *P = s->P;
	int *A = s->A;
	bool stopped = false;
	if (any) {
		for (int j = 0; j <= k; j++)
			if (lo[j] == 0)
				P[j * W] = 0; /* nothing covered yet: j empty stages */
		/* t in [lo[1], hi[k]]: the prefixes some layer j >= 1 may end at */
		for (int t = lo[1] > 1 ? lo[1] : 1; t <= n && !stopped; t++) {
			/* the layers whose window holds t: ja..jb (windows grow with j) */
			int ja = 1, jb = k;
			while (ja <= k && hi[ja] < t)
				ja++;
			while (jb >= 1 && lo[jb] > t)
				jb--;
			if (ja > jb)
				continue;
			for (int j = ja; j <= jb; j++)
				P[j * W + t] = INFINITY;
			/* a segment [l, t) with l in the window of layer j - 1 */
			int lmin = lo[ja - 1];
			segment seg = {0, 0, 0, 0};
			int st = next_stamp(s);
			for (int l = t - 1; l >= lmin; l--) {
				if (should_stop(s)) {
					stopped = true;
					break;
				}
				add_unit(s, &seg, l, t - 1, order[l], st);
				if (seg.work > ub || (hard && seg.param > M))
					break; /* only grows from here */
				double c = seg_cost(s, &seg);
				if (c > ub)
					continue;
				for (int j = ja; j <= jb; j++) {
					if (l < lo[j - 1] || l > hi[j - 1])
						continue;
					double before = P[(j - 1) * W + l];
					double v = before > c ? before : c;
					if (v < P[j * W + t]) {
						P[j * W + t] = v;
						A[j * W + t] = l;
					}
				}
			}
			/* an empty last stage: as good as one stage fewer */
			for (int j = ja; j <= jb; j++) {
				if (t < lo[j - 1] || t > hi[j - 1])
					continue;
				if (P[(j - 1) * W + t] <= P[j * W + t]) {
					P[j * W + t] = P[(j - 1) * W + t];
					A[j * W + t] = t;
				}
			}
		}
	}
	if (stopped)
		return NAN;
	double best = any ? P[k * W + n] : INFINITY;
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
