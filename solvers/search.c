/*
 * search.c - the search framework.  See search.h and search_impl.h.
 *
 * The framework builds the unit DAG, a slicer and an orderer for the method,
 * steps the method, then (unless the method refines itself or refinement is
 * off) steps the refinement of the best partition through the phase it was
 * given (refine.c's sc_refine_phase).  It knows no method by name: the
 * registry, sc_search_new and the choice behind `best` are in methods.c, the
 * methods in slicing.c, brkga.c, ideals.c and refine.c, which all call the
 * framework and are called only through their sc_method tables, so no two
 * files of solvers/ call each other in a circle.  Every partition offered
 * is re-evaluated with the cost model of core/, so the bottleneck reported
 * is exactly what `stagecut eval` computes for the same partition.
 */
#define _POSIX_C_SOURCE 200809L
#include "search_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/cost.h"
#include "core/mem.h"
#include "core/partition.h"
#include "first_fit.h"
#include "simple.h"

void sc_search_params_init(sc_search_params *p)
{
	*p = (sc_search_params){
	        .method = "best",
	        .seed = 1,
	        .elite = 0.2,
	        .mutants = 0.1,
	        .bias = 0.7,
	        .ideal_limit = 0,
	        .refine = true,
	};
}

/* ---- framework ---------------------------------------------------------- */

/* Cancelled, or interrupted through params.interrupted or params.stop. */
static bool stopped_by_user(sc_search *s)
{
	return atomic_load(&s->cancel) || (s->p.interrupted && s->p.interrupted()) ||
	       (s->p.stop && s->p.stop(s->p.stop_ctx));
}

bool sc_search_should_stop(sc_search *s, long budget)
{
	if (stopped_by_user(s))
		return true;
	if (s->p.time_limit > 0 && sc_clock_now() - s->t0 >= s->p.time_limit)
		return true;
	return budget > 0 && s->evals >= budget;
}

void sc_search_fail(sc_search *s, const sc_error *err)
{
	s->err = *err;
	s->failed = true;
}

void sc_search_publish(sc_search *s, const char *phase)
{
	pthread_mutex_lock(&s->lock);
	s->snapshot.evals = s->evals;
	s->snapshot.best = s->have_best ? s->best : INFINITY;
	s->snapshot.elapsed = sc_clock_now() - s->t0;
	s->snapshot.optimal = s->optimal;
	s->snapshot.lower = s->lower;
	s->snapshot.cancelled = stopped_by_user(s);
	snprintf(s->snapshot.phase, sizeof s->snapshot.phase, "%s", phase);
	pthread_mutex_unlock(&s->lock);
}

bool sc_search_slicer_stop(void *ctx)
{
	return sc_search_should_stop(ctx, 0);
}

static sc_status setup(sc_search *s, const sc_method *m, sc_error *err)
{
	sc_slicer_free(s->slicer);
	sc_orderer_free(s->orderer);
	sc_units_free(s->units);
	s->slicer = NULL;
	s->orderer = NULL;
	s->method = m;
	s->units = sc_units_new(s->g, m->merge_trivial, &s->set, err);
	if (!s->units)
		return err ? err->code : SC_ERR_NOMEM;
	s->slicer = sc_slicer_new(s->units, &s->set, err);
	if (s->slicer)
		sc_slicer_set_stop(s->slicer, sc_search_slicer_stop, s);
	s->orderer = s->slicer ? sc_orderer_new(s->units, err) : NULL;
	if (!s->orderer)
		return err ? err->code : SC_ERR_NOMEM;
	return m->init ? m->init(s, err) : SC_OK;
}

sc_status sc_search_check(const sc_graph *g, const sc_settings *set, const sc_search_params *p,
                          sc_error *err)
{
	(void)g; /* devices take pins and the GPipe schedule as any graph does */
	if (set->k < 1)
		return sc_error_set(err, SC_ERR_INPUT, "k must be at least 1 (got %d)", set->k);
	if (set->cpus < 0)
		return sc_error_set(err, SC_ERR_INPUT, "cpus must be at least 0 (got %d)",
		                    set->cpus);
	if (p->elite <= 0 || p->elite >= 1 || p->mutants < 0 || p->elite + p->mutants >= 1 ||
	    p->bias <= 0 || p->bias >= 1 || p->population < 0 || p->generations < 0 || p->evals < 0)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "BRKGA parameters: need 0 < elite, 0 <= mutants, "
		                    "elite + mutants < 1, 0 < bias < 1, and non-negative sizes");
	return SC_OK;
}

/* Under a hard memory limit, the search starts from a partition that fits
 * when the first split finds one: a method that finds nothing
 * feasible then still ends with it, and refinement works from it.  Not
 * from a partition given (p.start): the refinement starts from that one. */
