/*
 * slice_cpu.c - SliceGraph with CPU stages (001 section 3).  See
 * slice.h; sc_slice and sc_slice_equal_work come here when the settings
 * allow CPU stages (sc_settings.cpus = L > 0), and the slicing without them
 * (slice.c) is left as it was.
 *
 * The order is split into at most k accelerator and L CPU segments, in any
 * interleaving, each segment's device chosen with the split.  The DP runs
 * over (prefix t, accelerator stages j, CPU stages l): P[j][l][t] is the
 * least bottleneck of the first t units in at most j accelerator and l CPU
 * stages, from P[j - 1][l][s] with the segment [s, t) on an accelerator
 * (its cost as in slice.c: the walk's io, work and overflow; infinite when
 * it holds a unit an accelerator may not hold or breaks the hard limit),
 * from P[j][l - 1][s] with it on a CPU (the sum of its CPU times, no io, no
 * memory limit; infinite when a unit has no CPU time), and from
 * P[j - 1][l][t] or P[j][l - 1][t] (an empty stage).  The segments ending
 * at t are walked leftwards as in slice.c, the accelerator's cost kept
 * incrementally and the CPU time summed beside it; the walk stops when
 * neither can stay within the bound any more (the work and the CPU time
 * only grow, and so does the parameter sum).  On a training graph the io
 * is the walk's for training graphs (slice.c), so the rule is the one
 * without CPUs, as in the exact DP (ideals.c): the order follows the order
 * arcs, the io the real edges.
 *
 * The bound prunes as in slice.c, by device: an accelerator stage costs
 * at least its work and a CPU stage its CPU time, so the prefixes j
 * accelerator and l CPU stages within the bound can cover, and the
 * suffixes the other stages can, give each cell (j, l) a window of prefixes
 * (cpu_windows); near a good bound they are narrow.  The bound is the cutoff or, when every unit
 * may go to an accelerator, the accelerators' equal-work split (the CPU stages empty), whichever is
 * lower.  A loose bound makes the windows wide and the walk quadratic, so
 * the DP is first run at the least possible bottleneck (the largest least
 * time of a unit, or their sum over k + L) and at twice that, and so on,
 * while that stays under half the bound: a run at b that finds a split has
 * found the optimum (every split at or below it has its stages within b),
 * and the runs that find none are cheap, their windows narrow.  The split's
 * stages are numbered in pipeline order, an empty stage keeping its place
 * and its device, so exactly k stages are accelerators and L are CPUs
 * (sc_slicer_kinds).
 */
#include <math.h>
#include <stdlib.h>

#include "core/activations.h"
#include "core/mem.h"
#include "slice_impl.h"

/* The cell of (j accelerator stages, l CPU stages, prefix t). */
static inline size_t cell(const sc_slicer *s, int j, int l, int t)
{
	return ((size_t)j * (size_t)(s->L + 1) + (size_t)l) * (size_t)(s->n + 1) + (size_t)t;
}

void sc_slicer_cpu_free(sc_slicer *s)
{
	free(s->ulw);
	free(s->ucpu);
	free(s->uacc);
	free(s->cP);
	free(s->cA);
	free(s->clo);
	free(s->chi);
	free(s->active);
	free(s->dev);
	free(s->csum);
	free(s->nba);
	free(s->nbc);
	free(s->pba);
	free(s->pbc);
}

