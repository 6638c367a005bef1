/*
 * mip.c - the MIP rungs with CBC's C interface.  See mip.h.
 *
 * Notation: the model has K blocks (k for exact, 3 for the relaxations);
 * Y(U, b) = 1 when unit U sits in block b or earlier, for b = 0..K-1, with
 * Y(U, -1) = 0 and Y(U, K-1) = 1.  A unit's window [lo, hi] fixes Y(U, b) = 0
 * below lo and 1 from hi on, so only Y(U, lo..hi-1) are columns; fixed ones
 * are folded into each row's right-hand side.  x(U, b) = Y(U, b) - Y(U, b-1).
 *
 * Every cost is divided by a scale (the simple bound) so that the objective
 * is near 1 and CBC's absolute tolerances mean the same on every graph.
 *
 * The rows and columns are written by mip_model.c (mip_model.h); this file
 * turns them into CBC's column-major matrix, sets the limits, the MIP start
 * and the progress callback, solves, and reads the bound, the incumbent and
 * the exact rung's partition back.
 *
 * Longer than 600 lines: the solve's steps (the devices, the model, the
 * matrix, CBC's settings, its MIP start and callback, the verdict and the
 * partition) share one mip_run and CBC's process-wide callback state.
 */
#define _POSIX_C_SOURCE 200809L
#include "mip.h"

#include <coin/Cbc_C_Interface.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/activations.h"
#include "core/clock.h"
#include "core/fleet.h"
#include "cover.h"
#include "mip_model.h"
#include "simple.h"
#include "units.h"

/* rungs.def, one row per rung */
static const struct rung_row {
	const char *name, *proof, *label, *help;
} rungs[SC_RUNG_COUNT] = {
#define SC_RUNG(e, n, p, l, h) [SC_RUNG_##e] = {.name = n, .proof = p, .label = l, .help = h},
#include "rungs.def"
};

static const struct rung_row *rung_row(sc_rung r)
{
	static const struct rung_row none = {"?", "?", "?", "?"};
	return r >= 0 && r < SC_RUNG_COUNT ? &rungs[r] : &none;
}

const char *sc_rung_name(sc_rung r)
{
	return rung_row(r)->name;
}

const char *sc_rung_proof(sc_rung r)
{
	return rung_row(r)->proof;
}

const char *sc_rung_label(sc_rung r)
{
	return rung_row(r)->label;
}

const char *sc_rung_help(sc_rung r)
{
	return rung_row(r)->help;
}

bool sc_rung_parse(const char *name, sc_rung *out)
{
	for (int r = 0; r < SC_RUNG_COUNT; r++)
		if (strcmp(name, rungs[r].name) == 0) {
			*out = (sc_rung)r;
			return true;
		}
	return false;
}

/* CBC's tolerances, in scaled units (the objective is near 1, see above):
 * it stops once the incumbent is within MIP_TOL absolute or relative of its
 * best possible, and it prunes every node whose bound is within MIP_TOL of
 * the incumbent (its cutoff increment).  That increment is 1e-5 by default,
 * so a partition up to 1e-5 better than the incumbent (the MIP start, say)
 * went unseen, and the start was "proven" optimal with its own cost as the
 * lower bound (vit_b_16 at k = 4 on an h100, a "lower bound"
 * 1.06e-6 above what brkga then found).  With all three at MIP_TOL, CBC's
 * bound is what it proved up to its floating point: Clp's feasibility
 * tolerances (1e-7), which move its values by about 1e-9 relative and, on
 * graphs built so that partitions tie to within a few 1e-6, can still
 * misjudge one (tests/unit/test_rungs.c); hence the ladder's proof
 * tolerance (SC_LADDER_REL_TOL, ladder.h).  Tighter LP tolerances made
 * some solves twice as slow and others stop at their limit. */
#define MIP_TOL 1e-9

/* CBC's tolerance around an incumbent of inc, in scaled units (see
 * MIP_TOL): absolute and relative together. */
static double tol_gap(double inc)
{
	return MIP_TOL * (1 + fabs(inc));
}

