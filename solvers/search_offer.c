/*
 * search_offer.c - how the search framework takes a partition a method
 * offers (search_impl.h): re-evaluated with core's cost model, its kinds
 * (fleet.h) checked or, with a fleet given, placed by
 * sc_costs_assign_kinds, and kept when it ranks before the best (search.h);
 * and the first split every search can fall back on.
 */
#define _POSIX_C_SOURCE 200809L
#include "search_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cost.h"
#include "core/mem.h"
#include "first_fit.h"
#include "simple.h"

double sc_search_excess(const sc_costs *c)
{
	double excess = 0;
	for (int i = 0; i < c->k; i++)
		if (c->st[i].over_memory)
			excess += c->st[i].param - c->set.memory;
	return excess;
}

/* True when a partition with this objective, excess and bottleneck ranks
 * before the best one (search.h); ties keep the best. */
static bool ranks_before(const sc_search *s, double value, double excess, double bottleneck)
{
	if (!s->have_best)
		return true;
	if (isfinite(value) || isfinite(s->best))
		return value < s->best;
	if (excess != s->best_excess)
		return excess < s->best_excess;
	return bottleneck < s->best_bottleneck;
}

/* True when op_stage puts a pinned op elsewhere than its pin: such a
 * partition is never kept, whatever method made it. */
static bool breaks_pins(const sc_search *s, const int *op_stage)
{
	const int *pin = s->set.pin;
	if (pin)
		for (int v = 0; v < s->g->n; v++)
			if (pin[v] >= 0 && op_stage[v] != pin[v])
				return true;
	return false;
}

const int *sc_search_slicer_kinds(sc_search *s)
{
	/* the slicer's kinds index the search's fleet: with CPU stages its
	 * fleet is the graph's device and the CPUs, as the slicer's */
	return sc_slicer_kinds(s->slicer);
}

/* With devices: evaluates c with the kinds *kind (NULL: all kind 0, or
 * with a fleet given the kinds sc_costs_assign_kinds places, then in
 * *kind) and says whether every op is on a kind that may run it (an offer
 * where one is not is never kept).  Without, evaluates c. */
static bool eval_kinds(sc_search *s, sc_costs *c, const int *op_stage, const int **kind)
{
	if (s->fleet.n == 1 && !s->assign) {
		sc_costs_eval(c, op_stage);
		return true;
	}
	if (!*kind && s->assign) {
		if (!sc_costs_assign_kinds(c, op_stage, s->assigned))
			return false;
		*kind = s->assigned;
	} else {
		sc_costs_set_kinds(c, *kind);
		sc_costs_eval(c, op_stage);
	}
	for (int i = 0; i < c->k; i++)
		if (c->st[i].no_device > 0)
			return false;
	return true;
}

/* Keeps op_stage and its kinds as the best's. */
static void keep(sc_search *s, const int *op_stage, const int *kind)
{
	memcpy(s->best_stage, op_stage, (size_t)s->g->n * sizeof *op_stage);
	for (int i = 0; i < s->K; i++)
		s->best_kind[i] = kind ? kind[i] : 0;
}

void sc_search_offer_ops(sc_search *s, const int *op_stage, const int *kind, double value)
{
	(void)value;
	if (breaks_pins(s, op_stage))
		return;
	/* re-evaluate with core's cost model so reports match `stagecut eval` */
	sc_costs *c = s->offer_costs;
	if (!eval_kinds(s, c, op_stage, &kind))
		return;
	double v = sc_costs_objective(c);
	double bottleneck = sc_costs_bottleneck(c, NULL);
	double excess = isinf(v) ? sc_search_excess(c) : 0;
	if (ranks_before(s, v, excess, bottleneck)) {
		keep(s, op_stage, kind);
		s->best = v;
		s->best_excess = excess;
		s->best_bottleneck = bottleneck;
		s->have_best = true;
	}
}

void sc_search_offer_balanced(sc_search *s, const int *op_stage, const int *kind)
{
	if (breaks_pins(s, op_stage))
		return;
	sc_costs *c = s->offer_costs;
	if (!eval_kinds(s, c, op_stage, &kind))
		return;
	double v = sc_costs_objective(c);
	if (!s->have_best || !isfinite(v) || v > s->best)
		return;
	keep(s, op_stage, kind);
	s->best = v;
	s->best_excess = 0;
	s->best_bottleneck = sc_costs_bottleneck(c, NULL);
}

/* The excess of a partition of the units, from the units' parameter sums
 * (which may differ from core's sums in the last bits); a CPU stage (kind,
 * may be NULL) has no limit. */