bool sc_slicer_cpu_init(sc_slicer *s, const sc_settings *set)
{
	const sc_units *u = s->u;
	const sc_graph *g = s->g;
	s->L = set->cpus;
	int K = s->k + s->L;
	size_t nu = (size_t)(u->n > 0 ? u->n : 1);
	size_t cells = (size_t)(s->k + 1) * (size_t)(s->L + 1) * (size_t)(u->n + 1);
	s->ulw = sc_malloc_n(nu, sizeof *s->ulw);
	s->ucpu = sc_malloc_n(nu, sizeof *s->ucpu);
	s->uacc = sc_malloc_n(nu, sizeof *s->uacc);
	s->cP = sc_malloc_n(cells, sizeof *s->cP);
	s->cA = sc_malloc_n(cells, sizeof *s->cA);
	size_t layers = (size_t)(s->k + 1) * (size_t)(s->L + 1), np = (size_t)u->n + 1;
	s->clo = sc_malloc_n(layers, sizeof *s->clo);
	s->chi = sc_malloc_n(layers, sizeof *s->chi);
	s->active = sc_malloc_n(layers, sizeof *s->active);
	s->dev = sc_malloc_n((size_t)K, sizeof *s->dev);
	s->csum = sc_malloc_n(np, sizeof *s->csum);
	s->nba = sc_malloc_n(np, sizeof *s->nba);
	s->nbc = sc_malloc_n(np, sizeof *s->nbc);
	s->pba = sc_malloc_n(np, sizeof *s->pba);
	s->pbc = sc_malloc_n(np, sizeof *s->pbc);
	if (!s->ulw || !s->ucpu || !s->uacc || !s->cP || !s->cA || !s->clo || !s->chi ||
	    !s->active || !s->dev || !s->csum || !s->nba || !s->nbc || !s->pba || !s->pbc)
		return false;
	for (int i = 0; i < K; i++)
		/* (an empty graph's split: the accelerators first) */
		s->dev[i] = i >= s->k ? SC_SLICE_CPU : SC_SLICE_ACCEL;
	s->all_acc = true;
	double B = set->bandwidth, umax = 0;
	for (int x = 0; x < u->n; x++) {
		double cpu = 0;
		bool acc = true, has_cpu = true;
		for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++) {
			int o = u->ops[i];
			acc = acc && sc_graph_accel_ok(g, o);
			if (sc_graph_cpu_ok(g, o))
				cpu += sc_graph_cpu_work(g, o);
			else
				has_cpu = false;
			/* what a stage of either device can cost at most (see below) */
			umax += g->work[o] + 2 * g->out[o] / B + sc_graph_cpu_work(g, o) +
			        (set->policy == SC_MEM_OVERFLOW
			                 ? g->param[o] * sc_acts_param_factor(g) / B
			                 : 0);
		}
		double w = u->work[x];
		s->ucpu[x] = has_cpu ? cpu : INFINITY;
		s->uacc[x] = acc;
		s->all_acc = s->all_acc && acc;
		s->ulw[x] = acc && has_cpu ? fmin(w, cpu) : acc ? w : has_cpu ? cpu : INFINITY;
	}
	/* no stage costs more than umax: an accelerator stage pays its work,
	 * each tensor at most once in and once out, and at most every
	 * parameter byte's overflow; a CPU stage its CPU times */
	s->umax = umax * (1 + 1e-9);
	return true;
}

const int *sc_slicer_kinds(const sc_slicer *s)
{
	return s->L > 0 ? s->dev : NULL;
}

/* The devices of a split that leaves the CPU stages empty: the k
 * accelerators first, then the L CPUs. */
static void accel_first(sc_slicer *s)
{
	for (int i = 0; i < s->k + s->L; i++)
		s->dev[i] = i >= s->k ? SC_SLICE_CPU : SC_SLICE_ACCEL;
}

/* An accelerator segment's cost: as slice.c's, or with ignore_hard
 * without the hard limit. */
static inline double acc_cost(const sc_slicer *s, const segment *seg)
{
	if (s->ignore_hard && s->set.policy == SC_MEM_HARD && seg->param > s->set.memory) {
		double io = seg->in + seg->out;
		return (io > 0 ? io : 0) / s->set.bandwidth + seg->work;
	}
	return seg_cost(s, seg);
}

/* The index of (j accelerator, l CPU stages) in the windows. */
static inline int wi(const sc_slicer *s, int j, int l)
{
	return j * (s->L + 1) + l;
}

/* The prefix sums and blocking positions of order (see the struct). */
static void prefix_sums(sc_slicer *s, const int *order)
{
	int n = s->n;
	s->wsum[0] = s->csum[0] = 0;
	for (int p = 0; p < n; p++) {
		int x = order[p];
		s->wsum[p + 1] = s->wsum[p] + s->u->work[x];
		s->csum[p + 1] = s->csum[p] + (s->ucpu[x] < INFINITY ? s->ucpu[x] : 0);
	}
	s->nba[n] = s->nbc[n] = n;
	for (int p = n - 1; p >= 0; p--) {
		s->nba[p] = s->uacc[order[p]] ? s->nba[p + 1] : p;
		s->nbc[p] = s->ucpu[order[p]] < INFINITY ? s->nbc[p + 1] : p;
	}
	s->pba[0] = s->pbc[0] = -1;
	for (int p = 1; p <= n; p++) {
		s->pba[p] = s->uacc[order[p - 1]] ? s->pba[p - 1] : p - 1;
		s->pbc[p] = s->ucpu[order[p - 1]] < INFINITY ? s->pbc[p - 1] : p - 1;
	}
}