/* What the message callback tracks.  A best possible is taken as a bound
 * only while CBC is still searching: before its time limit (from the
 * moment Cbc_solve was called; CBC's own clock starts a little later, so
 * this errs on the safe side) and below its best solution less the
 * tolerance.  After the limit, or once it meets the incumbent, it may be
 * a value CBC reports as it gives up (its tree cut back to the incumbent)
 * or one of a sub-search's, not a bound: resnet50's training graph at
 * k = 8 and 0.5 s under load showed 684.9 where the optimum is 253.6
 * (ladder::rungs_stay_below_the_reference_optima).  A proof comes only
 * with the final result (Cbc_isProvenOptimal). */
typedef struct cb_state {
	sc_mip_progress_fn fn;
	void *ud;
	double scale;
	double bound, incumbent;
	double t0;
	double solve_started, time_limit; /* sc_clock_now() at Cbc_solve; p->time_limit */
} cb_state;

/* Whether a best possible of b (scaled) next to a best solution of inc
 * (scaled, >= 1e49 for none) is a bound to trust now (see cb_state). */
static bool trusted_bound(const cb_state *s, double b, double inc)
{
	if (!(b > -1e49 && b < 1e49))
		return false;
	if (s->time_limit > 0 && sc_clock_now() - s->solve_started >= s->time_limit)
		return false;
	return !(inc < 1e49 && b >= inc - tol_gap(inc));
}

static cb_state *the_cb; /* CBC's message callback carries no user pointer */

static void COINLINKAGE_CB on_message(Cbc_Model *cm, int msgno, int ndouble, const double *dvec,
                                      int nint, const int *ivec, int nchar, char **cvec)
{
	(void)cm;
	(void)nchar;
	(void)cvec;
	cb_state *s = the_cb;
	if (!s || !s->fn)
		return;
	long nodes = -1;
	/* CBC0010 "After %d nodes, %d on tree, %g best solution, best possible %g" */
	if (msgno == 10 && ndouble >= 2 && nint >= 1) {
		nodes = ivec[0];
		if (dvec[0] < 1e49)
			s->incumbent = dvec[0] * s->scale;
		/* CBC writes "none" as +-1e50: a best possible of 1e50 (no live
		 * node at that moment) is no bound, and capped at the upper
		 * bound it would read as a proof while the search goes on */
		if (trusted_bound(s, dvec[1], dvec[0]))
			s->bound = fmax(s->bound, dvec[1] * s->scale);
	} else if ((msgno == 12 || msgno == 4 || msgno == 11) && ndouble >= 1) {
		/* integer solution found; CBC0004/0012 carry its value first */
		if (dvec[0] < 1e49 && dvec[0] * s->scale < s->incumbent)
			s->incumbent = dvec[0] * s->scale;
	} else {
		return;
	}
	s->fn(s->ud, s->bound, s->incumbent, nodes, sc_clock_now() - s->t0);
}

typedef struct cover_cb {
	sc_mip_progress_fn fn;
	void *ud;
	double t0;
} cover_cb;

static void on_cover(void *ud, double bound, int probes)
{
	cover_cb *cb = ud;
	cb->fn(cb->ud, bound, INFINITY, probes, sc_clock_now() - cb->t0);
}

/* The cover rung (cover.h): the search between the simple bound (or the
 * given floor) and the upper bound.  Without one, the top is a cost no
 * stage of any partition exceeds: all the work, every tensor once, and
 * (overflow) every parameter byte over the limit. */
