/*
 * slicing.c - the methods that slice topological orders of the units:
 * kahn (one random Kahn order cut into equal work), slice and random-T
 * (the best SliceGraph over random Kahn orders, 000 Alg. 1 and 3) and dpl
 * (SliceGraph on a depth-first order, 001 section 5.1.2).
 *
 * Each is an sc_method (search_impl.h) listed by the registry in methods.c;
 * they share one state (priorities, an order and a stage per unit) and
 * report through the framework (search.c).  The orders are order.c's, the
 * slicing slice.c's; the genetic searches over orders are in brkga.c.
 * With CPU stages each offer carries the slicer's devices
 * (sc_slicer_kinds): the slicing chooses them, and kahn's equal-work
 * split leaves the CPU stages empty where it may (slice.h).
 */
#include "search_impl.h"

#include <math.h>
#include <stdlib.h>

#include "core/mem.h"

typedef struct simple_state {
	double *prio;
	int *order;
	int *unit_stage;
	long budget;
} simple_state;

static sc_status simple_init(sc_search *s, sc_error *err)
{
	simple_state *st = calloc(1, sizeof *st);
	size_t n = (size_t)s->units->n;
	if (st) {
		st->prio = sc_malloc_n(n, sizeof *st->prio);
		st->order = sc_malloc_n(n, sizeof *st->order);
		st->unit_stage = sc_malloc_n(n, sizeof *st->unit_stage);
	}
	if (!st || !st->prio || !st->order || !st->unit_stage) {
		if (st) {
			free(st->prio);
			free(st->order);
			free(st->unit_stage);
		}
		free(st);
		return sc_error_nomem(err, "the search");
	}
	st->budget = s->p.evals > 0 ? s->p.evals : 1;
	s->state = st;
	return SC_OK;
}

static void simple_fini(sc_search *s)
{
	simple_state *st = s->state;
	if (st) {
		free(st->prio);
		free(st->order);
		free(st->unit_stage);
		free(st);
	}
	s->state = NULL;
}

static void random_priorities(sc_search *s, double *prio)
{
	for (int i = 0; i < s->units->n; i++)
		prio[i] = sc_rng_uniform(&s->rng);
}

static bool kahn_step(sc_search *s)
{
	simple_state *st = s->state;
	random_priorities(s, st->prio);
	sc_order_kahn(s->orderer, st->prio, st->order);
	double v = sc_slice_equal_work(s->slicer, st->order, st->unit_stage);
	s->evals++;
	sc_search_offer(s, st->unit_stage, sc_search_slicer_kinds(s), v);
	return false;
}

/* random-T: T random priority vectors, each order sliced optimally; `slice`
 * is random-1. */
static bool random_step(sc_search *s)
{
	simple_state *st = s->state;
	double until = sc_clock_now() + 0.02;
	do {
		if (sc_search_should_stop(s, st->budget))
			return false;
		random_priorities(s, st->prio);
		sc_order_kahn(s->orderer, st->prio, st->order);
		double v = sc_slice(s->slicer, st->order, s->best, st->unit_stage);
		if (isnan(v))
			return false; /* stopped */
		s->evals++;
		if (v < s->best)
			sc_search_offer(s, st->unit_stage, sc_search_slicer_kinds(s), v);
		else if (isinf(v))
			sc_search_offer_unsliceable(s, st->order, st->unit_stage);
	} while (sc_clock_now() < until);
	return !sc_search_should_stop(s, st->budget);
}

static sc_status random_init(sc_search *s, sc_error *err)
{
	sc_status r = simple_init(s, err);
	if (r == SC_OK && s->p.evals <= 0)
		((simple_state *)s->state)->budget = 100;
	return r;
}

static bool dpl_step(sc_search *s)
{
	simple_state *st = s->state;
	sc_order_dfs(s->orderer, st->order);
	double v = sc_slice(s->slicer, st->order, INFINITY, st->unit_stage);
	if (isnan(v))
		return false; /* stopped */
	s->evals++;
	if (isinf(v))
		sc_search_offer_unsliceable(s, st->order, st->unit_stage);
	else
		sc_search_offer(s, st->unit_stage, sc_search_slicer_kinds(s), v);
	return false;
}

const sc_method sc_method_kahn = {
        .name = "kahn",
        .help = "one Kahn order (random priorities) cut into k pieces of equal work",
        .init = simple_init,
        .step = kahn_step,
        .fini = simple_fini,
};
const sc_method sc_method_slice = {
        .name = "slice",
        .help = "SliceGraph: the optimal split of one Kahn order (random-1)",
        .init = simple_init,
        .step = random_step,
        .fini = simple_fini,
};
const sc_method sc_method_random = {
        .name = "random",
        .help = "random-T: the best SliceGraph over T = --evals random orders (100)",
        .init = random_init,
        .step = random_step,
        .fini = simple_fini,
};
const sc_method sc_method_dpl = {
        .name = "dpl",
        .help = "SliceGraph on a depth-first order (DPL, paper 001)",
        .init = simple_init,
        .step = dpl_step,
        .fini = simple_fini,
};