/* The furthest end of a segment from t whose sum (of sum, a prefix sum)
 * stays within ub, not past the blocking position nb[t]. */
static int reach(const double *sum, const int *nb, int t, double ub)
{
	int lo = t, hi = nb[t];
	double most = sum[t] + ub;
	while (lo < hi) {
		int mid = lo + (hi - lo + 1) / 2;
		if (sum[mid] <= most)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* The furthest start back from t, the same way (pb[t]: the last blocking
 * position before t). */
static int reach_back(const double *sum, const int *pb, int t, double ub)
{
	int lo = pb[t] + 1, hi = t;
	double least = sum[t] - ub;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (sum[mid] >= least)
			hi = mid;
		else
			lo = mid + 1;
	}
	return hi;
}

/* The windows under ub (slice.c's windows, by device): a stage costs at
 * least its work on an accelerator, which must hold all its units, and its
 * CPU time on a CPU, which must have one for each, so the prefixes that j
 * accelerator and l CPU stages beating ub can cover end by chi[j][l] (the
 * longest reach of such stages in some order, built from the reaches of
 * one stage fewer: each reach only grows with its start), and the suffixes
 * the others cover start at or after the same from the end; a prefix t
 * ends j, l stages of a split only if t lies in both.  False when nothing
 * can beat ub. */
static bool cpu_windows(sc_slicer *s, const int *order, double ub)
{
	int n = s->n, k = s->k, L = s->L;
	int *lo = s->clo, *hi = s->chi;
	/* (sums in another order than the walk's: a little room for rounding) */
	double b = ub * (1 + 1e-12);
	prefix_sums(s, order);
	for (int j = 0; j <= k; j++)
		for (int l = 0; l <= L; l++) {
			int r = 0;
			if (j > 0) {
				int p = hi[wi(s, j - 1, l)];
				r = p > r ? p : r;
				p = reach(s->wsum, s->nba, p, b);
				r = p > r ? p : r;
			}
			if (l > 0) {
				int p = hi[wi(s, j, l - 1)];
				r = p > r ? p : r;
				p = reach(s->csum, s->nbc, p, b);
				r = p > r ? p : r;
			}
			hi[wi(s, j, l)] = r;
		}
	/* from the end: lo[j][l] is the start of the suffix k - j, L - l stages
	 * cover */
	for (int j = k; j >= 0; j--)
		for (int l = L; l >= 0; l--) {
			int r = n;
			if (j < k) {
				int p = lo[wi(s, j + 1, l)];
				r = p < r ? p : r;
				p = reach_back(s->wsum, s->pba, p, b);
				r = p < r ? p : r;
			}
			if (l < L) {
				int p = lo[wi(s, j, l + 1)];
				r = p < r ? p : r;
				p = reach_back(s->csum, s->pbc, p, b);
				r = p < r ? p : r;
			}
			lo[wi(s, j, l)] = r;
		}
	/* pins: the first j + l stages end within their pin window
	 * (slice.c's pin_windows, over the stages of both devices) */
	for (int j = 0; s->u->pin && j <= k; j++)
		for (int l = 0; l <= L; l++) {
			int w = wi(s, j, l);
			lo[w] = lo[w] > s->plo[j + l] ? lo[w] : s->plo[j + l];
			hi[w] = hi[w] < s->phi[j + l] ? hi[w] : s->phi[j + l];
		}
	return lo[wi(s, 0, 0)] == 0 && hi[wi(s, k, L)] == n;
}

/* Relaxes the cells (j, l, t) the walk serves (active, na of them) by the
 * segment [p, t) on an accelerator (cost acost) and on a CPU (ccost),
 * INFINITY for a device it may not take. */
static void relax(sc_slicer *s, const int *active, int na, int p, int t, double acost, double ccost)
{
	const int *lo = s->clo, *hi = s->chi;
	double *P = s->cP;
	int *A = s->cA;
	for (int i = 0; i < na; i++) {
		int j = active[i] / (s->L + 1), l = active[i] % (s->L + 1);
		size_t at = cell(s, j, l, t);
		int w = wi(s, j - 1, l);
		if (j > 0 && acost < INFINITY && p >= lo[w] && p <= hi[w]) {
			double before = P[cell(s, j - 1, l, p)];
			double v = before > acost ? before : acost;
			if (v < P[at]) {
				P[at] = v;
				A[at] = p;
			}
		}
		w = wi(s, j, l - 1);
		if (l > 0 && ccost < INFINITY && p >= lo[w] && p <= hi[w]) {
			double before = P[cell(s, j, l - 1, p)];
			double v = before > ccost ? before : ccost;
			if (v < P[at]) {
				P[at] = v;
				A[at] = -(p + 1);
			}
		}
	}
}

/* Fills the table under ub within the windows.  False when stopped. */
static bool fill(sc_slicer *s, const int *order, double ub)
{
	int n = s->n, k = s->k, L = s->L;
	const int *lo = s->clo, *hi = s->chi;
	double *P = s->cP;
	int *A = s->cA;
	int *active = s->active;
	bool hard = s->set.policy == SC_MEM_HARD && !s->ignore_hard;
	double M = s->set.memory;
	for (int j = 0; j <= k; j++)
		for (int l = 0; l <= L; l++)
			if (lo[wi(s, j, l)] == 0) {
				P[cell(s, j, l, 0)] = 0; /* nothing covered yet: empty stages */
				A[cell(s, j, l, 0)] = 0;
			}
	for (int t = 1; t <= n; t++) {
		/* the cells whose window holds t, in order of j + l (so that an
		 * empty stage below reads a cell of one stage fewer already
		 * final), and how far back the walk must go for them */
		int na = 0, lmin = t;
		for (int c = 1; c <= k + L; c++)
			for (int j = c - L > 0 ? c - L : 0; j <= (c < k ? c : k); j++) {
				int l = c - j, w = wi(s, j, l);
				if (t < lo[w] || t > hi[w])
					continue;
				active[na++] = w;
				P[cell(s, j, l, t)] = INFINITY;
				if (j > 0 && lo[wi(s, j - 1, l)] < lmin)
					lmin = lo[wi(s, j - 1, l)];
				if (l > 0 && lo[wi(s, j, l - 1)] < lmin)
					lmin = lo[wi(s, j, l - 1)];
			}
		if (na == 0)
			continue;
		segment seg = {0, 0, 0, 0};
		int st = next_stamp(s);
		bool acc = true;
		double cpu = 0;
		for (int p = t - 1; p >= lmin; p--) {
			if (should_stop(s))
				return false;
			int x = order[p];
			if (acc && !s->uacc[x])
				acc = false; /* and stays so as the segment grows */
			if (acc) {
				if (s->training)
					add_unit_training(s, &seg, p, t - 1, x, st);
				else
					add_unit(s, &seg, p, t - 1, x, st);
				if (seg.work > ub || (hard && seg.param > M))
					acc = false; /* only grows from here */
			}
			cpu += s->ucpu[x];
			bool on_cpu = cpu <= ub && cpu < INFINITY;
			if (!acc && !on_cpu)
				break;
			double ac = acc ? acc_cost(s, &seg) : INFINITY;
			relax(s, active, na, p, t, ac <= ub ? ac : INFINITY,
			      on_cpu ? cpu : INFINITY);
		}
		/* an empty last stage, of either device: as good as one fewer */
		for (int i = 0; i < na; i++) {
			int j = active[i] / (L + 1), l = active[i] % (L + 1);
			size_t at = cell(s, j, l, t);
			int w = wi(s, j - 1, l);
			if (j > 0 && t >= lo[w] && t <= hi[w] && P[cell(s, j - 1, l, t)] <= P[at]) {
				P[at] = P[cell(s, j - 1, l, t)];
				A[at] = t;
			}
			w = wi(s, j, l - 1);
			if (l > 0 && t >= lo[w] && t <= hi[w] && P[cell(s, j, l - 1, t)] <= P[at]) {
				P[at] = P[cell(s, j, l - 1, t)];
				A[at] = -(t + 1);
			}
		}
	}
	return true;
}

/* The DP at bound ub: the optimum when some split has every stage within
 * ub, else INFINITY; NAN when stopped. */
static double run(sc_slicer *s, const int *order, double ub)
{
	if (!cpu_windows(s, order, ub))
		return INFINITY;
	if (!fill(s, order, ub))
		return NAN;
	return s->cP[cell(s, s->k, s->L, s->n)];
}

/* The optimum when it is at most ub (else INFINITY; NAN when stopped), by
 * runs at bounds doubling from the least possible bottleneck (see the
 * top). */
static double search(sc_slicer *s, const int *order, double ub)
{
	int K = s->k + s->L;
	double most = 0, sum = 0;
	for (int p = 0; p < s->n; p++) {
		double w = s->ulw[order[p]];
		most = w > most ? w : most;
		sum += w;
	}
	double b = sum / K > most ? sum / K : most;
	if (!(b < INFINITY))
		return INFINITY; /* a unit neither device may hold */
	if (!(b > 0))
		b = s->umax / 1024;
	for (;;) {
		bool last = !(2 * b < ub) || b >= s->umax;
		double v = run(s, order, !last ? b : ub < s->umax ? ub : s->umax);
		if (!isinf(v) || last)
			return v;
		b *= 2;
	}
}

/* Writes the split of the table into unit_stage (may be NULL) and its
 * devices into s->dev.  Returns true when an accelerator stage breaks the
 * hard memory limit (possible only with ignore_hard). */
static bool traceback(sc_slicer *s, const int *order, int *unit_stage)
{
	const sc_units *u = s->u;
	int t = s->n, j = s->k, m = s->L, pos = s->k + s->L - 1;
	bool over = false;
	while (t > 0 && j + m > 0) {
		int a = s->cA[cell(s, j, m, t)];
		bool cpu = a < 0;
		int start = cpu ? -a - 1 : a;
		double param = 0;
		for (int p = start; p < t; p++) {
			if (unit_stage)
				unit_stage[order[p]] = pos;
			param += u->param[order[p]];
		}
		over = over || (!cpu && param > s->set.memory && s->set.policy == SC_MEM_HARD);
		s->dev[pos--] = cpu ? SC_SLICE_CPU : SC_SLICE_ACCEL;
		if (cpu)
			m--;
		else
			j--;
		t = start;
	}
	/* the stages before the first unit: empty, j accelerators and m CPUs */
	for (; pos >= 0; pos--) {
		s->dev[pos] = m > 0 ? SC_SLICE_CPU : SC_SLICE_ACCEL;
		if (m > 0)
			m--;
	}
	return over;
}

double sc_slice_cpu(sc_slicer *s, const int *order, double cutoff, double greedy, int *unit_stage)
{
	/* the accelerators' equal-work split bounds the optimum when every
	 * unit may go to one (the CPU stages empty) and no pin names a stage
	 * it leaves empty (with pins it is no bound) */
	if (!s->all_acc || s->u->pin)
		greedy = INFINITY;
	accel_first(s);
	double v = search(s, order, greedy < cutoff ? greedy : cutoff);
	if (isnan(v))
		return NAN;
	if (isinf(v)) {
		/* nothing at or below the bound: the greedy split is the answer we
		 * have (it exceeds the cutoff, or is itself infeasible), as in
		 * slice.c */
		if (unit_stage && isfinite(greedy))
			for (int p = 0; p < s->n; p++)
				unit_stage[order[p]] = s->greedy[order[p]];
		return greedy;
	}
	traceback(s, order, unit_stage);
	return v;
}

double sc_slice_cpu_equal_work(sc_slicer *s, const int *order, double greedy, int *unit_stage)
{
	accel_first(s);
	/* the accelerators' equal-work split, in s->greedy: the baseline keeps
	 * the CPU stages empty when it may, and is the fallback below */
	for (int p = 0; p < s->n; p++)
		unit_stage[order[p]] = s->greedy[order[p]];
	if (s->all_acc && !s->u->pin)
		return greedy;
	/* a unit needs a CPU, or pins name stages the accelerators' split may
	 * leave empty: the best split of the order by device, the hard
	 * limit ignored so that refinement has a split to repair (search.h),
	 * and without the stop poll, since the callers need a split */
	bool (*stop)(void *) = s->stop;
	s->stop = NULL;
	s->ignore_hard = true;
	s->until_poll = STOP_EVERY;
	double v = search(s, order, INFINITY);
	s->stop = stop;
	s->ignore_hard = false;
	if (isinf(v))
		return INFINITY; /* no split of this order puts every unit on a
		                  * device it may go to: the accelerators' split,
		                  * which the searches refuse (sc_costs_feasible) */
	return traceback(s, order, unit_stage) ? INFINITY : v;
}