static sc_status cover_rung(const sc_units *u, const sc_settings *set, const sc_mip_params *p,
                            double L, sc_mip_progress_fn fn, void *ud, sc_mip_result *res,
                            sc_error *err)
{
	double t0 = sc_clock_now();
	double upper = p->upper;
	if (!isfinite(upper)) {
		const sc_graph *g = u->g;
		double param = 0;
		upper = 0;
		for (int v = 0; v < g->n; v++) {
			upper += g->work[v] + g->out[v] / set->bandwidth;
			param += g->param[v] * sc_acts_param_factor(g);
		}
		if (isfinite(set->memory) && set->policy == SC_MEM_OVERFLOW && param > set->memory)
			upper += (param - set->memory) / set->bandwidth;
	}
	cover_cb cb = {fn, ud, t0};
	sc_cover_params cp = {
	        .k = p->k,
	        .lower = fmax(L, p->lower),
	        .upper = upper,
	        .deadline = p->time_limit > 0 ? t0 + p->time_limit : 0,
	        .rel_tol = 2e-3,
	        .fn = fn ? on_cover : NULL,
	        .ud = &cb,
	};
	sc_cover_result cr;
	sc_status st = sc_cover_bound(u, set, &cp, &cr, err);
	if (st != SC_OK)
		return st;
	res->status = cr.complete ? SC_MIP_OPTIMAL : SC_MIP_TIME_LIMIT;
	res->bound = cr.bound;
	res->nodes = cr.probes;
	res->cols = cr.columns;
	res->seconds = sc_clock_now() - t0;
	return SC_OK;
}

/* The rungs that are MIPs, with a guess position in 1..k. */
static sc_status check_rung(const sc_mip_params *p, sc_error *err)
{
	if (p->k < 1)
		return sc_error_set(err, SC_ERR_INPUT, "the MIP needs k >= 1 stages");
	if (p->rung != SC_RUNG_BOTTLENECK && p->rung != SC_RUNG_GUESS && p->rung != SC_RUNG_EXACT &&
	    p->rung != SC_RUNG_COVER)
		return sc_error_set(err, SC_ERR_INPUT, "rung %s is not a MIP",
		                    sc_rung_name(p->rung));
	if (p->rung == SC_RUNG_GUESS && (p->guess < 1 || p->guess > p->k))
		return sc_error_set(err, SC_ERR_INPUT, "guess position %d is not in 1..%d",
		                    p->guess, p->k);
	return SC_OK;
}

/* What the steps of one solve share (sc_mip_solve).  set is the caller's
 * settings or unpinned, their copy for a fleet; m and t start empty, so
 * freeing them is safe at every step. */
typedef struct mip_run {
	const sc_graph *g;
	const sc_settings *set;
	const sc_mip_params *p;
	sc_settings unpinned;
	sc_fleet fleet;
	bool kinds, cpus; /* a fleet of other kinds; of accelerators and CPUs only */
	/* the bottleneck and guess rungs on a fleet of other kinds: the
	 * relaxation of relax_fleet, p then relaxed_p (k its accelerators) and
	 * aok per unit whether a kind but the CPU may run it */
	bool relax;
	sc_mip_params relaxed_p;
	bool *aok;
	sc_units *u;
	double t0, L, scale; /* start, unit simple bound, cost scale */
	sc_mip_tensors t;
	sc_mip_model m;
	int zcol;
} mip_run;

/* The bottleneck and guess rungs on a fleet of other kinds (fleet.h, not
 * the graph's own device and CPUs): the relaxation of mip_model_cpu.c (of
 * mip_model.c without a CPU kind) on the fleet's stages, where every kind
 * but the CPU is one accelerator, each unit at its least time on those
 * kinds (aok says whether one may run it; a unit none may run, without a
 * CPU kind, costs 0: nothing fits anyway), every link at the fastest of
 * theirs and every stage's memory the largest of theirs.  Any partition
 * on the fleet is one of this problem with each stage costing no more
 * (its work at least those least times, its io over a link no faster,
 * its overflow against a memory no larger, the hard limit no looser; a
 * CPU stage as it is), so the relaxation's bound is below its
 * optimum.  The units are not contracted (units.h: with a fleet nothing
 * is joined).  False (err set) for a fleet of CPUs alone, where no stage
 * is an accelerator for the middle block. */