static sc_status start_within_memory(sc_search *s, sc_error *err)
{
	if (s->p.start || s->set.policy != SC_MEM_HARD || !isfinite(s->set.memory))
		return SC_OK;
	int *st = sc_part_new(s->g);
	if (!st)
		return sc_error_nomem(err, "a first partition");
	sc_status r = sc_search_first_split(s, st, s->offer_kind, err);
	if (r == SC_OK) {
		sc_costs_set_kinds(s->offer_costs, s->offer_kind);
		sc_costs_eval(s->offer_costs, st);
		if (sc_costs_feasible(s->offer_costs))
			sc_search_offer_ops(s, st, s->offer_kind, NAN);
	}
	free(st);
	return r;
}

sc_search *sc_search_start(const sc_graph *g, const sc_settings *set, const sc_search_params *p,
                           const sc_method *m, const sc_phase *refine, sc_error *err)
{
	sc_search *s = calloc(1, sizeof *s);
	if (!s) {
		sc_error_nomem(err, "the search");
		return NULL;
	}
	s->g = g;
	s->set = *set;
	/* at most one op per non-empty stage: with more stages than ops the
	 * rest stay empty (an empty stage costs nothing), so every method works
	 * with k = min(k, n) and its stages are valid for the k asked for */
	s->k_asked = set->k;
	s->cpus_asked = set->cpus;
	if (s->set.k > g->n && !set->pin) /* (a pin may name any stage) */
		s->set.k = g->n > 0 ? g->n : 1;
	/* the same for CPU stages, whose number sizes the slicer's table; not
	 * for a start given, whose stages are numbered for those asked for */
	if (s->set.cpus > g->n && !p->start)
		s->set.cpus = g->n > 0 ? g->n : 1;
	if (s->set.cpus > 0 && p->start)
		s->set.k = set->k;
	s->K = s->set.k + s->set.cpus;
	/* a fleet given: the methods split into its stages (as many as there
	 * are ops at most) of one kind, and the framework places the kinds */
	if (set->fleet) {
		/* the search's own copy: its phases outlive the caller's */
		s->fleet_given = *set->fleet;
		s->set.fleet = &s->fleet_given;
		s->assign = true;
		s->K = sc_fleet_stages(set->fleet);
		s->set.cpus = 0;
		s->set.k = s->K > g->n && !p->start ? (g->n > 0 ? g->n : 1) : s->K;
	}
	s->cset = s->set;
	s->cset.k = s->K;
	s->cset.cpus = set->cpus;
	if (!sc_fleet_resolve(g, &s->cset, &s->fleet, err)) {
		free(s);
		return NULL;
	}
	s->cpu_kind = sc_fleet_find(&s->fleet, "cpu");
	/* a fleet given: the methods split into the stages of the kinds that
	 * may run some op (a kind that may run none, a CPU on a graph without
	 * CPU times say, would leave a split into all K stages no kinds to
	 * place); its stages stay empty */
	if (s->assign && !p->start) {
		int some = 0;
		for (int e = 0; e < s->fleet.n; e++) {
			bool any = false;
			for (int v = 0; v < g->n && !any; v++)
				any = sc_kind_ok(&s->fleet.kind[e], g, v);
			some += any ? s->fleet.kind[e].count : 0;
		}
		if (some > 0 && some < s->set.k)
			s->set.k = some;
	}
	s->p = *p;
	s->p.start_kind = NULL;
	s->refine = refine;
	s->best = INFINITY;
	s->t0 = sc_clock_now();
	atomic_init(&s->cancel, false);
	pthread_mutex_init(&s->lock, NULL);
	sc_rng_seed(&s->rng, p->seed);
	s->best_stage = sc_part_new(g);
	s->best_kind = sc_calloc_n((size_t)s->K, sizeof *s->best_kind);
	s->offer_ops = sc_part_new(g);
	s->offer_param = sc_malloc_n((size_t)s->K, sizeof *s->offer_param);
	s->offer_kind = sc_calloc_n((size_t)s->K, sizeof *s->offer_kind);
	s->assigned = sc_calloc_n((size_t)s->K, sizeof *s->assigned);
	if (p->start_kind) {
		s->start_kind = sc_malloc_n((size_t)s->K, sizeof *s->start_kind);
		if (s->start_kind)
			memcpy(s->start_kind, p->start_kind, (size_t)s->K * sizeof *s->start_kind);
		s->p.start_kind = s->start_kind;
	}
	s->offer_costs = sc_costs_new(g, &s->cset, NULL);
	if (s->offer_costs)
		sc_costs_objective_only(s->offer_costs);
	if (!s->best_stage || !s->best_kind || !s->offer_ops || !s->offer_param || !s->offer_kind ||
	    !s->assigned || !s->offer_costs || (p->start_kind && !s->start_kind)) {
		sc_search_free(s);
		sc_error_nomem(err, "the search");
		return NULL;
	}
	if (setup(s, m, err) != SC_OK || start_within_memory(s, err) != SC_OK) {
		sc_search_free(s);
		return NULL;
	}
	sc_search_publish(s, m->name);
	return s;
}

