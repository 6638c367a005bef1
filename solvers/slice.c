/*
 * slice.c - SliceGraph with incremental segment costs.  See slice.h.
 *
 * Longer than 600 lines: the two ways of filling the one DP table (walking
 * segments leftwards, and rows over two windows with the io as a sum of
 * point weights) share its windows, bounds and traceback, and are tested
 * against each other, so they stay in one file.
 *
 * The walk:
 * Positions are indices into the order.  A segment [l, r] is grown from
 * r down to l.  When unit X (at position l) joins it, for each op x of X:
 *  - x's tensor leaves the segment iff x has a successor after r: io_out;
 *  - if x's tensor was counted as an input (it was outside and fed the
 *    segment), it no longer is;
 *  - each predecessor of x at a position before l feeds the segment now: it
 *    is counted as an input once (a stamp per segment end marks it).
 *
 * Training graphs (graph.h): the order is one of the units' order arcs, but
 * the io runs along the real edges, some of which go against the order (a
 * forward op read by a backward op placed earlier).  A segment may then
 * read tensors produced after it and feed ops before it, and the rules
 * above do not hold.  There the walk keeps, per op, the number of its
 * edges into the segment (add_unit_training): a tensor produced outside is
 * an input while that count is positive, one produced inside an output
 * while the count is below its edges to other units.  The row method
 * holds as it is once a tensor's touch points include consumers before its
 * producer and its span starts at its first touch point (build_points).
 */
#include "slice.h"

#include <math.h>
#include <stdlib.h>

#include "core/mem.h"
#include "slice_impl.h"

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
	free(s->plo);
	free(s->phi);
	free(s->wsum);
	free(s->psum);
	free(s->diff);
	free(s->pa);
	free(s->pb);
	free(s->pw);
	free(s->by_a_off);
	free(s->by_a);
	free(s->by_b_off);
	free(s->by_b);
	free(s->scratch);
	free(s->outdeg);
	free(s->cnt);
	free(s->cmark);
	free(s->span_off);
	free(s->span_op);
	free(s->span_end);
	sc_slicer_cpu_free(s);
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
		size_t np = no + (size_t)u->g->m + 1;
		s->wsum = sc_malloc_n(nu + 1, sizeof *s->wsum);
		s->psum = sc_malloc_n(nu + 1, sizeof *s->psum);
		s->diff = sc_malloc_n(nu + 1, sizeof *s->diff);
		s->pa = sc_malloc_n(np, sizeof *s->pa);
		s->pb = sc_malloc_n(np, sizeof *s->pb);
		s->pw = sc_malloc_n(np, sizeof *s->pw);
		s->by_a_off = sc_malloc_n(nu + 2, sizeof *s->by_a_off);
		s->by_a = sc_malloc_n(np, sizeof *s->by_a);
		s->by_b_off = sc_malloc_n(nu + 2, sizeof *s->by_b_off);
		s->by_b = sc_malloc_n(np, sizeof *s->by_b);
		s->scratch = sc_malloc_n(np, sizeof *s->scratch);
		s->training = sc_graph_is_training(u->g);
	}
	if (!s || !s->pos || !s->maxsucc || !s->mark || !s->P || !s->A || !s->greedy || !s->lo ||
	    !s->hi || !s->wsum || !s->psum || !s->diff || !s->pa || !s->pb || !s->pw ||
	    !s->by_a_off || !s->by_a || !s->by_b_off || !s->by_b || !s->scratch)
		goto nomem;
	if (u->pin) {
		/* a window per stage of all of them, the CPU stages' too */
		size_t K = (size_t)set->k + (size_t)(set->cpus > 0 ? set->cpus : 0);
		s->plo = sc_malloc_n(K + 1, sizeof *s->plo);
		s->phi = sc_malloc_n(K + 1, sizeof *s->phi);
		if (!s->plo || !s->phi)
			goto nomem;
	}
	if (s->training) {
		s->outdeg = sc_calloc_n(no, sizeof *s->outdeg);
		s->cnt = sc_calloc_n(no, sizeof *s->cnt);
		s->cmark = sc_calloc_n(no, sizeof *s->cmark);
		s->span_off = sc_malloc_n(nu + 2, sizeof *s->span_off);
		s->span_op = sc_malloc_n(no, sizeof *s->span_op);
		s->span_end = sc_malloc_n(no, sizeof *s->span_end);
		if (!s->outdeg || !s->cnt || !s->cmark || !s->span_off || !s->span_op ||
		    !s->span_end)
			goto nomem;
		const sc_graph *g = u->g;
		for (int x = 0; x < g->n; x++)
			for (int i = g->succ_off[x]; i < g->succ_off[x + 1]; i++)
				s->outdeg[x] += u->unit_of[g->succ[i]] != u->unit_of[x];
	}
	if (set->cpus > 0 && !sc_slicer_cpu_init(s, set))
		goto nomem;
	return s;