static bool relax_fleet(mip_run *r, sc_error *err)
{
	int acc = 0, cpus = 0;
	double B = 0, M = 0;
	for (int e = 0; e < r->fleet.n; e++) {
		const sc_kind *ke = &r->fleet.kind[e];
		if (ke->cpu) {
			cpus += ke->count;
			continue;
		}
		acc += ke->count;
		B = fmax(B, ke->bandwidth);
		M = fmax(M, ke->memory);
	}
	if (acc == 0) {
		sc_error_set(err, SC_ERR_INPUT,
		             "the %s rung needs a stage that is not a CPU: its middle block is one",
		             sc_rung_name(r->p->rung));
		return false;
	}
	if (r->p->rung == SC_RUNG_GUESS && r->p->guess > acc) {
		sc_error_set(err, SC_ERR_INPUT,
		             "guess position %d is not in 1..%d (the stages that are not CPUs)",
		             r->p->guess, acc);
		return false;
	}
	r->unpinned.fleet = NULL;
	r->unpinned.k = acc;
	r->unpinned.cpus = cpus;
	r->unpinned.bandwidth = B;
	r->unpinned.memory = M;
	r->relaxed_p = *r->p;
	r->relaxed_p.k = acc;
	r->p = &r->relaxed_p;
	r->relax = true;
	r->kinds = r->cpus = cpus > 0;
	return true;
}

/* relax_fleet's units: each one's least time on a kind but the CPU into
 * u->work, and in r->aok whether one may run it.  False when out of
 * memory. */
static bool relax_units(mip_run *r)
{
	sc_units *u = r->u;
	r->aok = malloc((size_t)(u->n > 0 ? u->n : 1) * sizeof *r->aok);
	if (!r->aok)
		return false;
	for (int U = 0; U < u->n; U++) {
		double least = INFINITY;
		for (int e = 0; e < r->fleet.n; e++) {
			if (r->fleet.kind[e].cpu)
				continue;
			double t = sc_kind_time(&r->fleet.kind[e], u->g, u->ops + u->ops_off[U],
			                        u->ops_off[U + 1] - u->ops_off[U]);
			if (t == t)
				least = fmin(least, t);
		}
		r->aok[U] = isfinite(least);
		u->work[U] = isfinite(least) ? least : 0;
	}
	return true;
}

/* Devices (fleet.h): the pins are not modelled, a relaxation; the cover
 * rung does not take them.  The exact rung is mip_model_kinds.c's for any
 * fleet; the bottleneck and guess rungs are mip_model_cpu.c's, for
 * accelerators of the graph's work and CPUs (a fleet of those two is
 * taken as k and --cpus), and on other kinds relax_fleet's.  Under the
 * GPipe schedule every rung models the bottleneck (the 1F1B objective),
 * which the GPipe objective never falls below (cost.h): its value is a
 * lower bound on the GPipe optimum, not that optimum (the exact rung's
 * too; the ladder takes its partition only by the GPipe objective, and a
 * proof only from a value that reaches the upper bound).  Sets r->set,
 * r->fleet, r->kinds and r->cpus. */
static sc_status resolve_devices(mip_run *r, sc_error *err)
{
	const sc_mip_params *p = r->p;
	r->unpinned = *r->set;
	r->unpinned.k = p->k;
	if (!sc_fleet_resolve(r->g, &r->unpinned, &r->fleet, err))
		return err ? err->code : SC_ERR_INPUT;
	r->kinds = !sc_fleet_plain(&r->fleet);
	r->cpus = r->kinds && sc_fleet_cpus_form(r->g, &r->fleet);
	if (!r->kinds)
		return SC_OK;
	if (p->rung == SC_RUNG_COVER)
		return sc_error_set(err, SC_ERR_INPUT,
		                    "the cover rung does not model device kinds");
	r->unpinned.pin = NULL;
	if (sc_graph_is_training(r->g))
		r->unpinned.schedule = SC_SCHEDULE_1F1B;
	if (r->cpus) {
		r->unpinned.fleet = NULL;
		r->unpinned.k = r->fleet.kind[0].count;
		r->unpinned.cpus = r->fleet.n > 1 ? r->fleet.kind[1].count : 0;
	} else if (p->rung != SC_RUNG_EXACT && !relax_fleet(r, err)) {
		return err ? err->code : SC_ERR_INPUT;
	}
	r->set = &r->unpinned;
	return SC_OK;
}

/* The memory a solve of K blocks may take: 10 KiB per op, at least 1 GiB;
 * CBC takes about 1.2 KB per unit or edge and block (measured: 10 000 ops
 * and 20 000 edges at k = 8, 261 MB; 100 000 ops, 2.2 GB). */
