/*
 * refine.c - local search on a partition (beyond the papers).
 *
 * Longer than 600 lines: refinement and balancing (below) move the same
 * units with the same closures, ranges and incremental costs, which a split
 * would have to expose.
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
 * Under the GPipe schedule of a training graph the objective is the
 * largest forward cost plus the largest backward cost: the stages tried
 * are all those at either largest, and "fewer stages at the bottleneck"
 * counts them.  The moves follow the order arcs of the units (units.h),
 * and a unit pinned to a stage never moves.
 * Costs are updated incrementally (core/cost.h), so a trial costs the degree
 * of the ops moved plus k.
 *
 * A partition over the hard memory limit is repaired first, in the same
 * way: the units tried are those of every stage over the limit, and a move
 * is kept when it makes the partition fit, or lowers its excess (the bytes
 * over the limit summed over the stages), or keeps the excess and leaves
 * fewer stages over.  Moves alone can stall where every stage that could
 * take a unit is full (making room means moving a unit between two stages
 * that fit, which changes no excess).  So before the first move, and again
 * when a pass finds nothing, the order the partition induces (its units
 * stage by stage, topologically within a stage) is sliced exactly under the
 * limit (slice.h): the partition is one of that order's splits, and the
 * slicer finds a fitting one whenever the order has any, with the least
 * bottleneck.  If that fails too, refinement stops with the partition still
 * over the limit.  Fitting is NP-hard in general (k = 2 without edges is
 * PARTITION), so a repair that always succeeds is not to be had cheaply;
 * what this one guarantees is that a chain (one topological order) is
 * repaired whenever it can be.
 *
 * CPU stages (search_impl.h): the stages keep their devices, and a move
 * onto a stage is tried only when every op moved may go to its device (a
 * CPU stage takes ops with a CPU time, an accelerator stage those it
 * supports), so the partition never puts an op where it may not go.  The
 * costs are core's with the devices (cost.h).  A re-slicing takes the
 * slicer's devices with its split.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "core/mem.h"
#include "core/partition.h"
#include "search_impl.h"
#include "simple.h"

#define MAX_CLOSURE 64

typedef struct refine_state {
	sc_costs *c;
	int *op_stage;
	int *unit_stage;
	int *set;  /* units of the move being tried */
	int *seen; /* stamp per unit */
	int stamp;
	int *from;     /* per unit of the move: its stage before */
	int *order;    /* re-slicing: the induced order of the units */
	int *sliced;   /* re-slicing: a stage per unit */
	int *first;    /* re-slicing: k + 1 bucket starts */
	int scan;      /* next unit to look at in the current pass */
	long moves;    /* moves kept so far (a successful re-slicing counts) */
	long resliced; /* moves when the order was last re-sliced, or -1 */
	bool improved; /* this pass found a move */
	bool done;
	double *prio; /* repair by other orders: random priorities */
	long tries;   /* other orders sliced so far */
	/* balancing, once the bottleneck is done (see "balancing" below) */
	bool balancing;
	bool balanced;     /* done balancing */
	int passes;        /* balancing passes begun */
	int rounds;        /* refinements begun again after a balancing moved */
	long balance_from; /* moves when this balancing began */
	double *sorted;    /* k stage costs, largest first: the partition's now */
	double *trial;     /* the same for a move being tried */
	/* Devices (NULL without): the K stages' kinds, and per unit the kinds
	 * that may run all its ops (bit e for kind e of s->fleet) */
	int *kind;
	unsigned char *udev;
} refine_state;

static void refine_phase_fini(void *state)
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
	free(r->order);
	free(r->sliced);
	free(r->first);
	free(r->prio);
	free(r->sorted);
	free(r->trial);
	free(r->kind);
	free(r->udev);
	free(r);
}

/* With devices: the kinds and each unit's (see refine_state).  False
 * when out of memory. */
