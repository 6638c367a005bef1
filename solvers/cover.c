/*
 * cover.c - the cover bound by column generation.  See cover.h for what it
 * proves and why; the parts here:
 *
 *   the set under growth  cover_set.c;
 *   pricing               cover_price.c;
 *   the master            LP(C) over the sets found so far (Clp), plus one
 *                         artificial column per unit so that it is always
 *                         feasible; artificial columns are not sets, so an
 *                         answer that uses one says nothing of LP(C);
 *   the search            probes just above the bound, each proof by the
 *                         cheapest set of enough dual (cover.h), the sets
 *                         found kept across probes.
 */
#define _POSIX_C_SOURCE 200809L
#include "cover.h"

#include <coin/Clp_C_Interface.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "cover_set.h"

/* Adds to lp the columns c->cols[from..] of cost <= C; false when out of
 * memory. */
static bool add_to_lp(sc_cov *c, Clp_Simplex *lp, int from, double C)
{
	int m = 0, nz = 0;
	for (int j = from; j < c->ncols; j++)
		if (c->cols[j].cost <= C * (1 + 1e-9)) {
			m++;
			nz += c->cols[j].len;
		}
	if (m == 0)
		return true;
	double *lo = calloc((size_t)m, sizeof(double));
	double *up = malloc((size_t)m * sizeof(double));
	double *ob = malloc((size_t)m * sizeof(double));
	int *st = malloc(((size_t)m + 1) * sizeof(int));
	int *rows = malloc((size_t)nz * sizeof(int));
	double *el = malloc((size_t)nz * sizeof(double));
	bool ok = lo && up && ob && st && rows && el;
	if (ok) {
		int q = 0, at = 0;
		st[0] = 0;
		for (int j = from; j < c->ncols; j++) {
			const sc_cov_column *col = &c->cols[j];
			if (col->cost > C * (1 + 1e-9))
				continue;
			for (int i = 0; i < col->len; i++) {
				rows[at] = c->cols_units[col->off + i];
				el[at++] = 1;
			}
			up[q] = DBL_MAX;
			ob[q] = 1;
			st[++q] = at;
		}
		Clp_addColumns(lp, m, lo, up, ob, st, rows, el);
	}
	free(lo);
	free(up);
	free(ob);
	free(st);
	free(rows);
	free(el);
	return ok;
}

typedef enum probe_result {
	PROBE_PROVEN,
	PROBE_NOT_PROVEN,
	PROBE_TIMEOUT,
	PROBE_ERROR
} probe_result;

static double time_left(double deadline)
{
	return deadline > 0 ? deadline - sc_clock_now() : INFINITY;
}

/* Is C proven infeasible for k stages (LP(C) > k)?  Gives up at deadline
 * (sc_clock_now() time; <= 0: none).  *proved gets the largest bound the
 * proof MIPs proved on the way (0: none), above C or not. */