static sc_status check_size(const mip_run *r, int K, sc_error *err)
{
	const sc_graph *g = r->g;
	double need = 1200.0 * ((double)r->u->n + g->m) * K;
	double budget = fmax((double)(1 << 30), 10240.0 * g->n);
	if (need <= budget)
		return SC_OK;
	return sc_error_set(err, SC_ERR_LIMIT,
	                    "the %s MIP of %d units and %d edges in %d blocks would take "
	                    "about %.1f GB, more than a solve may (%.1f GB: 10 KiB per op, "
	                    "at least 1 GiB); the rung keeps the bound it has",
	                    sc_rung_name(r->p->rung), r->u->n, g->m, K, need / 1e9, budget / 1e9);
}

/* The tensors and the model of K blocks (mip_model.h), with the builder of
 * the rung and the devices: false when out of memory. */
static bool build_model(mip_run *r, int K)
{
	const sc_units *u = r->u;
	const sc_mip_params *p = r->p;
	r->m = (sc_mip_model){.u = u, .K = K, .aok = r->aok};
	r->m.lo = malloc((size_t)u->n * sizeof(int));
	r->m.hi = malloc((size_t)u->n * sizeof(int));
	r->m.ycol = malloc((size_t)u->n * (size_t)K * sizeof(int));
	r->zcol = 0;
	if (!r->m.lo || !r->m.hi || !r->m.ycol)
		return false;
	if (!r->kinds)
		return sc_mip_model_build(&r->m, r->set, p, &r->t, r->scale, r->L, &r->zcol);
	if (p->rung == SC_RUNG_EXACT && !r->relax)
		return sc_mip_model_build_kinds(&r->m, r->set, p, &r->fleet, &r->t, r->scale, r->L,
		                                &r->zcol);
	return sc_mip_model_build_cpu(&r->m, r->set, p, &r->t, r->scale, &r->zcol);
}

/* A new CBC model holding m's rows turned into columns, its integers
 * marked; NULL when out of memory. */
static Cbc_Model *load_matrix(const sc_mip_model *m)
{
	int nc = m->ncols, nr = m->r.n, nz = m->r.nz;
	int *cstart = calloc((size_t)nc + 1, sizeof(int));
	int *cidx = malloc(((size_t)nz + 1) * sizeof(int));
	double *cval = malloc(((size_t)nz + 1) * sizeof(double));
	int *fill = cstart && cidx && cval ? malloc(((size_t)nc + 1) * sizeof(int)) : NULL;
	if (!fill) {
		free(cstart);
		free(cidx);
		free(cval);
		return NULL;
	}
	for (int i = 0; i < nz; i++)
		cstart[m->r.col[i] + 1]++;
	for (int c = 0; c < nc; c++)
		cstart[c + 1] += cstart[c];
	memcpy(fill, cstart, (size_t)nc * sizeof(int));
	for (int r = 0; r < nr; r++)
		for (int i = m->r.start[r]; i < m->r.start[r + 1]; i++) {
			int c = m->r.col[i];
			cidx[fill[c]] = r;
			cval[fill[c]] = m->r.val[i];
			fill[c]++;
		}
	free(fill);

	Cbc_Model *cm = Cbc_newModel();
	Cbc_loadProblem(cm, nc, nr, cstart, cidx, cval, m->clo, m->cup, m->cobj, m->r.lo, m->r.up);
	free(cstart);
	free(cidx);
	free(cval);
	for (int c = 0; c < nc; c++)
		if (m->cint[c])
			Cbc_setInteger(cm, c);
	return cm;
}

/* CBC's settings: the sense, the log, the tolerances (MIP_TOL), the time
 * left of the limit, and when to do without its preprocessing. */