static bool devices_init(sc_search *s, refine_state *r, const int *start_kind)
{
	const sc_units *u = s->units;
	const sc_graph *g = s->g;
	r->kind = sc_calloc_n((size_t)s->K, sizeof *r->kind);
	r->udev = sc_malloc_n((size_t)(u->n > 0 ? u->n : 1), sizeof *r->udev);
	if (!r->kind || !r->udev)
		return false;
	for (int i = 0; start_kind && i < s->K; i++)
		r->kind[i] = start_kind[i];
	for (int x = 0; x < u->n; x++) {
		unsigned char d = (unsigned char)((1u << s->fleet.n) - 1);
		for (int i = u->ops_off[x]; i < u->ops_off[x + 1]; i++)
			for (int e = 0; e < s->fleet.n; e++)
				if (!sc_kind_ok(&s->fleet.kind[e], g, u->ops[i]))
					d &= (unsigned char)~(1u << e);
		r->udev[x] = d;
	}
	sc_costs_set_kinds(r->c, r->kind);
	return true;
}

static sc_status refine_phase_init(sc_search *s, const int *start, const int *start_kind,
                                   void **state, sc_error *err)
{
	const sc_units *u = s->units;
	refine_state *r = calloc(1, sizeof *r);
	size_t nu = (size_t)u->n, no = (size_t)s->g->n;
	if (r) {
		r->c = sc_costs_new(s->g, &s->cset, err);
		if (r->c)
			sc_costs_objective_only(r->c);
		r->op_stage = sc_malloc_n(no, sizeof *r->op_stage);
		r->unit_stage = sc_malloc_n(nu, sizeof *r->unit_stage);
		r->set = sc_malloc_n(nu, sizeof *r->set);
		r->seen = sc_calloc_n(nu, sizeof *r->seen);
		r->from = sc_malloc_n(nu, sizeof *r->from);
		r->order = sc_malloc_n(nu, sizeof *r->order);
		r->sliced = sc_malloc_n(nu, sizeof *r->sliced);
		r->first = malloc((size_t)(s->K + 1) * sizeof *r->first);
		r->prio = sc_malloc_n(nu, sizeof *r->prio);
		r->sorted = malloc((size_t)s->K * sizeof *r->sorted);
		r->trial = malloc((size_t)s->K * sizeof *r->trial);
	}
	if (!r || !r->c || !r->op_stage || !r->unit_stage || !r->set || !r->seen || !r->from ||
	    !r->order || !r->sliced || !r->first || !r->prio || !r->sorted || !r->trial ||
	    ((s->fleet.n > 1 || s->assign) && !devices_init(s, r, start_kind))) {
		refine_phase_fini(r);
		return sc_error_nomem(err, "the refinement");
	}
	r->resliced = -1;
	r->done = s->balance_only; /* straight to balancing */
	memcpy(r->op_stage, start, (size_t)s->g->n * sizeof *start);
	for (int v = 0; v < s->g->n; v++)
		r->unit_stage[u->unit_of[v]] = start[v];
	sc_costs_eval(r->c, r->op_stage);
	*state = r;
	return SC_OK;
}

/* Where a partition stands. */
typedef struct standing {
	double value;  /* the objective (the bottleneck), or INFINITY over the hard limit */
	double excess; /* bytes over the limit summed over the stages */
	int count;     /* stages at the bottleneck (within rounding), or over the limit */
	int which;     /* the first of them */
	/* GPipe on a training graph: the objective is the largest forward cost
	 * plus the largest backward cost, so the stages that hold it up are
	 * those at either largest (gpipe; fw and bw are the two); count and
	 * which are about them */
	bool gpipe;
	double fw, bw, tol;
} standing;

/* True when stage i holds up the objective (see standing); over the limit,
 * when it is over. */
static bool holds_up(const sc_costs *c, const standing *w, int i)
{
	if (isinf(w->value))
		return c->st[i].over_memory;
	if (w->gpipe)
		return c->st[i].cost_fw >= w->fw - w->tol || c->st[i].cost_bw >= w->bw - w->tol;
	return c->st[i].cost >= w->value - w->tol;
}

static standing stand(const sc_costs *c)
{
	standing w = {sc_costs_objective(c), 0, 0, 0, false, 0, 0, 0};
	w.tol = 1e-12 * (1 + w.value);
	w.gpipe = c->set.schedule == SC_SCHEDULE_GPIPE && sc_graph_is_training(c->g);
	if (w.gpipe)
		for (int i = 0; i < c->k; i++) {
			w.fw = fmax(w.fw, c->st[i].cost_fw);
			w.bw = fmax(w.bw, c->st[i].cost_bw);
		}
	for (int i = 0; i < c->k; i++) {
		if (!holds_up(c, &w, i))
			continue;
		if (w.count++ == 0)
			w.which = i;
	}
	if (isinf(w.value))
		w.excess = sc_search_excess(c);
	return w;
}