nomem:
	sc_slicer_free(s);
	sc_error_nomem(err, "the slicing tables");
	return NULL;
}

/* The cost of the segment [l, r] from scratch. */
static double segment_cost(sc_slicer *s, const int *order, int l, int r)
{
	segment seg = {0, 0, 0, 0};
	int st = next_stamp(s);
	for (int p = r; p >= l; p--) {
		if (s->training)
			add_unit_training(s, &seg, p, r, order[p], st);
		else
			add_unit(s, &seg, p, r, order[p], st);
	}
	return seg_cost(s, &seg);
}

/* Pins (units.h): the prefixes of order that layer j of the DP (stages 0
 * .. j-1) may end at, [plo[j], phi[j]]: past every unit pinned below j, and
 * before every unit pinned at j or later.  Both only grow with j.  False
 * when some window is empty (the order lists a pinned unit after one
 * pinned to a later stage, which the pin arcs forbid); true without pins.
 * With CPU stages j counts the stages of both devices (slice_cpu.c). */
static bool pin_windows(sc_slicer *s, const int *order)
{
	const int *pin = s->u->pin;
	if (!pin)
		return true;
	int k = s->k + s->L, n = s->n;
	for (int j = 0; j <= k; j++) {
		s->plo[j] = 0;
		s->phi[j] = n;
	}
	for (int p = 0; p < n; p++) {
		int q = pin[order[p]];
		if (q < 0)
			continue;
		if (s->plo[q + 1] < p + 1)
			s->plo[q + 1] = p + 1;
		if (s->phi[q] > p)
			s->phi[q] = p;
	}
	for (int j = 1; j <= k; j++)
		if (s->plo[j] < s->plo[j - 1])
			s->plo[j] = s->plo[j - 1];
	for (int j = k - 1; j >= 0; j--)
		if (s->phi[j] > s->phi[j + 1])
			s->phi[j] = s->phi[j + 1];
	for (int j = 0; j <= k; j++)
		if (s->plo[j] > s->phi[j])
			return false;
	return true;
}

/* The equal-work split in s->greedy moved to the pins: each cut (the
 * prefix layer j ends at) clamped into its pin window, which keeps the cuts
 * in order since both ends of the windows only grow.  Returns the new
 * split's bottleneck. */
static double pin_greedy(sc_slicer *s, const int *order)
{
	int k = s->k, n = s->n, p = 0;
	double worst = 0;
	for (int j = 1; j <= k; j++) {
		int cut = 0;
		while (cut < n && s->greedy[order[cut]] < j)
			cut++;
		if (cut < s->plo[j])
			cut = s->plo[j];
		if (cut > s->phi[j])
			cut = s->phi[j];
		if (cut < p)
			cut = p;
		if (j == k)
			cut = n;
		if (cut > p) {
			double c = segment_cost(s, order, p, cut - 1);
			if (c > worst)
				worst = c;
		}
		for (; p < cut; p++)
			s->greedy[order[p]] = j - 1;
	}
	return worst;
}

/* The equal-work split of order; fills s->greedy, returns its bottleneck.
 * Under pins, moved to them when pin_windows said they can be. */
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
	return s->u->pin && s->pins_ok ? pin_greedy(s, order) : worst;
}