static void set_limits(Cbc_Model *cm, const mip_run *r, bool log)
{
	const sc_mip_params *p = r->p;
	Cbc_setObjSense(cm, 1);
	Cbc_setLogLevel(cm, log || getenv("SC_CBC_LOG") ? 1 : 0);
	Cbc_setParameter(cm, "timeMode", "elapsed");
	/* the exact rung on a fleet without CBC 2.10's preprocessing: on its
	 * kind binaries and shares it cut off optima (resnet50 layers at k 2
	 * with one CPU, from a MIP start: 96.65 "optimal" where the optimum
	 * is 96.32; small training graphs in tests/unit/test_kinds.c) */
	if (r->m.dcol)
		Cbc_setParameter(cm, "preprocess", "off");
	Cbc_setAllowableGap(cm, MIP_TOL);
	Cbc_setAllowableFractionGap(cm, MIP_TOL);
	/* the exact rung's proof is the one a near tie can fool (above); the
	 * relaxations keep CBC's increment, a third faster */
	if (p->rung == SC_RUNG_EXACT) {
		char increment[32];
		snprintf(increment, sizeof increment, "%g", MIP_TOL);
		Cbc_setParameter(cm, "increment", increment);
	}
	if (p->time_limit > 0) {
		double left = p->time_limit - (sc_clock_now() - r->t0);
		Cbc_setMaximumSeconds(cm, left > 0.1 ? left : 0.1);
		/* CBC 2.10 stopped by its time limit inside its preprocessing
		 * crashes in CglPreProcess::postProcess (seen with a MIP start
		 * and limits up to 0.18 s on this machine, 0.6 s under
		 * AddressSanitizer): under a short limit, no preprocessing (a
		 * crash past that stays in the solver's process and shows as
		 * the rung's error) */
		if (left < 2)
			Cbc_setParameter(cm, "preprocess", "off");
	}
}

/* The exact rung's MIP start from p->start: Y(U, b) = [stage(U) <= b],
 * and on a fleet each stage's kind (without p->start_kind: the kinds in
 * the fleet's order).  None when out of memory. */
static void set_mip_start(Cbc_Model *cm, const mip_run *r)
{
	const sc_mip_model *m = &r->m;
	const sc_units *u = r->u;
	const sc_mip_params *p = r->p;
	int *idx = malloc((size_t)m->ncols * sizeof(int));
	double *val = malloc((size_t)m->ncols * sizeof(double));
	if (idx && val) {
		int cnt = 0;
		for (int U = 0; U < u->n; U++) {
			int s = p->start[u->ops[u->ops_off[U]]];
			for (int b = 0; b < m->K; b++) {
				int c = m->ycol[U * m->K + b];
				if (c >= 0) {
					idx[cnt] = c;
					val[cnt++] = s <= b ? 1 : 0;
				}
			}
		}
		for (int b = 0; m->dcol && b < m->K; b++) {
			int kb = p->start_kind ? p->start_kind[b]
			                       : sc_fleet_kind_in_order(&r->fleet, b);
			for (int d = 1; d < m->nk; d++) {
				idx[cnt] = m->dcol[b * m->nk + d];
				val[cnt++] = d == kb ? 1 : 0;
			}
		}
		Cbc_setMIPStartI(cm, cnt, idx, val);
	}
	free(idx);
	free(val);
}

/* Runs CBC, reporting its progress to fn (when given) through on_message.
 * Returns the last bound trusted while it searched (cb_state): the given
 * lower bound (or 0) when none was, or without fn. */
static double run_cbc(Cbc_Model *cm, const mip_run *r, sc_mip_progress_fn fn, void *ud)
{
	const sc_mip_params *p = r->p;
	cb_state cb = {.fn = fn,
	               .ud = ud,
	               .scale = r->scale,
	               .bound = p->lower > 0 ? p->lower : 0,
	               .incumbent = INFINITY,
	               .t0 = r->t0};
	if (fn) {
		the_cb = &cb;
		Cbc_registerCallBack(cm, on_message);
	}
	cb.solve_started = sc_clock_now();
	cb.time_limit = p->time_limit;
	Cbc_solve(cm);
	the_cb = NULL;
	return cb.bound;
}

/* The verdict of CBC's solve into res (status, bound, incumbent, nodes):
 * sol is its best solution (NULL for none), searched the bound run_cbc
 * returned.  SC_ERR_INTERNAL when CBC stopped without an answer. */