static probe_result probe(sc_cov *c, int k, double deadline, double C, sc_cover_result *res,
                          double *proved)
{
	*proved = 0;
	int n = c->n;
	double art = k + 1.0; /* an artificial column's cost */
	Clp_Simplex *lp = Clp_newModel();
	if (!lp)
		return PROBE_ERROR;
	Clp_setLogLevel(lp, 0);
	/* artificial columns, one per unit */
	{
		int *start = malloc(((size_t)n + 1) * sizeof(int));
		int *idx = malloc(((size_t)n + 1) * sizeof(int));
		double *val = malloc(((size_t)n + 1) * sizeof(double));
		double *lo = calloc((size_t)n + 1, sizeof(double));
		double *up = malloc(((size_t)n + 1) * sizeof(double));
		double *ob = malloc(((size_t)n + 1) * sizeof(double));
		double *rlo = malloc(((size_t)n + 1) * sizeof(double));
		double *rup = malloc(((size_t)n + 1) * sizeof(double));
		bool ok = start && idx && val && lo && up && ob && rlo && rup;
		if (ok) {
			for (int X = 0; X < n; X++) {
				start[X] = X;
				idx[X] = X;
				val[X] = 1;
				up[X] = DBL_MAX;
				ob[X] = art;
				rlo[X] = 1;
				rup[X] = DBL_MAX;
			}
			start[n] = n;
			Clp_loadProblem(lp, n, n, start, idx, val, lo, up, ob, rlo, rup);
		}
		free(start);
		free(idx);
		free(val);
		free(lo);
		free(up);
		free(ob);
		free(rlo);
		free(rup);
		if (!ok) {
			Clp_deleteModel(lp);
			return PROBE_ERROR;
		}
	}
	probe_result r = PROBE_ERROR;
	bool first = true;
	int scanned = 0;
	for (;;) {
		/* put the columns of cost <= C not yet in the LP, in one call */
		if (!add_to_lp(c, lp, scanned, C))
			goto done;
		scanned = c->ncols;
		if (time_left(deadline) <= 0) {
			r = PROBE_TIMEOUT;
			goto done;
		}
		Clp_setMaximumSeconds(lp, time_left(deadline));
		int st = first ? Clp_initialSolve(lp) : Clp_primal(lp, 0);
		(void)st;
		first = false;
		if (Clp_status(lp) != 0) {
			r = time_left(deadline) <= 0 ? PROBE_TIMEOUT : PROBE_ERROR;
			goto done;
		}
		const double *dual = Clp_dualRowSolution(lp);
		const double *x = Clp_primalColumnSolution(lp);
		double sum = 0;
		for (int X = 0; X < n; X++) {
			c->pi[X] = dual[X] > 0 ? dual[X] : 0;
			sum += c->pi[X];
		}
		bool artificial = false;
		for (int X = 0; X < n; X++)
			artificial = artificial || x[X] > 1e-9;
		if (!artificial && Clp_objectiveValue(lp) <= k + 1e-9) {
			r = PROBE_NOT_PROVEN; /* k sets (fractionally) cover the units */
			goto done;
		}
		int added = sc_cov_price_greedy(c, C, deadline);
		if (added < 0)
			goto done;
		if (added > 0)
			continue;
		res->pricings++;
		int before = c->ncols;
		double T = sum / (k * (1 + 1e-7));
		if (T > 1 + SC_COV_PRICE_EPS) {
			/* the cheapest set with pi(S) >= T: above C it proves C
			 * and everything up to its cost (cover_set.h); at most C
			 * it is a column the LP lacks (pi(S) >= T > 1) */
			double J;
			if (!sc_cov_jump_mip(c, T, C, time_left(deadline), &J))
				goto done;
			*proved = fmax(*proved, J); /* proven, whatever C */
			if (J > C) {
				r = PROBE_PROVEN;
				goto done;
			}
		} else {
			/* no proof can come (LP(C) <= sum(pi) <= k, nearly):
			 * the most valuable set, to see if the LP is done */
			double P;
			if (!sc_cov_price_mip(c, C, time_left(deadline), &P))
				goto done;
			if (P > 0 && sum / P > k * (1 + 1e-9) + 1e-9) {
				r = PROBE_PROVEN;
				goto done;
			}
		}
		/* the MIP's best set, when the master lacks it */
		int offered = sc_cov_offer(c, C);
		sc_cov_clear(c);
		if (offered < 0)
			goto done;
		if (c->ncols > before)
			continue;
		r = time_left(deadline) <= 0 ? PROBE_TIMEOUT : PROBE_NOT_PROVEN;
		goto done;
	}
done:
	Clp_deleteModel(lp);
	return r;
}

sc_status sc_cover_bound(const sc_units *u, const sc_settings *set, const sc_cover_params *p,
                         sc_cover_result *res, sc_error *err)
{
	memset(res, 0, sizeof *res);
	res->bound = p->lower;
	res->complete = true;
	if (u->n == 0 || p->k < 1 || !(p->upper > p->lower) || !isfinite(p->upper))
		return SC_OK;
	sc_cov c;
	if (!sc_cov_init(&c, u, set)) {
		sc_cov_free(&c);
		return sc_error_nomem(err, "the cover bound");
	}
	double lo = p->lower, hi = p->upper;
	double tol = p->rel_tol > 0 ? p->rel_tol : 1e-3;
	sc_status st = SC_OK;
	/* each probe just above the bound, with all the time left: LP(C) only
	 * falls as C grows, so when that one is not proven no probe above it
	 * can be and the search ends (where the relaxation is no stronger
	 * than what is known, as with few large stages, that is one probe);
	 * when it is, the proof's own set bounds further (cover.h) and the
	 * next probe starts above that */
	while (hi - lo > tol * hi) {
		double C = fmin(lo + 2 * tol * hi, lo + 0.5 * (hi - lo));
		res->probes++;
		double proved;
		probe_result r = probe(&c, p->k, p->deadline, C, res, &proved);
		if (r == PROBE_TIMEOUT && time_left(p->deadline) > 0.05)
			r = PROBE_NOT_PROVEN;
		/* a proof's set that did not reach C still proved its cost */
		if (r == PROBE_PROVEN)
			proved = fmax(proved, C);
		if (proved > lo) {
			lo = fmin(proved, hi);
			if (p->fn)
				p->fn(p->ud, lo, res->probes);
		}
		if (r == PROBE_NOT_PROVEN)
			break;
		if (r == PROBE_TIMEOUT) {
			res->complete = false;
			break;
		}
		if (r == PROBE_ERROR) {
			st = sc_error_set(err, SC_ERR_INTERNAL, "the cover bound's LP failed");
			break;
		}
	}
	res->bound = lo;
	res->columns = c.ncols;
	sc_cov_free(&c);
	return st;
}