/* True when now is better than was: a lower bottleneck, or the same with
 * fewer stages at it; over the limit, fitting, or a lower excess, or the
 * same with fewer stages over. */
static bool improves(const standing *now, const standing *was, double memory)
{
	if (isfinite(was->value)) {
		double tol = 1e-12 * (1 + was->value);
		return now->value < was->value - tol ||
		       (now->value <= was->value + tol && now->count < was->count);
	}
	if (isfinite(now->value))
		return true;
	double tol = 1e-12 * (memory + was->excess);
	return now->excess < was->excess - tol ||
	       (now->excess <= was->excess + tol && now->count < was->count);
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
		if (u->pin && u->pin[x] >= 0) {
			*lo = *hi = r->unit_stage[x]; /* a pinned unit stays */
			return;
		}
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

/* The devices every unit of the move may go to (DEV_ACCEL | DEV_CPU);
 * both without CPU stages. */
static unsigned set_devices(const refine_state *r, int nset)
{
	unsigned d = ~0u;
	for (int i = 0; r->udev && i < nset; i++)
		d &= r->udev[r->set[i]];
	return d;
}

/* True when stage `to`'s device is among d. */
static inline bool device_takes(const refine_state *r, unsigned d, int to)
{
	return !r->kind || (d & (1u << r->kind[to]));
}

/* Tries moving the set from stage b to every stage in its range; keeps the
 * first move that improves on was.  Returns true when one was kept. */
static bool try_set(sc_search *s, refine_state *r, int nset, int b, const standing *was)
{
	int lo, hi;
	range_of_set(s, r, nset, &lo, &hi);
	unsigned d = set_devices(r, nset);
	for (int to = lo; to <= hi; to++) {
		if (to == b || !device_takes(r, d, to))
			continue;
		move_units(s, r, nset, to);
		s->evals++;
		standing now = stand(r->c);
		if (improves(&now, was, s->set.memory))
			return true;
		undo_units(s, r, nset);
	}
	return false;
}

/* Takes r->sliced (a split within the limit) as the partition.  Returns
 * true when it fits by core's sums too. */
static bool take_sliced(sc_search *s, refine_state *r)
{
	const sc_units *u = s->units;
	memcpy(r->unit_stage, r->sliced, (size_t)u->n * sizeof *r->unit_stage);
	sc_units_expand(u, r->unit_stage, r->op_stage);
	const int *dev = sc_search_slicer_kinds(s);
	if (r->kind && dev) {
		memcpy(r->kind, dev, (size_t)s->K * sizeof *r->kind);
		sc_costs_set_kinds(r->c, r->kind);
	} else if (r->kind && s->assign) {
		/* a split of one kind: the kinds that suit it best */
		sc_costs_assign_kinds(r->c, r->op_stage, r->kind);
	}
	sc_costs_eval(r->c, r->op_stage);
	return sc_costs_feasible(r->c);
}

/* Slices the order the partition induces, exactly under the hard limit,
 * and takes the split when it fits (see the top of the file).  Returns true
 * when the partition fits now. */
static bool reslice(sc_search *s, refine_state *r)
{
	const sc_units *u = s->units;
	int k = r->c->k;
	r->resliced = r->moves;
	for (int b = 0; b <= k; b++)
		r->first[b] = 0;
	for (int x = 0; x < u->n; x++)
		r->first[r->unit_stage[x] + 1]++;
	for (int b = 0; b < k; b++)
		r->first[b + 1] += r->first[b];
	/* stage by stage, and within a stage in u->topo's order */
	for (int i = 0; i < u->n; i++) {
		int x = u->topo[i];
		r->order[r->first[r->unit_stage[x]]++] = x;
	}
	double v = sc_slice(s->slicer, r->order, INFINITY, r->sliced);
	s->evals++;
	if (!(v < INFINITY))
		return false; /* nothing fits, or stopped */
	/* the slicer's sums and core's may differ in the last bits */
	return take_sliced(s, r);
}

/* The last resort of the repair, when moves and the induced order are
 * stuck over the limit: other topological orders (Kahn with random
 * priorities from the search's generator, so the seed decides), each
 * sliced exactly under the limit, until one has a fitting split, until
 * `until`, or after repair_tries orders.  Any fitting partition is a
 * contiguous split of some topological order (its stages one after the
 * other), so this finds one whenever an order it draws has it; it cannot
 * promise to (fitting is NP-hard).  Returns true when the partition fits
 * now. */
#define REPAIR_TRIES 4096

/* At most REPAIR_TRIES orders, fewer on large graphs (a slicing costs about
 * n + m there): a count, not a time, so that the seed decides the result. */
static long repair_tries(const sc_search *s)
{
	double cap = 2e7 / ((double)s->units->n + (double)s->g->m + 1);
	return cap >= REPAIR_TRIES ? REPAIR_TRIES : cap < 8 ? 8 : (long)cap;
}

static bool repair_by_orders(sc_search *s, refine_state *r, double until)
{
	const sc_units *u = s->units;
	while (r->tries < repair_tries(s)) {
		if (sc_search_should_stop(s, 0) || sc_clock_now() >= until)
			return false;
		r->tries++;
		for (int i = 0; i < u->n; i++)
			r->prio[i] = sc_rng_uniform(&s->rng);
		sc_order_kahn(s->orderer, r->prio, r->order);
		double v = sc_slice(s->slicer, r->order, INFINITY, r->sliced);
		s->evals++;
		if (v < INFINITY && take_sliced(s, r))
			return true;
	}
	return false;
}

/* ---- balancing ------------------------------------------------------------ */

/*
 * Once the bottleneck is as low as the moves make it (or the method proved
 * it optimal), the other stages are balanced.  Every partition at the
 * optimal bottleneck is optimal, but one whose other stages sit just under
 * the bottleneck, or that leaves a stage empty while another holds
 * everything after the bottleneck, turns a small error in the costs into a
 * slower pipeline: on measured H100 times the partition of vgg16 (k = 8)
 * the exact DP returned ran 1.3 times slower than the best, with its eighth
 * stage empty.  So a move is kept when the objective stays where it was (not
 * a rounding higher) and the stage costs, sorted largest first, become
 * lexicographically smaller: the largest stage the move changes gets
 * lighter.  Passes go over every unit (a unit and the units of its stage
 * that must go with it, as above) until one finds nothing, at most
 * BALANCE_PASSES of them; only moves to a stage lighter than the unit's
 * are tried.  A kept move never raises the objective nor the number of
 * stages at it (that would sort later), but under GPipe it can open a move
 * that lowers the objective: when balancing moved anything, refinement
 * runs again, then balancing, at most BALANCE_ROUNDS times.  No random
 * choice: the result depends on the start only.
 */
#define BALANCE_PASSES 64
#define BALANCE_ROUNDS 8

static int desc(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x > y ? -1 : x < y;
}

static void sorted_costs(const sc_costs *c, double *out)
{
	for (int i = 0; i < c->k; i++)
		out[i] = c->st[i].cost;
	qsort(out, (size_t)c->k, sizeof *out, desc);
}

/* True when the sorted costs a come lexicographically before b by more
 * than rounding. */
static bool lex_before(const double *a, const double *b, int k)
{
	double tol = 1e-9 * (1 + fabs(b[0]));
	for (int i = 0; i < k; i++) {
		if (a[i] < b[i] - tol)
			return true;
		if (a[i] > b[i] + tol)
			return false;
	}
	return false;
}

/* Tries moving the set from stage b to each lighter stage in its range and
 * keeps the move that sorts first, if it sorts before the partition as it
 * is.  Returns true when one was kept. */
static bool balance_set(sc_search *s, refine_state *r, int nset, int b, double objective)
{
	int lo, hi, best = -1, k = r->c->k;
	range_of_set(s, r, nset, &lo, &hi);
	unsigned d = set_devices(r, nset);
	double from_cost = r->c->st[b].cost;
	for (int to = lo; to <= hi; to++) {
		if (to == b || r->c->st[to].cost >= from_cost || !device_takes(r, d, to))
			continue;
		move_units(s, r, nset, to);
		s->evals++;
		if (sc_costs_objective(r->c) <= objective) {
			sorted_costs(r->c, r->trial);
			if (lex_before(r->trial, r->sorted, k)) {
				best = to;
				memcpy(r->sorted, r->trial, (size_t)k * sizeof *r->sorted);
			}
		}
		undo_units(s, r, nset);
	}
	if (best < 0)
		return false;
	move_units(s, r, nset, best);
	return true;
}

/* One step of balancing; false once it is done. */
static bool balance_step(sc_search *s, refine_state *r, double until)
{
	const sc_units *u = s->units;
	while (!r->balanced) {
		if (sc_search_should_stop(s, 0))
			return false;
		if (r->scan == 0) {
			if (r->passes == BALANCE_PASSES || (r->passes > 0 && !r->improved)) {
				r->balanced = true;
				break;
			}
			r->passes++;
			r->improved = false;
		}
		double objective = sc_costs_objective(r->c);
		if (!isfinite(objective)) {
			r->balanced = true; /* over the limit: nothing to balance */
			break;
		}
		sorted_costs(r->c, r->sorted);
		for (; r->scan < u->n; r->scan++) {
			if ((r->scan & 255) == 255 && sc_clock_now() >= until)
				return true;
			int x = r->scan, b = r->unit_stage[x];
			r->set[0] = x;
			r->seen[x] = ++r->stamp;
			bool moved = balance_set(s, r, 1, b, objective);
			for (int dir = 0; dir < 2 && !moved; dir++) {
				int n = closure(s, r, x, b, dir == 0);
				if (n > 1)
					moved = balance_set(s, r, n, b, objective);
			}
			if (moved) {
				r->improved = true;
				r->moves++;
			}
		}
		r->scan = 0;
	}
	return false;
}

static bool refine_phase_step(sc_search *s, void *state)
{
	refine_state *r = state;
	const sc_units *u = s->units;
	double until = sc_clock_now() + 0.02;
	while (!r->done) {
		if (sc_search_should_stop(s, 0))
			break;
		/* a start over the limit: its own order first */
		bool moved = r->resliced < 0 && !sc_costs_feasible(r->c) && reslice(s, r);
		standing was = stand(r->c);
		bool over = isinf(was.value);
		for (; r->scan < u->n && !moved; r->scan++) {
			/* a pass over a large graph spans steps */
			if ((r->scan & 255) == 255 && sc_clock_now() >= until)
				break;
			int x = r->scan, b = r->unit_stage[x];
			/* the bottleneck stage's units; over the limit, those of
			 * every stage over it */
			if (over || was.gpipe ? !holds_up(r->c, &was, b) : b != was.which)
				continue;
			r->set[0] = x;
			r->seen[x] = ++r->stamp;
			moved = try_set(s, r, 1, b, &was);
			for (int dir = 0; dir < 2 && !moved; dir++) {
				int n = closure(s, r, x, b, dir == 0);
				if (n > 1)
					moved = try_set(s, r, n, b, &was);
			}
		}
		/* a pass found nothing: over the limit, the order of where the
		 * moves led, unless nothing moved since it was last sliced */
		if (!moved && r->scan >= u->n && over && r->resliced != r->moves)
			moved = reslice(s, r);
		/* still stuck over the limit: other orders */
		if (!moved && r->scan >= u->n && over && r->tries < repair_tries(s)) {
			moved = repair_by_orders(s, r, until);
			if (!moved && r->tries < repair_tries(s))
				break; /* out of time for this step: go on next step */
		}
		if (moved) {
			r->moves++;
			r->improved = true;
			r->scan = 0; /* the bottleneck may have moved: start over */
		} else if (r->scan >= u->n) {
			r->done = true;
		}
		if (sc_clock_now() >= until)
			break;
	}
	if (!r->done) {
		sc_search_offer_ops(s, r->op_stage, r->kind, sc_costs_objective(r->c));
		return !sc_search_should_stop(s, 0);
	}
	if (!r->balancing) {
		sc_search_offer_ops(s, r->op_stage, r->kind, sc_costs_objective(r->c));
		r->balancing = true;
		r->balance_from = r->moves;
		r->scan = 0;
		r->improved = false;
	}
	bool more = balance_step(s, r, until);
	sc_search_offer_balanced(s, r->op_stage, r->kind);
	if (!more && r->balanced && r->moves > r->balance_from && r->rounds < BALANCE_ROUNDS &&
	    !sc_search_should_stop(s, 0)) {
		/* the balanced stages may let a unit leave the bottleneck now
		 * (under GPipe): refine again, then balance again */
		r->rounds++;
		r->done = r->balancing = r->balanced = false;
		r->passes = 0;
		r->scan = 0;
		return true;
	}
	return more && !sc_search_should_stop(s, 0);
}

/* ---- the `refine` method: refinement alone, from --partition or greedy -- */

/* Renumbers the stages stage[0..n) (in 0..k) uses as 0, 1, ... in their
 * order. */
static void compact_stages(int *stage, int n, int k)
{
	int *to = sc_malloc_n((size_t)k, sizeof *to);
	if (!to)
		return; /* the check that follows refuses the start */
	for (int b = 0; b < k; b++)
		to[b] = -1;
	for (int v = 0; v < n; v++)
		to[stage[v]] = 0;
	for (int b = 0, next = 0; b < k; b++)
		if (to[b] == 0)
			to[b] = next++;
	for (int v = 0; v < n; v++)
		stage[v] = to[stage[v]];
	free(to);
}

static sc_status refine_method_init(sc_search *s, sc_error *err)
{
	int *start = sc_part_new(s->g);
	if (!start)
		return sc_error_nomem(err, "the refinement");
	if (s->p.start) {
		sc_violation v;
		memcpy(start, s->p.start, (size_t)s->g->n * sizeof *start);
		/* with more stages asked for than ops, the search has k = n (search.c):
		 * a valid start is numbered into the stages it uses, in order, which
		 * keeps it valid and its costs (the others are empty) */
		if (s->k_asked > s->set.k && sc_part_check(s->g, start, s->k_asked, NULL))
			compact_stages(start, s->g->n, s->k_asked);
		/* with CPU stages (no compacting then, search.c): every op on a
		 * device it may go to */
		if ((s->fleet.n > 1 || s->assign) && (s->p.start_kind || !s->assign)
		            ? !sc_part_check_kinds(s->g, start, s->K, &s->fleet, s->p.start_kind,
		                                   &v)
		            : !sc_part_check(s->g, start, s->set.k, &v)) {
			char why[SC_PART_WHY_SIZE];
			sc_part_describe(s->g, start, &v, why, sizeof why);
			free(start);
			return sc_error_set(err, SC_ERR_INPUT,
			                    "the starting partition is invalid: %s", why);
		}
		for (int o = 0; s->set.pin && o < s->g->n; o++)
			if (s->set.pin[o] >= 0 && start[o] != s->set.pin[o]) {
				int at = start[o] + 1, pinned = s->set.pin[o] + 1;
				free(start);
				return sc_error_set(err, SC_ERR_INPUT,
				                    "the starting partition puts '%s' in stage %d, "
				                    "but it is pinned to stage %d",
				                    s->g->op_name[o], at, pinned);
			}
	} else if (sc_search_first_split(s, start, s->offer_kind, err) != SC_OK) {
		free(start);
		return err ? err->code : SC_ERR_NOMEM;
	}
	const int *kind = NULL;
	if (s->fleet.n > 1 || s->assign) {
		/* (the scratch is the offer's: copied, since offers reuse it) */
		if (s->p.start && !s->p.start_kind && s->assign)
			sc_costs_assign_kinds(s->offer_costs, start, s->offer_kind);
		else if (s->p.start)
			for (int i = 0; i < s->K; i++)
				s->offer_kind[i] = s->p.start_kind ? s->p.start_kind[i] : 0;
		kind = s->offer_kind;
	}
	sc_search_offer_ops(s, start, kind, 0);
	sc_status st = refine_phase_init(s, start, kind, &s->state, err);
	free(start);
	return st;
}

static bool refine_method_step(sc_search *s)
{
	return refine_phase_step(s, s->state);
}

static void refine_method_fini(sc_search *s)
{
	refine_phase_fini(s->state);
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

const sc_phase sc_refine_phase = {
        .init = refine_phase_init,
        .step = refine_phase_step,
        .fini = refine_phase_fini,
};