static sc_status read_verdict(Cbc_Model *cm, const mip_run *r, const double *sol, double searched,
                              sc_mip_result *res, sc_error *err)
{
	const sc_mip_params *p = r->p;
	double scale = r->scale;
	double lower = p->lower > 0 ? p->lower : 0;
	/* over 1e20 (scaled units: the simple bound is 1) it is CBC's "none
	 * yet", as when stopped before the root */
	double best = Cbc_getBestPossibleObjValue(cm);
	best = best < 1e20 ? best * scale : NAN;
	if (!(best > lower) || !isfinite(best))
		best = lower;
	res->nodes = Cbc_getNodeCount(cm);
	if (Cbc_isSecondsLimitReached(cm)) {
		/* first: a stop by the limit proves nothing more than the bound
		 * so far, even when CBC calls its incumbent optimal (seen with
		 * the cutoff increment at MIP_TOL: resnet50's training graph at
		 * k = 8 and 0.5 s, 684.9 'optimal' where the optimum is 253.6) */
		res->status = SC_MIP_TIME_LIMIT;
		res->bound = best;
		if (sol) {
			res->incumbent = sol[r->zcol] * scale;
			/* nor is its best possible then to be trusted once it meets
			 * the incumbent: stopped by the limit with the gap closed is
			 * a bound from one of CBC's sub-searches (seen: 684.9 on that
			 * graph, after the fix above, 2 runs in 4 of
			 * ladder::rungs_stay_below_the_reference_optima); the bound
			 * is then the last one seen while CBC searched (cb_state),
			 * else the one given.  (Taking the smaller of CBC's value
			 * and that one always lost the bounds CBC proved at its root
			 * and never reported: resnet50's bottleneck rung at k 2,
			 * 0.899 of the upper bound fell to 0.836.) */
			double gap = tol_gap(res->incumbent / scale) * scale;
			if (res->bound >= res->incumbent - gap)
				res->bound = fmax(lower, searched);
		}
	} else if (Cbc_isProvenOptimal(cm) && sol) {
		res->status = SC_MIP_OPTIMAL;
		res->incumbent = sol[r->zcol] * scale;
		/* proven optimal within the allowed gaps (MIP_TOL absolute and
		 * relative, in scaled units); CBC's best possible is not always
		 * updated when presolve or the start closes the search */
		double gap = tol_gap(res->incumbent / scale) * scale;
		res->bound = fmax(best, res->incumbent - gap);
	} else if (Cbc_isProvenInfeasible(cm)) {
		res->status = isfinite(p->upper) ? SC_MIP_OPTIMAL : SC_MIP_INFEASIBLE;
		res->bound = isfinite(p->upper) ? p->upper : INFINITY;
	} else {
		return sc_error_set(err, SC_ERR_INTERNAL,
		                    "CBC stopped without an answer (status %d/%d)", Cbc_status(cm),
		                    Cbc_secondaryStatus(cm));
	}
	return SC_OK;
}

/* The exact rung's partition from CBC's solution x: each unit's stage
 * (the first block whose Y is set), expanded to the ops, and on a fleet
 * each stage's kind.  res->stages stays NULL when out of memory. */
static void read_partition(const mip_run *r, const double *x, sc_mip_result *res)
{
	const sc_mip_model *m = &r->m;
	const sc_units *u = r->u;
	res->stages = malloc((size_t)r->g->n * sizeof(int));
	int *us = malloc((size_t)u->n * sizeof(int));
	if (res->stages && us) {
		for (int U = 0; U < u->n; U++) {
			int s = m->K - 1;
			for (int b = m->K - 2; b >= 0; b--)
				if (b < m->lo[U] ||
				    (m->ycol[U * m->K + b] >= 0 && x[m->ycol[U * m->K + b]] < 0.5))
					break;
				else
					s = b;
			us[U] = s;
		}
		sc_units_expand(u, us, res->stages);
		if (m->dcol) {
			res->kstages = m->K;
			res->stage_kind = malloc((size_t)m->K * sizeof(int));
			/* the first kind where no other's binary is set */
			for (int b = 0; res->stage_kind && b < m->K; b++) {
				res->stage_kind[b] = 0;
				for (int d = 1; d < m->nk; d++)
					if (x[m->dcol[b * m->nk + d]] > 0.5)
						res->stage_kind[b] = d;
			}
			if (!res->stage_kind) {
				free(res->stages);
				res->stages = NULL;
			}
		}
	} else {
		free(res->stages);
		res->stages = NULL;
	}
	free(us);
}

