/*
 * slice_impl.h - what slice.c and slice_cpu.c share (private to them): the
 * slicer's state and the incremental segment costs (the walk of slice.c's
 * top comment), as static inline functions so that the CPU-less slicing
 * compiles as it did when they were slice.c's own.
 */
#ifndef SC_SLICE_IMPL_H
#define SC_SLICE_IMPL_H

#include <stdbool.h>

#include "slice.h"

struct sc_slicer {
	const sc_units *u;
	const sc_graph *g;
	sc_settings set;
	int k, n;
	int *pos;     /* unit -> position in the current order */
	int *maxsucc; /* op -> last position of a successor, or -1 */
	int *mark;    /* op -> stamp when its tensor is an input of the segment */
	int stamp;
	double *P;      /* (k+1) x (n+1): best bottleneck of a prefix in j stages */
	int *A;         /* (k+1) x (n+1): start of the last segment, or t if empty */
	int *greedy;    /* unit -> stage of the equal-work split */
	int *lo, *hi;   /* k+1: the window of prefixes each layer of the DP may end at */
	int *plo, *phi; /* k+1: the same under the pins alone (pin_windows) */
	bool pins_ok;   /* the order being sliced can keep the pins */
	bool (*stop)(void *ctx);
	void *stop_ctx;
	int until_poll;   /* segment extensions until the next stop poll */
	int mode;         /* SC_SLICE_AUTO, _WALK or _ROWS */
	const int *order; /* the order being sliced */
	int last_mode;    /* what the last sc_slice used */
	/* the row method (see layer_rows) */
	double *wsum, *psum;  /* n+1: prefix sums of work and param in the order */
	double *diff;         /* n: suffix adds of the io of the current row */
	int *pa, *pb;         /* touch points (a, b) of the tensors, by tensor */
	double *pw;           /* and their weights (the tensor's bytes) */
	int *by_a_off, *by_a; /* point indices by a + 1 (a = -1 for the first) */
	int *by_b_off, *by_b; /* point indices by b */
	int *scratch;         /* one op's successor positions */
	int npoints;
	/* training graphs (see the top) */
	bool training;
	int *outdeg;             /* op -> its edges to other units */
	int *cnt, *cmark;        /* the walk: op -> edges into the segment, valid at stamp */
	int *span_off, *span_op; /* rows: ops by the position of their tensor's first touch */
	int *span_end;           /* rows: op -> the position of its tensor's last touch */
	/* CPU stages (slice_cpu.c): up to L besides the k accelerators; 0
	 * without, and then nothing below is allocated */
	int L;
	double *ulw;      /* unit -> the least time it adds to a stage of a device it may go to */
	double *ucpu;     /* unit -> its CPU time, INFINITY when an op has none */
	bool *uacc;       /* unit -> every op may go to an accelerator */
	bool all_acc;     /* every unit may */
	double umax;      /* no stage costs more (the doubling's end, slice_cpu.c) */
	double *cP;       /* (k+1) x (L+1) x (n+1): best bottleneck of a prefix in j, l stages */
	int *cA;          /* the same: the last segment's start, -(start + 1) for a CPU */
	int *clo, *chi;   /* (k+1) x (L+1): the prefixes j, l stages may end at */
	int *active;      /* (k+1) x (L+1): scratch, the cells a prefix ends */
	double *csum;     /* n+1: prefix sums of CPU time in the order (and wsum, above: work) */
	int *nba, *nbc;   /* n+1: the next position whose unit an accelerator, a CPU refuses */
	int *pba, *pbc;   /* n+1: the last such position before, or -1 */
	int *dev;         /* k+L: the kinds of the last split (SC_SLICE_ACCEL or _CPU) */
	bool ignore_hard; /* cost accelerator stages as if the hard limit were not there */
};

typedef struct segment {
	double work, param, in, out;
} segment;

static int next_stamp(sc_slicer *s)
{
	if (++s->stamp == 0x7fffffff) {
		for (int v = 0; v < s->g->n; v++)
			s->mark[v] = 0;
		if (s->cmark)
			for (int v = 0; v < s->g->n; v++)
				s->cmark[v] = 0;
		s->stamp = 1;
	}
	return s->stamp;
}

/* Op p's edges into the segment of stamp st (0 when not counted yet). */
static inline int *count_of(sc_slicer *s, int p, int st)
{
	if (s->cmark[p] != st) {
		s->cmark[p] = st;
		s->cnt[p] = 0;
	}
	return &s->cnt[p];
}

/* add_unit on a training graph (see the top): the unit at position l joins
 * the segment (l, r] of stamp st, whose ops' edges into it are counted. */
static void add_unit_training(sc_slicer *s, segment *seg, int l, int r, int unit, int st)
{
	const sc_graph *g = s->g;
	const sc_units *u = s->u;
	seg->work += u->work[unit];
	seg->param += u->param[unit];
	for (int i = u->ops_off[unit]; i < u->ops_off[unit + 1]; i++) {
		int x = u->ops[i];
		int c = *count_of(s, x, st);
		if (c > 0)
			seg->in -= g->out[x]; /* read by the segment: now made in it */
		if (c < s->outdeg[x])
			seg->out += g->out[x]; /* some reader outside */
		for (int j = g->pred_off[x]; j < g->pred_off[x + 1]; j++) {
			int p = g->pred[j], up = u->unit_of[p];
			if (up == unit)
				continue;
			int *cp = count_of(s, p, st), pp = s->pos[up];
			++*cp;
			if (pp > l && pp <= r) {
				if (*cp == s->outdeg[p])
					seg->out -= g->out[p]; /* its last reader joined */
			} else if (*cp == 1) {
				seg->in += g->out[p];
			}
		}
	}
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

/* slice_cpu.c (slice.c calls it, never the other way): the CPU tables
 * for set->cpus > 0 (false when out of memory; sc_slicer_cpu_free frees
 * them); sc_slice and sc_slice_equal_work with CPU stages, called by
 * slice.c's once the order is set (positions and last successors) and its
 * accelerators' equal-work split is in s->greedy, greedy its bottleneck. */
bool sc_slicer_cpu_init(sc_slicer *s, const sc_settings *set);
void sc_slicer_cpu_free(sc_slicer *s);
double sc_slice_cpu(sc_slicer *s, const int *order, double cutoff, double greedy, int *unit_stage);
double sc_slice_cpu_equal_work(sc_slicer *s, const int *order, double greedy, int *unit_stage);

#endif