void sc_search_free(sc_search *s)
{
	if (!s)
		return;
	if (s->method && s->method->fini)
		s->method->fini(s);
	if (s->refine && s->refine_state)
		s->refine->fini(s->refine_state);
	sc_slicer_free(s->slicer);
	sc_orderer_free(s->orderer);
	sc_units_free(s->units);
	free(s->best_stage);
	free(s->best_kind);
	free(s->offer_ops);
	free(s->offer_param);
	free(s->offer_kind);
	free(s->assigned);
	free(s->start_kind);
	sc_costs_free(s->offer_costs);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

bool sc_search_step(sc_search *s)
{
	if (s->failed)
		return false;
	if (!s->method_done) {
		bool more = s->method->step(s) && !s->failed;
		if (s->failed) {
			sc_search_publish(s, "failed");
			return false;
		}
		if (more) {
			sc_search_publish(s, s->method->name);
			return true;
		}
		s->method_done = true;
		if (!s->have_best) {
			/* stopped (time, cancel) before the method produced any
			 * partition: every search still returns one, and the
			 * greedy equal-work split is at hand */
			int *st = sc_part_new(s->g);
			sc_error err;
			if (st && sc_search_first_split(s, st, s->offer_kind, &err) == SC_OK)
				sc_search_offer_ops(s, st, s->offer_kind, NAN);
			free(st);
		}
		/* the refinement, or after a method that refines itself or
		 * proved its partition optimal only the balancing (refine.c) */
		/* (not once the time is up: its set-up alone is a pass over the
		 * graph, 0.2 s on 10^5 ops) */
		bool refine =
		        s->refine && s->p.refine && s->have_best && !sc_search_should_stop(s, 0);
		s->balance_only = s->method->refines_itself || s->optimal;
		if (refine) {
			sc_error err;
			if (s->refine->init(s, s->best_stage,
			                    s->fleet.n > 1 || s->assign ? s->best_kind : NULL,
			                    &s->refine_state, &err) != SC_OK) {
				sc_search_fail(s, &err);
				return false;
			}
		} else {
			s->refine_done = true;
		}
	}
	if (!s->refine_done) {
		if (s->refine->step(s, s->refine_state) && !stopped_by_user(s)) {
			sc_search_publish(s, "refine");
			return true;
		}
		s->refine_done = true;
	}
	pthread_mutex_lock(&s->lock);
	s->snapshot.done = true;
	pthread_mutex_unlock(&s->lock);
	sc_search_publish(s, "done");
	return false;
}

sc_status sc_search_run(sc_search *s, sc_error *err)
{
	while (sc_search_step(s))
		;
	if (s->failed) {
		if (err)
			*err = s->err;
		return s->err.code;
	}
	return SC_OK;
}

void sc_search_cancel(sc_search *s)
{
	atomic_store(&s->cancel, true);
}

void sc_search_progress(sc_search *s, sc_progress *out)
{
	pthread_mutex_lock(&s->lock);
	*out = s->snapshot;
	pthread_mutex_unlock(&s->lock);
}

double sc_search_result(sc_search *s, int *op_stage, bool *optimal)
{
	if (optimal)
		*optimal = s->optimal;
	if (!s->have_best || isinf(s->best))
		return INFINITY; /* an infeasible best is only a start for refinement */
	if (op_stage)
		memcpy(op_stage, s->best_stage, (size_t)s->g->n * sizeof *op_stage);
	return s->best;
}

double sc_search_result_kinds(sc_search *s, int *op_stage, int *stage_kind, bool *optimal)
{
	double v = sc_search_result(s, op_stage, optimal);
	if (!stage_kind || !(v < INFINITY))
		return v;
	int at = 0;
	for (int i = 0; i < s->K; i++)
		stage_kind[at++] = s->best_kind[i];
	if (s->assign)
		return v;
	/* the stages beyond those searched (more asked for than ops) stay
	 * empty: the accelerators, then the CPUs */
	for (int i = s->set.k; i < s->k_asked; i++)
		stage_kind[at++] = 0;
	for (int i = s->set.cpus; i < s->cpus_asked; i++)
		stage_kind[at++] = s->cpu_kind >= 0 ? s->cpu_kind : 0;
	return v;
}

const sc_error *sc_search_error(const sc_search *s)
{
	return s->failed ? &s->err : NULL;
}