void sc_slicer_set_stop(sc_slicer *s, bool (*stop)(void *ctx), void *ctx)
{
	s->stop = stop;
	s->stop_ctx = ctx;
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
	if (s->u->pin)
		for (int j = 0; j <= k; j++) {
			if (lo[j] < s->plo[j])
				lo[j] = s->plo[j];
			if (hi[j] > s->phi[j])
				hi[j] = s->phi[j];
		}
	for (int j = 0; j <= k; j++)
		if (lo[j] > hi[j])
			return false;
	return lo[0] == 0 && hi[k] == n;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* The touch points of every tensor for the row method (see layer_rows):
 * for op x at position p with successors at the distinct positions
 * s1 < s2 < ... after p, the points (-1, p), (p, s1), (s1, s2), ...; and
 * their indices bucketed by a (a >= 0) and by b.  O(n + m log deg).  On a
 * training graph successors may also sit before p: the points run over
 * the distinct positions of the producer and its consumers, whichever
 * comes first, and each tensor's span (its first to its last touch) is
 * bucketed by its start (span_off, span_op, span_end). */
static void build_points(sc_slicer *s)
{
	const sc_units *u = s->u;
	const sc_graph *g = s->g;
	int n = s->n, np = 0;
	int *q = s->scratch;
	for (int x = 0; x < g->n; x++) {
		int px = s->pos[u->unit_of[x]], cnt = 0;
		if (s->training)
			q[cnt++] = px;
		for (int i = g->succ_off[x]; i < g->succ_off[x + 1]; i++) {
			int p = s->pos[u->unit_of[g->succ[i]]];
			if (p > px || (s->training && p != px))
				q[cnt++] = p;
		}
		if (cnt > 16) {
			qsort(q, (size_t)cnt, sizeof *q, cmp_int);
		} else {
			for (int i = 1; i < cnt; i++) {
				int v = q[i], j = i;
				while (j > 0 && q[j - 1] > v) {
					q[j] = q[j - 1];
					j--;
				}
				q[j] = v;
			}
		}
		int prev = -1;
		/* (on a training graph px is among the q[i] already) */
		for (int i = s->training ? 0 : -1; i < cnt; i++) {
			int b = i < 0 ? px : q[i];
			if (i >= 0 && b == prev)
				continue;
			s->pa[np] = prev;
			s->pb[np] = b;
			s->pw[np] = g->out[x];
			np++;
			prev = b;
		}
		if (s->training) {
			s->span_op[x] = q[0]; /* the start, until bucketed below */
			s->span_end[x] = q[cnt - 1];
		}
	}
	if (s->training) {
		int *so = s->span_off, *start = s->scratch;
		for (int x = 0; x < g->n; x++)
			start[x] = s->span_op[x];
		for (int i = 0; i <= n + 1; i++)
			so[i] = 0;
		for (int x = 0; x < g->n; x++)
			so[start[x] + 2]++;
		for (int i = 2; i <= n + 1; i++)
			so[i] += so[i - 1];
		for (int x = 0; x < g->n; x++)
			s->span_op[so[start[x] + 1]++] = x;
		/* now span_off[b] .. span_off[b + 1] holds the spans starting at b */
	}
	s->npoints = np;
	int *ao = s->by_a_off, *bo = s->by_b_off;
	for (int i = 0; i <= n + 1; i++)
		ao[i] = bo[i] = 0;
	for (int i = 0; i < np; i++) {
		if (s->pa[i] >= 0)
			ao[s->pa[i] + 2]++;
		bo[s->pb[i] + 2]++;
	}
	for (int i = 2; i <= n + 1; i++) {
		ao[i] += ao[i - 1];
		bo[i] += bo[i - 1];
	}
	for (int i = 0; i < np; i++) {
		if (s->pa[i] >= 0)
			s->by_a[ao[s->pa[i] + 1]++] = i;
		s->by_b[bo[s->pb[i] + 1]++] = i;
	}
	/* now off[a] .. off[a + 1] holds bucket a */
}

/*
 * Layer j of the DP by rows.  For a segment [l, r], its io bytes are
 *   T(l, r) - H(l, r),
 * where T sums the tensors that touch it (produced or consumed in it) and H
 * those whose whole span, from the producer to the last consumer, lies in
 * it (io_out counts a tensor produced inside and read after r, io_in one
 * produced before l and read inside: together, the touching tensors that do
 * not lie inside; on a training graph a consumer may come before its
 * producer, and the span is from the first touch point to the last).  A tensor with touch points p0
 * < p1 < ... (its producer, then its consumers' positions) touches [l, r] iff some p_i has p_{i-1}
 * < l <= p_i <= r, for exactly one i; so with the points (a, b) = (p_{i-1}, p_i), T(l, r) sums the
 * points with a < l <= b <= r, and H the spans (a, b) with l <= a, b <= r.  For a fixed l both are
 * sums over b <= r: a difference array over r (diff) holds them, and moving to l + 1 changes only
 * the points with a = l or b = l.  So the io of every (l, r) in the two windows costs O(1) each
 * after O(n / k + points) per layer, instead of re-walking the n / k positions between the windows
 * for every r. Returns false when stopped.
 */
static bool layer_rows(sc_slicer *s, int j, double ub)
{
	const sc_units *u = s->u;
	const sc_graph *g = s->g;
	int W = s->n + 1;
	double *P = s->P, *D = s->diff;
	int *A = s->A;
	const double *ws = s->wsum, *ps = s->psum;
	double B = s->set.bandwidth, M = s->set.memory;
	bool hard = s->set.policy == SC_MEM_HARD;
	int l0 = s->lo[j - 1], l1 = s->hi[j - 1];
	int rlo = s->lo[j] - 1 > l0 ? s->lo[j] - 1 : l0, rhi = s->hi[j] - 1;
	for (int t = s->lo[j]; t <= s->hi[j]; t++)
		P[j * W + t] = INFINITY;
	if (rhi >= rlo) {
		for (int r = rlo; r <= rhi; r++)
			D[r] = 0;
		/* the row of l0: touch points with a < l0 <= b <= rhi, and the
		 * spans starting at l0 or later and ending by rhi */
		for (int b = l0; b <= rhi; b++) {
			if (should_stop(s))
				return false;
			for (int i = s->by_b_off[b]; i < s->by_b_off[b + 1]; i++) {
				int pt = s->by_b[i];
				if (s->pa[pt] < l0)
					D[b > rlo ? b : rlo] += s->pw[pt];
			}
			if (s->training) {
				for (int i = s->span_off[b]; i < s->span_off[b + 1]; i++) {
					int x = s->span_op[i], e = s->span_end[x];
					if (e <= rhi)
						D[e > rlo ? e : rlo] -= g->out[x];
				}
				continue;
			}
			int unit = s->order[b];
			for (int i = u->ops_off[unit]; i < u->ops_off[unit + 1]; i++) {
				int x = u->ops[i];
				int e = s->maxsucc[x] > b ? s->maxsucc[x] : b;
				if (e <= rhi)
					D[e > rlo ? e : rlo] -= g->out[x];
			}
		}
		double pre = 0; /* the sum of D before the row's first r */
		int rw = l0 - 1;
		for (int l = l0; l <= l1; l++) {
			double before = P[(j - 1) * W + l];
			if (rw < l - 1)
				rw = l - 1;
			/* the segments [l, r] within the work bound (and the hard
			 * limit): r up to rw, which only grows with l */
			while (rw + 1 <= rhi && ws[rw + 2] - ws[l] <= ub &&
			       !(hard && ps[rw + 2] - ps[l] > M))
				rw++;
			if (before <= ub) {
				double v = pre;
				for (int r = l > rlo ? l : rlo; r <= rw; r++) {
					if (should_stop(s))
						return false;
					v += D[r];
					double param = ps[r + 1] - ps[l];
					double over = param > M ? (param - M) / B : 0;
					double c = (v > 0 ? v : 0) / B + (ws[r + 1] - ws[l]) + over;
					if (c > ub)
						continue;
					double x = before > c ? before : c;
					/* on a tie the later start wins, as when walking */
					if (x <= P[j * W + r + 1]) {
						P[j * W + r + 1] = x;
						A[j * W + r + 1] = l;
					}
				}
			}
			if (l > rhi)
				continue;
			/* to l + 1: the points with b = l stop touching, those with
			 * a = l start to, and the spans starting at l leave */
			for (int i = s->by_b_off[l]; i < s->by_b_off[l + 1]; i++) {
				int pt = s->by_b[i];
				if (s->pa[pt] < l)
					D[l > rlo ? l : rlo] -= s->pw[pt];
			}
			for (int i = s->by_a_off[l]; i < s->by_a_off[l + 1]; i++) {
				int pt = s->by_a[i], b = s->pb[pt];
				if (b <= rhi)
					D[b > rlo ? b : rlo] += s->pw[pt];
			}
			if (s->training) {
				for (int i = s->span_off[l]; i < s->span_off[l + 1]; i++) {
					int x = s->span_op[i], e = s->span_end[x];
					if (e <= rhi)
						D[e > rlo ? e : rlo] += g->out[x];
				}
			} else {
				int unit = s->order[l];
				for (int i = u->ops_off[unit]; i < u->ops_off[unit + 1]; i++) {
					int x = u->ops[i];
					int e = s->maxsucc[x] > l ? s->maxsucc[x] : l;
					if (e <= rhi)
						D[e > rlo ? e : rlo] += g->out[x];
				}
			}
			if (l >= rlo)
				pre += D[l];
		}
	}
	/* an empty last stage: as good as one stage fewer */
	int t0 = s->lo[j] > l0 ? s->lo[j] : l0, t1 = s->hi[j] < l1 ? s->hi[j] : l1;
	for (int t = t0; t <= t1; t++)
		if (P[(j - 1) * W + t] <= P[j * W + t]) {
			P[j * W + t] = P[(j - 1) * W + t];
			A[j * W + t] = t;
		}
	return true;
}

/* The DP by walking: for each prefix t, the segments [l, t) grown leftwards
 * one unit at a time (add_unit), serving every layer whose window holds t.
 * Returns false when stopped. */
static bool dp_walk(sc_slicer *s, const int *order, double ub)
{
	int n = s->n, k = s->k, W = n + 1;
	const int *lo = s->lo, *hi = s->hi;
	double *P = s->P;
	int *A = s->A;
	bool hard = s->set.policy == SC_MEM_HARD;
	double M = s->set.memory;
	for (int t = lo[1] > 1 ? lo[1] : 1; t <= n; t++) {
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
			if (should_stop(s))
				return false;
			if (s->training)
				add_unit_training(s, &seg, l, t - 1, order[l], st);
			else
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
	return true;
}

/* Below this many units the walk is always taken: it is fast enough
 * there, and it sums each segment's costs in the same order as before the
 * row method existed, so splits that tie up to rounding come out the same
 * (and the searches' results on small graphs stay as they were). */
#define ROWS_MIN_UNITS 4096

/* True when the row method should cost less than the walk: rows pay the
 * pairs of each two windows plus the positions between them once per layer;
 * the walk pays, for every prefix in a window, the positions back to the
 * start of the previous layer's window. */
static bool rows_are_cheaper(const sc_slicer *s)
{
	if (s->n < ROWS_MIN_UNITS)
		return false;
	const int *lo = s->lo, *hi = s->hi;
	int k = s->k;
	double rows = 0, walk = 0;
	for (int j = 1; j <= k; j++) {
		rows += (double)(hi[j] - lo[j - 1] + 1) +
		        (double)(hi[j - 1] - lo[j - 1] + 1) * (double)(hi[j] - lo[j] + 1);
	}
	int ja = 1;
	for (int t = lo[1] > 1 ? lo[1] : 1; t <= s->n; t++) {
		while (ja <= k && hi[ja] < t)
			ja++;
		if (ja <= k && lo[ja] <= t)
			walk += t - lo[ja - 1];
	}
	return rows < walk;
}

void sc_slicer_set_mode(sc_slicer *s, int mode)
{
	s->mode = mode;
}

int sc_slicer_last_mode(const sc_slicer *s)
{
	return s->last_mode;
}

/* The positions of order's units and each op's last successor in it,
 * which every segment cost reads. */
static void set_order(sc_slicer *s, const int *order)
{
	const sc_units *u = s->u;
	const sc_graph *g = s->g;
	s->order = order;
	for (int p = 0; p < s->n; p++)
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
}

double sc_slice(sc_slicer *s, const int *order, double cutoff, int *unit_stage)
{
	const sc_units *u = s->u;
	int n = s->n, k = s->k;
	if (n == 0)
		return 0;
	s->until_poll = STOP_EVERY;
	set_order(s, order);
	if (s->stop && s->stop(s->stop_ctx))
		return NAN;
	s->pins_ok = pin_windows(s, order);
	if (!s->pins_ok)
		return INFINITY;
	double greedy = greedy_split(s, order);
	if (s->L > 0)
		return sc_slice_cpu(s, order, cutoff, greedy, unit_stage);
	double ub = greedy < cutoff ? greedy : cutoff;
	bool any = windows(s, order, ub);
	s->last_mode = SC_SLICE_AUTO;

	int W = n + 1;
	double *P = s->P;
	int *A = s->A;
	if (any) {
		for (int j = 0; j <= k; j++)
			if (s->lo[j] == 0)
				P[j * W] = 0; /* nothing covered yet: j empty stages */
		bool rows = s->mode == SC_SLICE_ROWS ||
		            (s->mode == SC_SLICE_AUTO && rows_are_cheaper(s));
		bool done = true;
		s->last_mode = rows ? SC_SLICE_ROWS : SC_SLICE_WALK;
		if (rows) {
			s->wsum[0] = s->psum[0] = 0;
			for (int p = 0; p < n; p++) {
				s->wsum[p + 1] = s->wsum[p] + u->work[order[p]];
				s->psum[p + 1] = s->psum[p] + u->param[order[p]];
			}
			build_points(s);
			for (int j = 1; j <= k && done; j++)
				done = layer_rows(s, j, ub);
		} else {
			done = dp_walk(s, order, ub);
		}
		if (!done)
			return NAN;
	}
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
	/* (this order's positions: the segment costs read them; they were the
	 * last sliced order's, or unset before the first) */
	set_order(s, order);
	/* an order against the pins keeps the plain split, which the search
	 * then refuses (search.c) */
	s->pins_ok = pin_windows(s, order);
	double v = greedy_split(s, order);
	if (s->L > 0)
		return sc_slice_cpu_equal_work(s, order, v, unit_stage);
	for (int p = 0; p < s->n; p++)
		unit_stage[order[p]] = s->greedy[order[p]];
	return v;
}