/* The MIP rungs but the cover: the size check, the model, and CBC's solve
 * and verdict.  res->seconds is set unless an error stops it before CBC. */
static sc_status solve_model(mip_run *r, sc_mip_progress_fn fn, void *ud, sc_mip_result *res,
                             sc_error *err)
{
	const sc_mip_params *p = r->p;
	int K = p->rung != SC_RUNG_EXACT ? 3 : r->kinds ? sc_fleet_stages(&r->fleet) : p->k;
	sc_status st = check_size(r, K, err);
	if (st != SC_OK)
		return st;
	r->scale = r->L > 0 && isfinite(r->L) ? r->L : 1;
	if (!sc_mip_tensors_build(r->g, r->u, 1 / r->set->bandwidth / r->scale, &r->t))
		return sc_error_nomem(err, "the MIP's tensors");
	if (!build_model(r, K))
		return sc_error_nomem(err, "the MIP model");
	res->rows = r->m.r.n;
	res->cols = r->m.ncols;
	if (r->m.infeasible || isinf(r->L)) {
		/* a unit cannot fit any stage below the known bottleneck */
		res->status = isfinite(p->upper) ? SC_MIP_OPTIMAL : SC_MIP_INFEASIBLE;
		res->bound = isfinite(p->upper) ? p->upper : INFINITY;
		res->seconds = (sc_clock_now() - r->t0);
		return SC_OK;
	}
	Cbc_Model *cm = load_matrix(&r->m);
	if (!cm)
		return sc_error_nomem(err, "the MIP matrix");
	set_limits(cm, r, fn != NULL);
	if (p->rung == SC_RUNG_EXACT && p->start)
		set_mip_start(cm, r);
	double searched = run_cbc(cm, r, fn, ud);
	const double *sol = Cbc_bestSolution(cm);
	st = read_verdict(cm, r, sol, searched, res, err);
	if (st == SC_OK && p->rung == SC_RUNG_EXACT && sol)
		read_partition(r, sol, res);
	Cbc_deleteModel(cm);
	res->seconds = (sc_clock_now() - r->t0);
	return st;
}

sc_status sc_mip_solve(const sc_graph *g, const sc_settings *set, const sc_mip_params *p,
                       sc_mip_progress_fn fn, void *ud, sc_mip_result *res, sc_error *err)
{
	memset(res, 0, sizeof *res);
	res->incumbent = INFINITY;
	sc_status st = check_rung(p, err);
	if (st != SC_OK)
		return st;
	mip_run r = {.g = g, .set = set, .p = p, .t0 = sc_clock_now()};
	st = resolve_devices(&r, err);
	if (st != SC_OK)
		return st;
	r.u = sc_units_new(g, !p->plain && !r.relax, r.set, err);
	if (!r.u)
		return err ? err->code : SC_ERR_NOMEM;
	/* (relaxed: the fleet's own simple bound, below its optimum, which
	 * the relaxation's value also is) */
	r.L = r.relax    ? sc_mip_unit_simple_bound_kinds(r.u, &r.fleet)
	      : !r.kinds ? sc_mip_unit_simple_bound(r.u, p->k)
	      : r.cpus   ? sc_mip_unit_simple_bound_cpus(r.u, r.set->k, r.set->cpus)
	                 : sc_mip_unit_simple_bound_kinds(r.u, &r.fleet);
	if (r.relax && !relax_units(&r))
		st = sc_error_nomem(err, "the relaxed units");
	else if (isnan(r.L))
		st = sc_error_nomem(err, "the simple bound");
	else if (p->rung == SC_RUNG_COVER)
		st = cover_rung(r.u, r.set, p, r.L, fn, ud, res, err);
	else
		st = solve_model(&r, fn, ud, res, err);
	sc_mip_model_free(&r.m);
	sc_mip_tensors_free(&r.t);
	sc_units_free(r.u);
	free(r.aok);
	return st;
}