static double unit_excess(sc_search *s, const int *unit_stage, const int *kind)
{
	const sc_units *u = s->units;
	double *param = s->offer_param, excess = 0;
	for (int i = 0; i < s->K; i++)
		param[i] = 0;
	for (int x = 0; x < u->n; x++)
		param[unit_stage[x]] += u->param[x];
	for (int i = 0; i < s->K; i++)
		if (param[i] > s->set.memory && !(kind && s->fleet.kind[kind[i]].cpu))
			excess += param[i] - s->set.memory;
	return excess;
}

void sc_search_offer(sc_search *s, const int *unit_stage, const int *kind, double value)
{
	if (isnan(value))
		return; /* a slicing stopped before it had a split */
	if (s->have_best) {
		if (isfinite(value) || isfinite(s->best)) {
			/* a feasible best beats every infeasible partition */
			if (!(value < s->best))
				return;
		} else {
			/* both infeasible: skip the full evaluation unless the excess
			 * may tie or beat the best's (with room for rounding) */
			double tol = 1e-9 * (s->set.memory + s->best_excess);
			if (!s->assign && unit_excess(s, unit_stage, kind) > s->best_excess + tol)
				return;
		}
	}
	sc_units_expand(s->units, unit_stage, s->offer_ops);
	sc_search_offer_ops(s, s->offer_ops, kind, value);
}

void sc_search_offer_unsliceable(sc_search *s, const int *order, int *unit_stage)
{
	if (isfinite(s->best))
		return;
	double v = sc_slice_equal_work(s->slicer, order, unit_stage);
	sc_search_offer(s, unit_stage, sc_search_slicer_kinds(s), v);
}

/* The equal-work split: sc_greedy_split on an inference graph without pins
 * (with CPU stages, only when every op may go to an accelerator: the CPU
 * stages stay empty), else the slicer's equal-work split of the units'
 * topological order.  Its kinds into kind (K of them) when not NULL: with
 * CPU stages the accelerators first, with a fleet given those
 * sc_costs_assign_kinds places. */
static sc_status equal_work_split(sc_search *s, int *unit_stage, int *op_stage, int *kind,
                                  sc_error *err)
{
	for (int i = 0; kind && i < s->K; i++)
		kind[i] = i >= s->set.k && s->cpu_kind >= 0 ? s->cpu_kind : 0;
	if (!sc_graph_is_training(s->g) && !s->units->pin &&
	    (s->set.cpus == 0 || s->g->accel_refused == 0))
		return sc_greedy_split(s->g, s->set.k, op_stage, err);
	sc_slice_equal_work(s->slicer, s->units->topo, unit_stage);
	sc_units_expand(s->units, unit_stage, op_stage);
	const int *dev = sc_search_slicer_kinds(s);
	if (kind && dev)
		memcpy(kind, dev, (size_t)s->K * sizeof *kind);
	return SC_OK;
}

/* With a fleet given: the kinds that make op_stage's bottleneck least,
 * into kind and set in c. */
static void assign(sc_search *s, sc_costs *c, const int *op_stage, int *kind)
{
	if (!s->assign)
		return;
	int *to = kind ? kind : s->assigned;
	if (!sc_costs_assign_kinds(c, op_stage, to))
		for (int i = 0; i < s->K; i++)
			to[i] = 0;
}

sc_status sc_search_first_split(sc_search *s, int *op_stage, int *kind, sc_error *err)
{
	int *unit_stage =
	        sc_malloc_n((size_t)(s->units->n > 0 ? s->units->n : 1), sizeof *unit_stage);
	if (!unit_stage)
		return sc_error_nomem(err, "a first partition");
	sc_status st = equal_work_split(s, unit_stage, op_stage, kind, err);
	if (st == SC_OK)
		assign(s, s->offer_costs, op_stage, kind);
	if (st == SC_OK && s->set.policy == SC_MEM_HARD && isfinite(s->set.memory)) {
		sc_costs *c = s->offer_costs;
		if (s->fleet.n > 1 || s->assign)
			sc_costs_set_kinds(c, kind ? kind : s->assigned);
		sc_costs_eval(c, op_stage);
		bool found = false;
		/* first fit packs the accelerator stages: with CPU stages, only
		 * when every op may go to an accelerator (the CPUs stay empty) */
		if (!sc_costs_feasible(c) && (s->set.cpus == 0 || s->g->accel_refused == 0))
			st = sc_first_fit(s->units, s->orderer, s->set.k, s->set.memory, unit_stage,
			                  &found, err);
		if (found) {
			sc_units_expand(s->units, unit_stage, op_stage);
			for (int i = 0; kind && i < s->K; i++)
				kind[i] = i >= s->set.k && s->cpu_kind >= 0 ? s->cpu_kind : 0;
			assign(s, c, op_stage, kind);
		}
	}
	free(unit_stage);
	return st;
}
