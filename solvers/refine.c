/*
 * refine.c - local search on a partition (beyond the papers).
 *
 * Slicing a topological order can be k times worse than optimal (000 Lemma
 * B.2) because a stage can only hold a contiguous piece of the order.
 * Refinement works on the partition itself: it takes the bottleneck stage
 * and tries to move one of its units to any stage its edges allow, or a unit
 * together with the units of the same stage that must follow it (its
 * descendants there, when moving later) or precede it (its ancestors there,
 * when moving earlier).  A move is kept when it lowers the bottleneck, or
 * keeps it and leaves fewer stages at the bottleneck; otherwise it is undone.
 * It stops when a whole pass over the bottleneck stage finds nothing.
 * Costs are updated incrementally (core/cost.h), so a trial costs the degree
 * of the ops moved plus k.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "core/partition.h"
#include "search_impl.h"
#include "simple.h"

#define MAX_CLOSURE 64

typedef struct refine_state {
	sc_costs *c;
	int *op_stage;
	int *unit_stage;
	int *set;      /* units of the move being tried */
	int *seen;     /* stamp per unit */
	int stamp;
	int *from;     /* per unit of the move: its stage before */
	int scan;      /* next unit to look at in the current pass */
	bool improved; /* this pass found a move */
	bool done;
} refine_state;

void sc_refine_fini(void *state)
{
	refine_state *r = state;
	if (!r)
		return;
	sc_costs_free(r->c);
	free(r->op_stage);
	free(r->unit_stage);
	free(r->set);
	free(r->seen);
	free(r->from);
	free(r);
}

sc_status sc_refine_init(sc_search *s, const int *start, void **state, sc_error *err)
{
	const sc_units *u = s->units;
	refine_state *r = calloc(1, sizeof *r);
	size_t nu = (size_t)(u->n ? u->n : 1), no = (size_t)(s->g->n ? s->g->n : 1);
	if (r) {
		r->c = sc_costs_new(s->g, &s->set, err);
		r->op_stage = malloc(no * sizeof *r->op_stage);
		r->unit_stage = malloc(nu * sizeof *r->unit_stage);
		r->set = malloc(nu * sizeof *r->set);
		r->seen = calloc(nu, sizeof *r->seen);
		r->from = malloc(nu * sizeof *r->from);
	}
	if (!r || !r->c || !r->op_stage || !r->unit_stage || !r->set || !r->seen || !r->from) {
		sc_refine_fini(r);
		return sc_error_nomem(err, "the refinement");
	}
	memcpy(r->op_stage, start, (size_t)s->g->n * sizeof *start);
	for (int v = 0; v < s->g->n; v++)
		r->unit_stage[u->unit_of[v]] = start[v];
	sc_costs_eval(r->c, r->op_stage);
	*state = r;
	return SC_OK;
}

/* The bottleneck and how many stages are at it (within rounding). */
static double peak(const sc_costs *c, int *count, int *which)
{
	double b = sc_costs_objective(c);
	if (isinf(b)) {
		/* under the hard limit: count the stages over memory instead */
		int n = 0;
		for (int i = 0; i < c->k; i++)
			if (c->st[i].over_memory) {
				if (n++ == 0 && which)
					*which = i;
			}
		*count = n;
		return b;
	}
	int n = 0;
	double tol = 1e-12 * (1 + b);
	for (int i = 0; i < c->k; i++)
		if (c->st[i].cost >= b - tol) {
			if (n++ == 0 && which)
				*which = i;
		}
	*count = n;
	return b;
}

static void move_units(sc_search *s, refine_state *r, int nset, int to)
{
	const sc_units *u = s->units;
	for (int i = 0; i < nset; i++) {
		int x = r->set[i];
		r->from[i] = r->unit_stage[x];
		r->unit_stage[x] = to;
		for (int j = u->ops_off[x]; j < u->ops_off[x + 1]; j++)
			sc_costs_move(r->c, r->op_stage, u->ops[j], to);
	}
}

static void undo_units(sc_search *s, refine_state *r, int nset)
{
	const sc_units *u = s->units;
	for (int i = nset - 1; i >= 0; i--) {
		int x = r->set[i];
		r->unit_stage[x] = r->from[i];
		for (int j = u->ops_off[x]; j < u->ops_off[x + 1]; j++)
			sc_costs_move(r->c, r->op_stage, u->ops[j], r->from[i]);
	}
}

/* Collects x and, following succ (later) or pred (earlier) edges, the units
 * of stage b reachable from it; returns their number or -1 when there are
 * more than MAX_CLOSURE. */
