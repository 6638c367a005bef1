/*
 * dp_exact.c - the exact optimum on devices.  See dp_exact.h.
 *
 * The bound, with CPU stages: with every op allowed on an accelerator, the optimum into k
 * accelerator stages alone (the exact method, quick) is a valid partition
 * of the model with CPUs (its CPU stages empty), so the optimum with CPUs
 * is at most that.  The DP is bounded by it, not strictly, so that it
 * returns a partition of its own at or below it (ideals.h,
 * sc_dp_set_bound).
 */
#include "dp_exact.h"

#include <math.h>
#include <stdlib.h>

#include "core/clock.h"
#include "core/fleet.h"
#include "core/mem.h"
#include "ideals.h"
#include "units.h"

typedef struct stop_ctx {
	const sc_search_params *p;
	double until; /* sc_clock_now() time, or 0 */
} stop_ctx;

static bool should_stop(void *ctx)
{
	const stop_ctx *c = ctx;
	return (c->until > 0 && sc_clock_now() > c->until) ||
	       (c->p->interrupted && c->p->interrupted()) ||
	       (c->p->stop && c->p->stop(c->p->stop_ctx));
}

/* Runs d to its end.  SC_OK, or the step's error. */
static sc_status run_dp(sc_dp *d, stop_ctx *sc, sc_error *err)
{
	sc_dp_set_stop(d, should_stop, sc);
	for (;;) {
		int more = sc_dp_step(d, sc_clock_now() + 0.05, err);
		if (more < 0)
			return err ? err->code : SC_ERR_LIMIT;
		if (more == 0)
			return SC_OK;
		if (should_stop(sc))
			return sc_error_set(err, SC_ERR_LIMIT,
			                    "the exact DP on devices was stopped (time limit or "
			                    "interrupt) before it finished");
	}
}

/* The optimum into set->k accelerator stages alone, or INFINITY. */
static double accel_only_bound(const sc_graph *g, const sc_settings *set, const sc_search_params *p,
                               double until)
{
	if (g->accel_refused > 0 || set->fleet)
		return INFINITY;
	sc_settings s0 = *set;
	s0.cpus = 0;
	sc_search_params q = *p;
	q.method = "exact";
	q.refine = false;
	q.start = NULL;
	if (until > 0)
		q.time_limit = fmax(0.01, (until - sc_clock_now()) / 4);
	sc_error e;
	sc_search *s = sc_search_new(g, &s0, &q, &e);
	if (!s)
		return INFINITY;
	double ub = INFINITY;
	if (sc_search_run(s, &e) == SC_OK)
		ub = sc_search_result(s, NULL, NULL);
	sc_search_free(s);
	return ub;
}

sc_status sc_dp_exact(const sc_graph *g, const sc_settings *set, const sc_search_params *p,
                      int *op_stage, int *stage_kind, sc_dp_exact_info *info, sc_error *err)
{
	double t0 = sc_clock_now();
	*info = (sc_dp_exact_info){.optimum = INFINITY, .upper = INFINITY};
	if (set->cpus < 1 && !set->fleet)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "the exact DP on devices needs CPU stages or a fleet");
	if (set->k < 1 && !set->fleet)
		return sc_error_set(err, SC_ERR_INPUT, "k must be at least 1 (got %d)", set->k);
	if (set->pin)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "pinned ops (--pin) are not supported on devices yet");
	sc_fleet f;
	if (!sc_fleet_resolve(g, set, &f, err))
		return err ? err->code : SC_ERR_INPUT;
	stop_ctx sc = {.p = p, .until = p->time_limit > 0 ? t0 + p->time_limit : 0};
	info->upper = accel_only_bound(g, set, p, sc.until);
	sc_units *u = sc_units_new(g, true, set, err);
	if (!u)
		return err ? err->code : SC_ERR_NOMEM;
	info->units = u->n;
	int K = sc_fleet_stages(&f);
	int *unit_stage = sc_malloc_n((size_t)(u->n > 0 ? u->n : 1), sizeof *unit_stage);
	int *kind = sc_calloc_n((size_t)(K > 0 ? K : 1), sizeof *kind);
	sc_dp *d = NULL;
	sc_status st = SC_OK;
	if (!unit_stage || !kind) {
		st = sc_error_nomem(err, "the exact DP");
		goto out;
	}
	d = sc_dp_new(u, set, set->k, p->ideal_limit, err);
	if (!d) {
		st = err ? err->code : SC_ERR_NOMEM;
		goto out;
	}
	if (p->dp_memory > 0)
		sc_dp_set_memory(d, p->dp_memory);
	info->relaxed = sc_dp_relaxed(d);
	sc_dp_set_bound(d, info->upper, false);
	if ((st = run_dp(d, &sc, err)) != SC_OK)
		goto out;
	sc_dp_progress_info pi;
	sc_dp_progress(d, &pi);
	info->ideals = pi.ideals;
	info->evals = pi.evals;
	double opt = sc_dp_result_kinds(d, unit_stage, kind);
	if (!isfinite(opt) && isfinite(info->upper)) {
		/* the bound is a partition's cost: only rounding can leave the
		 * DP empty-handed below it; run it again unbounded */
		sc_dp_free(d);
		d = sc_dp_new(u, set, set->k, p->ideal_limit, err);
		if (!d) {
			st = err ? err->code : SC_ERR_NOMEM;
			goto out;
		}
		if (p->dp_memory > 0)
			sc_dp_set_memory(d, p->dp_memory);
		if ((st = run_dp(d, &sc, err)) != SC_OK)
			goto out;
		opt = sc_dp_result_kinds(d, unit_stage, kind);
	}
	info->optimum = opt;
	if (!isfinite(opt))
		goto out; /* nothing fits (the bound is a valid partition, so only then) */
	sc_units_expand(u, unit_stage, op_stage);
	for (int s = 0; s < K; s++)
		stage_kind[s] = kind[s];
	if (p->refine && K > 1) {
		/* the least sum of squared stage costs among the optima: a second
		 * DP, the first one's memory freed first; when it cannot finish,
		 * the first partition stands */
		sc_dp_free(d);
		d = sc_dp_new(u, set, set->k, p->ideal_limit, err);
		if (!d)
			goto out;
		if (p->dp_memory > 0)
			sc_dp_set_memory(d, p->dp_memory);
		sc_dp_set_balance(d, opt);
		sc_error e2;
		if (run_dp(d, &sc, &e2) == SC_OK &&
		    isfinite(sc_dp_result_kinds(d, unit_stage, kind))) {
			sc_units_expand(u, unit_stage, op_stage);
			for (int s = 0; s < K; s++)
				stage_kind[s] = kind[s];
			info->balanced = true;
		}
	}
out:
	info->seconds = sc_clock_now() - t0;
	sc_dp_free(d);
	free(unit_stage);
	free(kind);
	sc_units_free(u);
	return st;
}