static int closure(sc_search *s, refine_state *r, int x, int b, bool later)
{
	const sc_units *u = s->units;
	const int *off = later ? u->succ_off : u->pred_off;
	const int *adj = later ? u->succ : u->pred;
	int st = ++r->stamp, n = 0, head = 0;
	r->set[n++] = x;
	r->seen[x] = st;
	while (head < n) {
		int y = r->set[head++];
		for (int i = off[y]; i < off[y + 1]; i++) {
			int z = adj[i];
			if (r->unit_stage[z] == b && r->seen[z] != st) {
				if (n == MAX_CLOSURE)
					return -1;
				r->seen[z] = st;
				r->set[n++] = z;
			}
		}
	}
	return n;
}

/* The stages the units in r->set can move to together: [lo, hi]. */
static void range_of_set(sc_search *s, refine_state *r, int nset, int *lo, int *hi)
{
	const sc_units *u = s->units;
	int st = r->stamp;
	*lo = 0;
	*hi = r->c->k - 1;
	for (int i = 0; i < nset; i++) {
		int x = r->set[i];
		for (int j = u->pred_off[x]; j < u->pred_off[x + 1]; j++) {
			int p = u->pred[j];
			if (r->seen[p] != st && r->unit_stage[p] > *lo)
				*lo = r->unit_stage[p];
		}
		for (int j = u->succ_off[x]; j < u->succ_off[x + 1]; j++) {
			int q = u->succ[j];
			if (r->seen[q] != st && r->unit_stage[q] < *hi)
				*hi = r->unit_stage[q];
		}
	}
}

/* Tries moving the set to every stage in its range; keeps the first move
 * that improves (bottleneck, stages at the bottleneck).  Returns true when
 * one was kept. */
static bool try_set(sc_search *s, refine_state *r, int nset, int b, double best, int count)
{
	int lo, hi;
	range_of_set(s, r, nset, &lo, &hi);
	for (int to = lo; to <= hi; to++) {
		if (to == b)
			continue;
		move_units(s, r, nset, to);
		s->evals++;
		int n2;
		double v = peak(r->c, &n2, NULL);
		double tol = isinf(best) ? 0 : 1e-12 * (1 + best);
		bool better = isinf(best) ? (isfinite(v) || n2 < count)
					  : (v < best - tol || (v <= best + tol && n2 < count));
		if (better)
			return true;
		undo_units(s, r, nset);
	}
	return false;
}

bool sc_refine_step(sc_search *s, void *state)
{
	refine_state *r = state;
	const sc_units *u = s->units;
	double until = sc_now() + 0.02;
	while (!r->done) {
		if (sc_search_should_stop(s, 0))
			break;
		int count, b = 0;
		double best = peak(r->c, &count, &b);
		bool moved = false;
		for (; r->scan < u->n && !moved; r->scan++) {
			int x = r->scan;
			if (r->unit_stage[x] != b)
				continue;
			r->set[0] = x;
			r->seen[x] = ++r->stamp;
			moved = try_set(s, r, 1, b, best, count);
			for (int dir = 0; dir < 2 && !moved; dir++) {
				int n = closure(s, r, x, b, dir == 0);
				if (n > 1)
					moved = try_set(s, r, n, b, best, count);
			}
		}
		if (moved) {
			r->improved = true;
			r->scan = 0; /* the bottleneck may have moved: start over */
		} else if (r->scan >= u->n) {
			r->done = true;
		}
		if (sc_now() >= until)
			break;
	}
	sc_search_offer_ops(s, r->op_stage, sc_costs_objective(r->c));
	return !r->done && !sc_search_should_stop(s, 0);
}

/* ---- the `refine` method: refinement alone, from --partition or greedy -- */

static sc_status refine_method_init(sc_search *s, sc_error *err)
{
	int *start = malloc((size_t)(s->g->n ? s->g->n : 1) * sizeof *start);
	if (!start)
		return sc_error_nomem(err, "the refinement");
	if (s->p.start) {
		sc_violation v;
		memcpy(start, s->p.start, (size_t)s->g->n * sizeof *start);
		if (!sc_part_check(s->g, start, s->set.k, &v)) {
			char why[300];
			sc_part_describe(s->g, start, &v, why, sizeof why);
			free(start);
			return sc_error_set(err, SC_ERR_INPUT, "the starting partition is invalid: %s", why);
		}
	} else {
		sc_greedy_split(s->g, s->set.k, start, err);
	}
	sc_search_offer_ops(s, start, 0);
	sc_status st = sc_refine_init(s, start, &s->state, err);
	free(start);
	return st;
}

static bool refine_method_step(sc_search *s)
{
	return sc_refine_step(s, s->state);
}

static void refine_method_fini(sc_search *s)
{
	sc_refine_fini(s->state);
	s->state = NULL;
}

const sc_method sc_method_refine = {
	.name = "refine",
	.help = "local moves from a starting partition (--partition, else a greedy split)",
	.refines_itself = true,
	.init = refine_method_init,
	.step = refine_method_step,
	.fini = refine_method_fini,
};
